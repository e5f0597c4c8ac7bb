/**
 * `connections add --seal-credentials FILE` on a DynamoDB table (dynalite), with Parameter Store
 * answered in process: the entry holds `sealed:<keyId>:…`, the data key is made once (a SecureString
 * under the deployment's KMS alias, never overwritten) and reused, `test` opens it against the
 * sandbox, and no secret reaches the table or any output. Refusals exit 2 and change nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetParameterCommand,
  GetParametersCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { type CliRun, cli } from './cli-harness.js';

const API_KEY = 'sandbox-api-key';
const PATH = '/accounting-events-prod/sealing-keys';
let dir: string;
let sandbox: Sandbox;
let servers: TestServers;
const ssm = mockClient(SSMClient);
/** Parameter Store: name → value (the data keys, base64). */
const parameters = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'connections-seal-'));
  [sandbox, servers] = await Promise.all([
    startSandbox({ sizes: { documents: 10, partners: 3, perCollection: {} } }),
    startTestServers(),
  ]);
  await writeFile(join(dir, 'acme.json'), JSON.stringify({ apiKey: API_KEY }));
  await writeFile(join(dir, 'not-json.json'), `apiKey=${API_KEY}`);
  await writeFile(join(dir, 'wrong-keys.json'), JSON.stringify({ key: API_KEY }));
});
afterAll(async () => {
  ssm.restore();
  await Promise.all([sandbox.close(), servers.close()]);
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  ssm.reset();
  parameters.clear();
});

function answerParameterStore() {
  ssm
    .on(GetParameterCommand)
    .callsFake((input: { Name: string }) => {
      const value = parameters.get(input.Name);
      if (value === undefined) throw new ParameterNotFound({ message: input.Name, $metadata: {} });
      return { Parameter: { Name: input.Name, Type: 'SecureString', Value: value } };
    })
    .on(GetParametersCommand)
    .callsFake((input: { Names: string[] }) => ({
      Parameters: input.Names.filter((n) => parameters.has(n)).map((n) => ({
        Name: n,
        Type: 'SecureString',
        Value: parameters.get(n),
      })),
      InvalidParameters: input.Names.filter((n) => !parameters.has(n)),
    }))
    .on(PutParameterCommand)
    .callsFake((input: { Name: string; Value: string; Overwrite?: boolean }) => {
      if (parameters.has(input.Name) && !input.Overwrite)
        throw new ParameterAlreadyExists({ message: input.Name, $metadata: {} });
      parameters.set(input.Name, input.Value);
      return { Version: 1 };
    });
}

async function run(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const result = await cli(['connections', ...argv], { env, cwd: dir });
  for (const text of [result.stdout, result.stderr]) {
    expect(text).not.toContain(API_KEY);
    for (const key of parameters.values()) expect(text).not.toContain(key);
  }
  return result;
}

const sealed = (name: string, file: string, extra: string[] = []) => [
  'add',
  '--name',
  name,
  '--base-url',
  sandbox.baseUrl,
  '--seal-credentials',
  file,
  '--sealing-keys',
  PATH,
  ...extra,
];

describe('connections add --seal-credentials', () => {
  it('seals into the entry, makes the data key once, and test opens it', async () => {
    answerParameterStore();
    const tableName = await servers.connectionTable();
    const table = ['--table', tableName, '--endpoint', servers.dynamoDbEndpoint];
    const scan = async () =>
      JSON.stringify(
        (await servers.dynamoDb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }))).Items,
      );
    for (const name of ['acme', 'globex']) {
      const added = await run([...sealed(name, 'acme.json'), ...table]);
      expect(added.code, added.stderr).toBe(0);
    }
    const puts = ssm.commandCalls(PutParameterCommand).map((c) => c.args[0].input);
    expect(puts).toEqual([
      expect.objectContaining({
        Name: `${PATH}/k1`,
        Type: 'SecureString',
        KeyId: `alias${PATH}`,
        Overwrite: false,
      }),
    ]);
    const items = await scan();
    expect(items).not.toContain(API_KEY);
    expect(items.match(/sealed:k1:/g)).toHaveLength(2);
    const listed = await run(['list', ...table]);
    expect(listed.stdout).toContain('credentials  sealed:k1:…');
    const tested = await run(['test', 'acme', ...table], { ACCOUNTING_SEALING_KEYS_PATH: PATH });
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout.replace(/\s+/g, ' ')).toContain('credentials from sealed:k1:… (API key): accepted');

    // A new key id makes a new key (rotation); the old entries still open.
    expect((await run([...sealed('initech', 'acme.json', ['--sealing-key-id', 'k2']), ...table])).code).toBe(
      0,
    );
    expect(ssm.commandCalls(PutParameterCommand)).toHaveLength(2);
    expect((await run(['test', 'globex', ...table], { ACCOUNTING_SEALING_KEYS_PATH: PATH })).code).toBe(0);

    // Refusals: exit 2, the table as it was.
    const before = await scan();
    const acmeItem = JSON.parse(before).find((i: { name: { S: string } }) => i.name.S === 'acme');
    await writeFile(
      join(dir, 'copied.json'),
      JSON.stringify({
        name: 'mallory',
        baseUrl: sandbox.baseUrl,
        credentialsSecret: acmeItem.credentialsSecret.S,
      }),
    );
    const refusals: Array<[string[], RegExp]> = [
      [sealed('beta', 'not-json.json'), /--seal-credentials: not-json.json is not valid JSON/],
      [
        sealed('beta', 'wrong-keys.json'),
        /--seal-credentials: wrong-keys.json expected \{"apiKey"\}.*found keys: key/,
      ],
      [sealed('beta', 'missing.json'), /--seal-credentials: cannot read missing.json \(ENOENT\)/],
      [
        [...sealed('beta', 'acme.json'), '--credentials-secret', 'env:BETA_CREDENTIALS'],
        /give one of the two/,
      ],
      [[...sealed('beta', 'acme.json'), '--sealing-key-id', 'K!'], /--sealing-key-id: expected/],
      [
        ['add', '--from-json', 'copied.json'],
        /connection 'mallory': credentialsSecret 'sealed:k1:…' could not be opened with sealing key 'k1'/,
      ],
    ];
    for (const [argv, message] of refusals) {
      const refused = await run([...argv, ...table], { ACCOUNTING_SEALING_KEYS_PATH: PATH });
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(message);
      expect(await scan()).toBe(before);
    }
    expect(ssm.commandCalls(PutParameterCommand)).toHaveLength(2);
  });

  it('is refused on a registry file (sealed credentials are for the deployment)', async () => {
    const file = ['--connections', join(dir, 'registry.json')];
    const refused = await run([...sealed('acme', 'acme.json'), ...file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('only with --table');
  });
});
