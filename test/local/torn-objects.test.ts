/** A start after a kill -9 removes the objects the killed run left half written, and keeps the rest. */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '#functions/adapters/local/data-dir-lock.js';
import { LOCAL_RESOURCES, startLocalStores } from '#functions/local/local-stores.js';

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

async function filesOf(dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.startsWith(name)) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

describe('local stores after a kill -9', () => {
  let dir: string;
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('removes torn objects (cut metadata or content) and keeps whole ones', async () => {
    dir = await mkdtemp(join(tmpdir(), 'accounting-events-torn-'));
    const data = join(dir, 'data');
    const body = (n: number) => Buffer.from(`<Invoice>${'x'.repeat(200)}${n}</Invoice>`);
    let stores = await startLocalStores(data);
    for (const n of [1, 2, 3]) {
      await stores.archive.put({
        key: `isdoc/a/FA${n}.isdoc`,
        body: body(n),
        contentType: 'application/xml',
      });
    }
    await stores.close();
    const s3 = join(data, 's3', LOCAL_RESOURCES.archiveBucket);
    // A killed run: one object with empty metadata, one with its content cut short.
    await truncate((await filesOf(s3, 'FA2.isdoc._S3rver_metadata.json'))[0] as string, 0);
    await truncate((await filesOf(s3, 'FA3.isdoc._S3rver_object'))[0] as string, 10);
    await writeFile(
      join(data, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), host: hostname(), since: '2026-01-01T00:00:00Z', command: 'run' }),
    );

    stores = await startLocalStores(data);
    try {
      expect(stores.tornObjects).toEqual([
        `${LOCAL_RESOURCES.archiveBucket}/isdoc/a/FA2.isdoc`,
        `${LOCAL_RESOURCES.archiveBucket}/isdoc/a/FA3.isdoc`,
      ]);
      expect(await stores.archive.head('isdoc/a/FA1.isdoc')).toMatchObject({ size: body(1).length });
      expect(await stores.archive.head('isdoc/a/FA2.isdoc')).toBeUndefined();
      expect(await stores.archive.head('isdoc/a/FA3.isdoc')).toBeUndefined();
      // Written again, as the action's redelivery does.
      await stores.archive.put({
        key: 'isdoc/a/FA2.isdoc',
        body: body(2),
        contentType: 'application/xml',
        ifNoneMatch: true,
      });
      expect(await stores.archive.head('isdoc/a/FA2.isdoc')).toMatchObject({ size: body(2).length });
    } finally {
      await stores.close();
    }
    // A clean stop leaves nothing to repair: the next start removes nothing.
    stores = await startLocalStores(data);
    expect(stores.tornObjects).toEqual([]);
    await stores.close();
    expect(
      (await readFile(join((await filesOf(s3, 'FA1.isdoc._S3rver_object'))[0] as string))).equals(body(1)),
    ).toBe(true);
  });
});
