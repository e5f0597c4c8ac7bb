/**
 * An exclusive lock on a data directory of the local runtime: one process at a time owns the
 * embedded stores and the bus journal under it. The lock is a file (`<dir>/lock`) created with
 * `O_EXCL`, holding the owner's pid, host and start time. A lock whose process no longer runs on
 * this host (left by a kill -9 or a power loss) is stale: it is taken over, and the caller is told
 * so it can say it plainly.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { prepareDataDir } from './data-dir.js';
import { createLockFile, type LockFileState, readLockFile, removeStaleLock } from './lock-file.js';

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

/** An unreadable lock file younger than this is being written or moved: in use, not stale. */
export const UNREADABLE_GRACE_MS = 5_000;
/** Who acquires: this process, unless a test simulates others (each with its own pid). */
export interface LockIdentity {
  pid: number;
  host: string;
  isRunning?: (pid: number) => boolean;
}

/** The lock file's text, age and owner (when it parses as one). */
async function readLockState(
  path: string,
): Promise<(LockFileState & { owner: LockOwner | undefined }) | undefined> {
  const state = await readLockFile(path);
  if (!state) return undefined;
  let owner: LockOwner | undefined;
  try {
    const parsed = JSON.parse(state.raw) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      owner = { ...parsed, pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '') };
    }
  } catch {
    owner = undefined;
  }
  return { ...state, owner };
}

/**
 * Takes the lock on `dataDir` (created if missing, mode 0700). Throws `DataDirLockedError` naming
 * the directory and its owner when a live process holds it; takes over a stale one.
 *
 * The lock file appears whole (written aside, then linked into place). A stale lock is taken over
 * only under a takeover marker (`lock.takeover`, created the same way), by compare-and-swap: the
 * lock is moved aside only while its text is still the stale text judged — so two processes that
 * both find the same stale lock never both take it. A marker left by a crash is removed after
 * `TAKEOVER_GRACE_MS`; an unreadable lock is taken over only after `UNREADABLE_GRACE_MS`.
 */
export async function acquireDataDirLock(
  dataDir: string,
  command?: string,
  identity: LockIdentity = { pid: process.pid, host: hostname() },
): Promise<DataDirLock> {
  const dir = await prepareDataDir(dataDir);
  const path = join(dir, LOCK_FILE);
  const token = randomUUID();
  const self = identity.pid === process.pid && identity.host === hostname();
  const running = identity.isRunning ?? isRunning;
  const live = (owner: LockOwner) => {
    if (owner.host !== identity.host) return true; // another machine (a shared disk): never taken over
    if (self && owner.pid === process.pid) return heldHere.has(dir);
    return owner.pid === identity.pid || running(owner.pid);
  };
  const me: LockOwner & { token: string } = {
    pid: identity.pid,
    host: identity.host,
    since: new Date().toISOString(),
    ...(command ? { command } : {}),
    token,
  };
  let recovered: LockOwner | undefined;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (self && heldHere.has(dir)) throw new DataDirLockedError(dir, await readOwner(path));
    if (await createLockFile(path, `${JSON.stringify(me)}\n`, token)) {
      if (self) heldHere.set(dir, token);
      return { dataDir: dir, recovered, release: () => release(dir, path, token, self) };
    }
    const seen = await readLockState(path);
    if (!seen) continue; // released meanwhile
    if (seen.owner && live(seen.owner)) throw new DataDirLockedError(dir, seen.owner);
    if (!seen.owner && seen.ageMs < UNREADABLE_GRACE_MS) throw new DataDirLockedError(dir, undefined);
    // Stale: taken over by compare-and-swap, one takeover at a time.
    if (await removeStaleLock(path, seen, token)) {
      recovered = seen.owner ?? { pid: 0, host: 'unknown', since: 'unknown' };
    }
  }
  throw new DataDirLockedError(dir, await readOwner(path));
}

async function release(dir: string, path: string, token: string, self: boolean): Promise<void> {
  if (self) {
    if (heldHere.get(dir) !== token) return;
    heldHere.delete(dir);
  }
  const current = (await readOwner(path)) as (LockOwner & { token?: string }) | undefined;
  if (current?.token === token) await rm(path, { force: true });
}
