/**
 * Finding 10: the local data-directory lock could be held twice (6 of 200 races; a stale
 * takeover overlapped), and the data was world-readable. Now the lock appears whole, a stale one
 * is taken over by compare-and-swap under a takeover marker, and the directory is 0700.
 *
 * The races run in this process over the real file system, with simulated owners (their own pids,
 * all alive), so 1,000 rounds stay cheap: each round two or three acquirers start together, half the
 * rounds on a stale lock left by a dead process; exactly one may win.
 */
import { lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireDataDirLock,
  DataDirLockedError,
  LOCK_FILE,
  type LockIdentity,
} from '#functions/adapters/local/data-dir-lock.js';
import { startLocalStores } from '#functions/local/local-stores.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const ROUNDS = 1000;
const DEAD_PID = 999_999_001;

describe('finding 10: the data directory', () => {
  it(`the lock is held once in ${ROUNDS} races, stale takeovers included`, async () => {
    const alive = new Set([700_001, 700_002, 700_003]);
    const as = (pid: number): LockIdentity => ({ pid, host: hostname(), isRunning: (p) => alive.has(p) });
    let doubles = 0;
    let takeovers = 0;
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        await writeFile(
          join(dir, LOCK_FILE),
          JSON.stringify({
            pid: DEAD_PID,
            host: hostname(),
            since: '2026-01-01T00:00:00Z',
            token: `t${round}`,
          }),
        );
      }
      const contenders = [...alive].slice(0, 2 + (round % 2));
      const results = await Promise.allSettled(
        contenders.map((pid) => acquireDataDirLock(dir, 'run', as(pid))),
      );
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DataDirLockedError);
      }
      if (won.length !== 1) doubles++;
      takeovers += won.filter((l) => l.recovered).length;
      for (const lock of won) await lock.release();
    }
    console.info(
      `security: data-dir lock races ${ROUNDS}, held twice ${doubles}, stale takeovers ${takeovers}`,
    );
    expect(doubles).toBe(0);
    // A stale round may be won by a contender that did not take the stale lock over itself.
    expect(takeovers).toBeGreaterThan(0);
    expect(takeovers).toBeLessThanOrEqual(ROUNDS / 2);
  }, 120_000);

  it('the stores and journal files are 0600 in 0700 directories, old files included', async () => {
    const data = join(dir, 'stores');
    await mkdir(join(data, 'bus'), { recursive: true, mode: 0o755 });
    await writeFile(join(data, 'bus', 'journal-old.jsonl'), '{}\n', { mode: 0o644 });
    const stores = await startLocalStores(data, 'run');
    try {
      await stores.checkpoints.put('k', { at: 1 }, undefined);
      const open: string[] = [];
      const walk = async (path: string): Promise<void> => {
        const info = await lstat(path);
        if (info.isDirectory()) {
          if ((info.mode & 0o077) !== 0) open.push(`${path} ${(info.mode & 0o777).toString(8)}`);
          for (const name of await readdir(path)) await walk(join(path, name));
        } else if ((info.mode & 0o077) !== 0) open.push(`${path} ${(info.mode & 0o777).toString(8)}`);
      };
      await walk(data);
      expect(open).toEqual([]);
    } finally {
      await stores.close();
    }
  });

  it('the data directory is 0700', async () => {
    const lock = await acquireDataDirLock(join(dir, 'data'), 'run');
    try {
      expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, 'data', LOCK_FILE))).mode & 0o777).toBe(0o600);
    } finally {
      await lock.release();
    }
  });
});
