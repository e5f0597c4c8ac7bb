/**
 * `connections add|list|test|pause|resume|remove` on a registry file and on a DynamoDB table
 * (dynalite): refusals exit 2 and leave the registry byte for byte as it was; `test` checks the
 * credentials against the sandbox; no secret ever appears in any output.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { type CliRun, cli } from './cli-harness.js';

const API_KEY = 'sandbox-api-key';
const WRONG_KEY = 'wrong-key-d41d8cd98f00';
const SECRETS = [API_KEY, WRONG_KEY, 'sandbox-secret', 'unrelated-key-5be1'];

let dir: string;
let sandbox: Sandbox;
let servers: TestServers;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'connections-cli-'));
  [sandbox, servers] = await Promise.all([
    startSandbox({ sizes: { documents: 30, partners: 5, perCollection: {} } }),
    startTestServers(),
  ]);
});
afterAll(async () => {
  await Promise.all([sandbox.close(), servers.close()]);
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({
  ACME_CREDENTIALS: JSON.stringify({ apiKey: API_KEY }),
  OAUTH_CREDENTIALS: JSON.stringify({ clientId: 'sandbox-client', clientSecret: 'sandbox-secret' }),
  WRONG_CREDENTIALS: JSON.stringify({ apiKey: WRONG_KEY }),
  NOTJSON_CREDENTIALS: 'unrelated-key-5be1',
  // Each connection reads its own variable (`env:<NAME>_CREDENTIALS`).
  BETA_CREDENTIALS: JSON.stringify({ clientId: 'sandbox-client', clientSecret: 'sandbox-secret' }),
  FROMJSON_CREDENTIALS: JSON.stringify({ apiKey: API_KEY }),
  SKONCZ_CREDENTIALS: JSON.stringify({ apiKey: API_KEY }),
  LIMITED_CREDENTIALS: JSON.stringify({ apiKey: API_KEY }),
  DOWN_CREDENTIALS: JSON.stringify({ apiKey: API_KEY }),
});

/** The text with every run of white space (a wrapped line's break and indent) as one space. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

function expectNoSecret(run: CliRun): void {
  for (const secret of SECRETS) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

async function run(argv: string[]): Promise<CliRun> {
  const result = await cli(['connections', ...argv], { env: env(), cwd: dir });
  expectNoSecret(result);
  return result;
}

let files = 0;
function registryFile(): string[] {
  return ['--connections', join(dir, `registry-${++files}.json`)];
}

/** `connections add` of one entry to `target`, with `extra` flags after the usual three. */
const addConnection = (
  target: string[],
  entry: { name: string; baseUrl: string; secret: string },
  extra: string[] = [],
) =>
  run([
    'add',
    ...target,
    '--name',
    entry.name,
    '--base-url',
    entry.baseUrl,
    '--credentials-secret',
    entry.secret,
    ...extra,
  ]);

const addAcme = (target: string[], extra: string[] = []) =>
  addConnection(target, { name: 'acme', baseUrl: sandbox.baseUrl, secret: 'env:ACME_CREDENTIALS' }, extra);

