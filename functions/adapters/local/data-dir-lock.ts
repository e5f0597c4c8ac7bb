/**
 * An exclusive lock on a data directory of the local runtime: one process at a time owns the
 * embedded stores and the bus journal under it. The lock is a file (`<dir>/lock`) created with
 * `O_EXCL`, holding the owner's pid, host and start time. A lock whose process no longer runs on
 * this host (left by a kill -9 or a power loss) is stale: it is taken over, and the caller is told
 * so it can say it plainly.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** Name of the lock file inside the data directory. */
export const LOCK_FILE = 'lock';

export interface LockOwner {
  pid: number;
  host: string;
  /** When the owner took the lock (ISO 8601). */
  since: string;
  /** What holds it, e.g. `run`. */
  command?: string;
}

/** Thrown when another running process holds the lock. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner | undefined,
  ) {
    const by = owner
      ? ` by process ${owner.pid}${owner.command ? ` (${owner.command})` : ''} on ${owner.host} since ${owner.since}`
      : '';
    super(`the data directory ${dataDir} is in use${by}; stop that process first, or use another --data-dir`);
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  /** The owner of a stale lock that was taken over, if there was one. */
  readonly recovered: LockOwner | undefined;
  /** Removes the lock file (only if it is still ours). Idempotent. */
  release(): Promise<void>;
}

/** Locks held by this process, by directory: a second acquire in the same process is refused too. */
const heldHere = new Map<string, string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? ''), ...parsed };
  } catch {
    return undefined;
  }
}

/** The owner of the lock on `dataDir` if a live process holds it; `undefined` when free or stale. */
export async function inspectDataDirLock(dataDir: string): Promise<LockOwner | undefined> {
  const dir = resolve(dataDir);
  const owner = await readOwner(join(dir, LOCK_FILE));
  if (!owner) return heldHere.has(dir) ? { pid: process.pid, host: hostname(), since: '' } : undefined;
  return isLive(dir, owner) ? owner : undefined;
}

function isLive(dir: string, owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true; // another machine (a shared disk): never taken over
  if (owner.pid === process.pid) return heldHere.has(dir);
  return isRunning(owner.pid);
}

/**
 * Takes the lock on `dataDir` (created if missing). Throws `DataDirLockedError` naming the
 * directory and its owner when a live process holds it; takes over a stale one.
 */
export async function acquireDataDirLock(dataDir: string, command?: string): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const token = randomUUID();
  const me: LockOwner & { token: string } = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    ...(command ? { command } : {}),
    token,
  };
  let recovered: LockOwner | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (heldHere.has(dir)) throw new DataDirLockedError(dir, await readOwner(path));
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      heldHere.set(dir, token);
      return { dataDir: dir, recovered, release: () => release(dir, path, token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(path);
    if (owner && isLive(dir, owner)) throw new DataDirLockedError(dir, owner);
    // Stale (or unreadable: a crash while writing it). Move it aside atomically, then retry.
    recovered = owner ?? { pid: 0, host: 'unknown', since: 'unknown' };
    const aside = `${path}.stale-${token}`;
    await rename(path, aside).catch(() => {});
    await rm(aside, { force: true });
  }
  throw new DataDirLockedError(dir, await readOwner(path));
}

async function release(dir: string, path: string, token: string): Promise<void> {
  if (heldHere.get(dir) !== token) return;
  heldHere.delete(dir);
  const current = (await readOwner(path)) as (LockOwner & { token?: string }) | undefined;
  if (current?.token === token) await rm(path, { force: true });
}
