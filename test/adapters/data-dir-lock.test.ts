import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireDataDirLock,
  DataDirLockedError,
  inspectDataDirLock,
  LOCK_FILE,
  UNREADABLE_GRACE_MS,
} from '#functions/adapters/local/data-dir-lock.js';
import { cli } from '../local/cli-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (so no process runs with it, barring reuse). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('data directory lock', () => {
  it('is exclusive: a second acquire names the directory and the owner; release frees it', async () => {
    const lock = await acquireDataDirLock(dir, 'run');
    expect(lock.recovered).toBeUndefined();
    const owner = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, command: 'run' });
    expect(await inspectDataDirLock(dir)).toMatchObject({ pid: process.pid });

    const second = await acquireDataDirLock(dir, 'run').catch((e: unknown) => e);
    expect(second).toBeInstanceOf(DataDirLockedError);
    expect((second as Error).message).toContain(dir);
    expect((second as Error).message).toContain(`process ${process.pid} (run)`);

    await lock.release();
    await expect(stat(join(dir, LOCK_FILE))).rejects.toThrow();
    expect(await inspectDataDirLock(dir)).toBeUndefined();
    const again = await acquireDataDirLock(dir);
    await again.release();
  });

  it('refuses a lock held by another live process', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(
        join(dir, LOCK_FILE),
        JSON.stringify({ pid: child.pid, host: hostname(), since: '2026-01-01T00:00:00Z', command: 'run' }),
      );
      const error = await acquireDataDirLock(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as DataDirLockedError).owner?.pid).toBe(child.pid);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a stale lock (its process is gone) and reports whose it was', async () => {
    const pid = deadPid();
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), since: '2026-01-01T00:00:00Z', command: 'run' }),
    );
    expect(await inspectDataDirLock(dir)).toBeUndefined();
    const lock = await acquireDataDirLock(dir);
    expect(lock.recovered).toMatchObject({ pid, since: '2026-01-01T00:00:00Z' });
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over an unreadable lock file only after its grace period', async () => {
    await writeFile(join(dir, LOCK_FILE), '{"pid":');
    await expect(acquireDataDirLock(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    const past = new Date(Date.now() - UNREADABLE_GRACE_MS - 1000);
    await utimes(join(dir, LOCK_FILE), past, past);
    const lock = await acquireDataDirLock(dir);
    expect(lock.recovered).toBeDefined();
    await lock.release();
  });

  it('a command on a data directory in use exits 1 with a message naming it, and changes nothing', async () => {
    const lock = await acquireDataDirLock(dir, 'run');
    try {
      const run = await cli(['sync', '--once', '--data-dir', dir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `error: the data directory ${dir} is in use by process ${process.pid} (run) on ${hostname()} since ${
          JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).since
        }; stop that process first, or use another --data-dir\n`,
      );
      await expect(stat(join(dir, 'dynamodb'))).rejects.toThrow();
    } finally {
      await lock.release();
    }
  });
});