describe('connections on a file', () => {
  it('adds, lists, pauses, resumes and removes; list never shows a secret', async () => {
    const file = registryFile();
    expect(
      (await addAcme(file, ['--collections', 'issuedinvoices,BusinessPartners', '--poll-interval', '2m']))
        .code,
    ).toBe(0);
    const beta = await run([
      'add',
      ...file,
      '--name',
      'beta',
      '--variant',
      'cz',
      '--credentials-secret',
      'env:BETA_CREDENTIALS',
      '--paused',
      '--rate-limit',
      '0.5',
      '--burst',
      '2',
      '--action',
      'ACTIONS_ISDOC_PDF=true',
    ]);
    expect(beta).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("added connection 'beta' (cz, default collections, every 1m, paused)"),
    });
    const table = await run(['list', ...file]);
    expect(table.stdout).toMatch(/^NAME +VARIANT +STATE/);
    // 80 columns: a row per connection, its longer settings on the lines under it.
    expect(table.stdout).toMatch(
      /\nacme +sk +active +2m +5\/s burst 10\n {2}collections {2}IssuedInvoices, BusinessPartners\n {2}base URL {5}http:\/\/127\.0\.0\.1:\d+\n {2}credentials {2}env:ACME_CREDENTIALS\n/,
    );
    expect(table.stdout).toMatch(
      /\nbeta +cz +paused +1m +0\.5\/s burst 2\n {2}collections {2}\(default\)\n {2}base URL {5}\(variant preset\)\n {2}credentials {2}env:BETA_CREDENTIALS\n/,
    );
    for (const line of table.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    // --wide: one line each, every setting whole.
    const wide = await run(['list', ...file, '--wide']);
    expect(wide.stdout).toMatch(/acme +sk +active +2m +5\/s burst 10 +IssuedInvoices,BusinessPartners/);
    expect(wide.stdout).toMatch(
      /beta +cz +paused +1m +0\.5\/s burst 2 +\(default\) +\(variant preset\) +env:BETA_CREDENTIALS/,
    );
    const json = (await run(['list', ...file, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.map((e) => [e.name, e.paused, e.actions])).toEqual([
      ['acme', false, {}],
      ['beta', true, { ACTIONS_ISDOC_PDF: 'true' }],
    ]);
    expect((await run(['pause', 'acme', ...file])).stdout).toContain("connection 'acme' is paused");
    expect((await run(['resume', 'beta', ...file])).stdout).toContain("connection 'beta' is active");
    expect((await run(['remove', 'beta', ...file])).code).toBe(0);
    const after = (await run(['list', ...file, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(after).toEqual([
      expect.objectContaining({ name: 'acme', paused: true, pollIntervalSeconds: 120 }),
    ]);
  });

  it('refuses bad input with exit 2, naming the entry and the setting, and leaves the file byte for byte', async () => {
    const file = registryFile();
    await addAcme(file);
    const path = file[1] as string;
    const before = await readFile(path, 'utf8');
    const cases: [string[], RegExp][] = [
      [
        ['add', '--name', 'acme', '--variant', 'cz', '--credentials-secret', 'env:ACME_CREDENTIALS'],
        /connection 'acme' already exists/,
      ],
      [
        ['add', '--name', 'beta', '--variant', 'de', '--credentials-secret', 'env:BETA_CREDENTIALS'],
        /connection 'beta': variant \(--variant\): expected one of sk, cz/,
      ],
      [
        [
          'add',
          '--name',
          'beta',
          '--variant',
          'cz',
          '--collections',
          'IssuedCreditNotes',
          '--credentials-secret',
          'env:BETA_CREDENTIALS',
        ],
        /connection 'beta': collections\.0 \(--collections\): 'IssuedCreditNotes' is not a collection of the cz variant/,
      ],
      [
        [
          'add',
          '--name',
          'beta',
          '--base-url',
          'http://example.com',
          '--credentials-secret',
          'env:BETA_CREDENTIALS',
        ],
        /connection 'beta': baseUrl \(--base-url\): expected baseUrl \(an https URL/,
      ],
      [
        ['add', '--name', 'unset', '--variant', 'cz', '--credentials-secret', 'env:UNSET_CREDENTIALS'],
        /connection 'unset': credentialsSecret 'env:UNSET_CREDENTIALS' names the environment variable UNSET_CREDENTIALS, which is not set/,
      ],
      [
        ['add', '--name', 'notjson', '--variant', 'cz', '--credentials-secret', 'env:NOTJSON_CREDENTIALS'],
        /connection 'notjson': credentialsSecret 'env:NOTJSON_CREDENTIALS' is not valid JSON/,
      ],
      [
        // Another connection's variable: refused, nothing read, no request (finding 2).
        ['add', '--name', 'evil', '--variant', 'cz', '--credentials-secret', 'env:ACME_CREDENTIALS'],
        /connection 'evil': credentialsSecret \(--credentials-secret\): expected env:EVIL_CREDENTIALS/,
      ],
      [
        ['add', '--name', 'beta', '--variant', 'cz', '--credentials-secret', 'unrelated-key-5be1 x'],
        /connection 'beta': credentialsSecret \(--credentials-secret\): expected a secret reference/,
      ],
      [['pause', 'nope'], /connection 'nope' is not in the registry/],
      [['resume', 'nope'], /connection 'nope' is not in the registry/],
      [['remove', 'nope'], /connection 'nope' is not in the registry/],
      [['add', '--name', 'beta', '--poll-interval', 'soon'], /--poll-interval: expected a duration/],
      [['list', '--paused'], /--paused: only with add/],
    ];
    for (const [argv, message] of cases) {
      const result = await run([...argv, ...file]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(await readFile(path, 'utf8')).toBe(before);
    }
  });

  it('refuses to change a malformed file, naming the entry, and changes nothing', async () => {
    const file = registryFile();
    const path = file[1] as string;
    const text = JSON.stringify({
      connections: [{ name: 'acme', variant: 'cz', credentialsSecret: 'env:ACME_CREDENTIALS', paused: 'no' }],
    });
    await writeFile(path, text);
    for (const argv of [
      ['list'],
      ['pause', 'acme'],
      ['add', '--name', 'beta', '--variant', 'cz', '--credentials-secret', 'env:BETA_CREDENTIALS'],
    ]) {
      const result = await run([...argv, ...file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/connection 'acme' \(connections\[0\]\): paused: expected true or false/);
      expect(await readFile(path, 'utf8')).toBe(text);
    }
  });

  it('adds from a JSON file, flags winning, and prints the registry schema', async () => {
    const file = registryFile();
    const json = join(dir, 'entry.json');
    await writeFile(
      json,
      JSON.stringify({
        name: 'fromjson',
        variant: 'cz',
        credentialsSecret: 'env:FROMJSON_CREDENTIALS',
        pollIntervalSeconds: 300,
      }),
    );
    expect((await run(['add', ...file, '--from-json', json, '--paused'])).code).toBe(0);
    expect(JSON.parse((await run(['list', ...file, '--json'])).stdout)).toMatchObject({
      name: 'fromjson',
      paused: true,
      pollIntervalSeconds: 300,
    });
    const schema = JSON.parse((await run(['schema'])).stdout);
    expect(schema.required).toEqual(['connections']);
  });
});

describe('connections test against the sandbox', () => {
  it('accepts good credentials (API key and OAuth) and reports what each collection answers', async () => {
    const file = registryFile();
    await addAcme(file, ['--collections', 'IssuedInvoices,BusinessPartners']);
    const result = await run(['test', 'acme', ...file]);
    expect(result.code).toBe(0);
    // Wrapped to 80 columns: read with the line breaks as spaces.
    expect(flat(result.stdout)).toContain(
      `connection 'acme' (sk, ${sandbox.baseUrl}), credentials from env:ACME_CREDENTIALS (API key): accepted`,
    );
    expect(result.stdout).toMatch(/IssuedInvoices +answered \(\d+ records\)/);
    expect(result.stdout).toMatch(/BusinessPartners +answered \(\d+ records\)/);
    await run([
      'add',
      ...file,
      '--name',
      'oauth',
      '--base-url',
      sandbox.baseUrl,
      '--auth-url',
      sandbox.authUrl,
      '--credentials-secret',
      'env:OAUTH_CREDENTIALS',
    ]);
    const oauth = await run(['test', 'oauth', ...file, '--json']);
    expect(oauth.code).toBe(0);
    const report = JSON.parse(oauth.stdout);
    expect(report).toMatchObject({
      connection: 'oauth',
      credentials: 'accepted',
      credentialsSecret: 'env:OAUTH_CREDENTIALS',
    });
    expect(report.collections.length).toBeGreaterThan(5);
    expect(report.collections.every((c: { result: string }) => c.result === 'answered')).toBe(true);
  });

  it('reports 404 for the collections a service does not offer (--all), credentials still accepted', async () => {
    const cz = await startSandbox({
      variant: 'cz',
      sizes: { documents: 20, partners: 3, perCollection: {} },
    });
    try {
      const file = registryFile();
      await addConnection(file, { name: 'skoncz', baseUrl: cz.baseUrl, secret: 'env:SKONCZ_CREDENTIALS' });
      const result = await run(['test', 'skoncz', '--all', ...file]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/IssuedInvoices +answered/);
      expect(result.stdout).toMatch(/IssuedCreditNotes +404 \(not offered by this service\)/);
    } finally {
      await cz.close();
    }
  });

  it('reports 403 for the collections the credentials lack the right to, the others answered (exit 0)', async () => {
    const limited = await startSandbox({
      sizes: { documents: 20, partners: 3, perCollection: {} },
      forbiddenCollections: ['ReceivedInvoices'],
    });
    try {
      const file = registryFile();
      await addConnection(
        file,
        { name: 'limited', baseUrl: limited.baseUrl, secret: 'env:LIMITED_CREDENTIALS' },
        ['--collections', 'IssuedInvoices,ReceivedInvoices,BusinessPartners'],
      );
      const result = await run(['test', 'limited', ...file]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('(API key): accepted');
      expect(result.stdout).toMatch(/IssuedInvoices +answered/);
      expect(result.stdout).toMatch(/ReceivedInvoices +refused \(403: these credentials may not read it\)/);
      expect(result.stdout).toMatch(/BusinessPartners +answered/);
    } finally {
      await limited.close();
    }
  });

  it('exits 1 on refused credentials, without printing them', async () => {
    const file = registryFile();
    await addConnection(file, { name: 'wrong', baseUrl: sandbox.baseUrl, secret: 'env:WRONG_CREDENTIALS' });
    const result = await run(['test', 'wrong', ...file]);
    expect(result.code).toBe(1);
    expect(flat(result.stdout)).toContain('credentials from env:WRONG_CREDENTIALS (API key): refused');
    expect(result.stdout).toMatch(/credentials refused \(401\)/);
  });

  it('exits 1 when the service does not answer, after one collection', async () => {
    const file = registryFile();
    await run([
      'add',
      ...file,
      '--name',
      'down',
      '--base-url',
      'http://127.0.0.1:1',
      '--credentials-secret',
      'env:DOWN_CREDENTIALS',
      '--collections',
      'IssuedInvoices,BusinessPartners',
    ]);
    const result = await run(['test', 'down', ...file]);
    expect(result.code).toBe(1);
    expect(flat(result.stdout)).toContain('(API key): not checked (no collection answered)');
    expect(flat(result.stdout)).toMatch(
      /IssuedInvoices unreachable: ConnectionError \(the other collections were not tried\) $/,
    );
    for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('refuses to test an unknown connection or one whose secret is gone (exit 2)', async () => {
    const file = registryFile();
    await addConnection(file, { name: 'later', baseUrl: sandbox.baseUrl, secret: 'env:LATER_CREDENTIALS' }, [
      '--skip-secret-check',
    ]);
    expect((await run(['test', 'nope', ...file])).code).toBe(2);
    const gone = await run(['test', 'later', ...file]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(
      "credentialsSecret 'env:LATER_CREDENTIALS' names the environment variable LATER_CREDENTIALS, which is not set",
    );
  });
});

describe('connections on DynamoDB (dynalite)', () => {
  it('works on a table and leaves it unchanged on refusals', async () => {
    const tableName = await servers.connectionTable();
    const table = ['--table', tableName, '--endpoint', servers.dynamoDbEndpoint];
    const scan = async () =>
      JSON.stringify(
        (await servers.dynamoDb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }))).Items,
      );
    // One sentence, wrapped to 80 columns.
    expect((await addAcme(table)).stdout.replace(/\s+/g, ' ')).toContain(`to the table ${tableName}`);
    expect((await run(['pause', 'acme', ...table])).code).toBe(0);
    const before = await scan();
    for (const argv of [
      ['add', '--name', 'acme', '--variant', 'cz', '--credentials-secret', 'env:ACME_CREDENTIALS'],
      ['remove', 'nope'],
      ['add', '--name', 'x', '--variant', 'cz', '--credentials-secret', 'env:UNSET'],
    ]) {
      expect((await run([...argv, ...table])).code).toBe(2);
      expect(await scan()).toBe(before);
    }
    expect((await run(['list', ...table])).stdout).toMatch(/acme +sk +paused/);
    expect((await run(['test', 'acme', ...table, '--json'])).code).toBe(0);
    expect((await run(['remove', 'acme', ...table])).code).toBe(0);
    expect((await run(['list', ...table])).stdout).toBe(`0 connections in the table ${tableName}\n`);
  });
});

describe('connections with Secrets Manager references', () => {
  const arn =
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:accounting-events-prod/connections/acme-AbCdEf';

  it('reads the secret to add and to test, and refuses a missing one leaving the file unchanged', async () => {
    const secretsManager = mockClient(SecretsManagerClient);
    try {
      secretsManager
        .on(GetSecretValueCommand, { SecretId: arn })
        .resolves({ SecretString: JSON.stringify({ apiKey: API_KEY }) })
        .on(GetSecretValueCommand, { SecretId: 'accounting-events-prod/connections/beta' })
        .rejects(new ResourceNotFoundException({ message: 'Secrets Manager cannot find it', $metadata: {} }));
      const file = registryFile();
      expect(
        (
          await run([
            'add',
            ...file,
            '--name',
            'acme',
            '--base-url',
            sandbox.baseUrl,
            '--credentials-secret',
            arn,
          ])
        ).code,
      ).toBe(0);
      const before = await readFile(file[1] as string, 'utf8');
      const missing = await run([
        'add',
        ...file,
        '--region',
        'eu-central-1',
        '--base-url',
        sandbox.baseUrl,
        '--name',
        'beta',
        '--credentials-secret',
        'accounting-events-prod/connections/beta',
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        "connection 'beta': credentialsSecret 'accounting-events-prod/connections/beta' does not exist in Secrets Manager",
      );
      expect(await readFile(file[1] as string, 'utf8')).toBe(before);
      const tested = await run(['test', 'acme', ...file, '--json']);
      expect(tested.code).toBe(0);
      expect(JSON.parse(tested.stdout)).toMatchObject({ credentials: 'accepted', credentialsSecret: arn });
    } finally {
      secretsManager.restore();
    }
  });
});
