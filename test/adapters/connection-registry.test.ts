import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbConnectionRegistry } from '#functions/adapters/aws/dynamodb-connection-registry.js';
import { createFileConnectionRegistry } from '#functions/adapters/local/file-connection-registry.js';
import { FileLockTimeoutError, withFileLock } from '#functions/adapters/local/file-lock.js';
import { ConnectionsFileError } from '#functions/core/connections/connections-file.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { describeConnectionRegistryContract, entry } from './connection-registry-contract.js';

let servers: TestServers;
let dir: string;
beforeAll(async () => {
  servers = await startTestServers();
  dir = await mkdtemp(join(tmpdir(), 'connection-registry-'));
});
afterAll(async () => {
  await servers.close();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** A registry path in a directory of its own; the directory exists only with `exists`. */
function freshFile(exists = false): string {
  const sub = join(dir, `r${++files}`);
  if (exists) mkdirSync(sub);
  return join(sub, 'connections.json');
}

async function fileBytes(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '(absent)');
}

describeConnectionRegistryContract('JSON file', async () => {
  const path = freshFile();
  return {
    registry: createFileConnectionRegistry({ path }),
    snapshot: () => fileBytes(path),
    async storeRaw(item) {
      const document = JSON.parse(await readFile(path, 'utf8')) as { connections: unknown[] };
      document.connections.push(item);
      await writeFile(path, JSON.stringify(document));
    },
  };
});

describeConnectionRegistryContract('DynamoDB (dynalite)', async () => {
  const tableName = await servers.connectionTable();
  return {
    registry: createDynamoDbConnectionRegistry({ client: servers.dynamoDb, tableName }),
    async snapshot() {
      const { Items = [] } = await servers.dynamoDb.send(
        new ScanCommand({ TableName: tableName, ConsistentRead: true }),
      );
      return JSON.stringify(Items.sort((a, b) => String(a.name?.S).localeCompare(String(b.name?.S))));
    },
    async storeRaw(item) {
      await servers.dynamoDb.send(new PutCommand({ TableName: tableName, Item: item }));
    },
  };
});

describe('file registry', () => {
  it('names every malformed entry by name or index, and every duplicate', async () => {
    const path = freshFile();
    await createFileConnectionRegistry({ path }).add(entry('acme'));
    const document = {
      connections: [
        { name: 'acme', variant: 'cz', credentialsSecret: 'env:ACME_CREDENTIALS' },
        { variant: 'cz', credentialsSecret: 'env:B' },
        { name: 'acme', variant: 'cz', credentialsSecret: 'env:ACME_CREDENTIALS' },
        { name: 'gamma', variant: 'xx', credentialsSecret: 'env:GAMMA_CREDENTIALS' },
      ],
    };
    await writeFile(path, JSON.stringify(document));
    const error = await createFileConnectionRegistry({ path })
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionsFileError);
    const message = (error as Error).message;
    expect(message).toContain(path);
    expect(message).toMatch(/connection 'connections\[1\]': name: /);
    expect(message).toMatch(/connection 'acme': name: duplicate of connections\[0\]/);
    expect(message).toMatch(/connection 'gamma' \(connections\[3\]\): variant: expected one of sk, cz/);
  });

  it('refuses a file that is not JSON or has no list, without quoting it', async () => {
    const path = freshFile();
    const registry = createFileConnectionRegistry({ path });
    await registry.add(entry('acme'));
    await writeFile(path, '{"connections": [ {"apiKey": "do-not-print-1"} ');
    const error = await registry.add(entry('beta')).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${path}: is not valid JSON`);
    expect(await fileBytes(path)).toBe('{"connections": [ {"apiKey": "do-not-print-1"} ');
    await writeFile(path, '{"connections": {}}');
    await expect(registry.list()).rejects.toThrow(/connections: expected a list of connection entries/);
  });

  it('keeps other entries as written and other keys of the document', async () => {
    const path = freshFile(true);
    const handWritten = { name: 'acme', variant: 'cz', credentialsSecret: 'env:ACME_CREDENTIALS' };
    await writeFile(
      path,
      JSON.stringify({ $schema: './connections.schema.json', connections: [handWritten] }),
    );
    const registry = createFileConnectionRegistry({ path });
    await registry.add(entry('beta'));
    await registry.setPaused('beta', true);
    const document = JSON.parse(await readFile(path, 'utf8'));
    expect(document.$schema).toBe('./connections.schema.json');
    expect(document.connections[0]).toEqual(handWritten);
    expect(document.connections[1]).toEqual({ ...entry('beta'), paused: true });
  });

  it('leaves no temporary or lock file behind, and writes nothing when nothing changes', async () => {
    const path = freshFile();
    const registry = createFileConnectionRegistry({ path });
    await registry.add(entry('acme'));
    await registry.add(entry('beta')).then(() => registry.remove('beta'));
    await expect(registry.add(entry('acme'))).rejects.toThrow();
    const before = await fileBytes(path);
    await registry.setPaused('acme', false);
    expect(await fileBytes(path)).toBe(before);
    expect(await readdir(join(path, '..'))).toEqual(['connections.json']);
  });

  it('waits for a live lock holder, gives up after the timeout, and takes over a dead one', async () => {
    const path = freshFile();
    const registry = createFileConnectionRegistry({ path, lockTimeoutMs: 200 });
    await registry.add(entry('acme'));
    let release: () => void = () => {};
    const held = withFileLock(path, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    const error = await registry.add(entry('beta')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileLockTimeoutError);
    expect((error as Error).message).toContain(`process ${process.pid}`);
    const waiting = createFileConnectionRegistry({ path, lockTimeoutMs: 5000 }).add(entry('beta'));
    setTimeout(release, 50);
    await Promise.all([held, waiting]);
    // A lock left by a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max).
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: 4_194_305, host: (await import('node:os')).hostname(), token: 't' }),
    );
    await registry.add(entry('gamma'));
    expect((await registry.list()).map((e) => e.name)).toEqual(['acme', 'beta', 'gamma']);
  });
});
