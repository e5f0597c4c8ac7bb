/**
 * A short-lived exclusive lock beside a file (`<file>.lock`, linked into place whole), for writers
 * that read, change and replace the file: two CLI invocations changing the connection registry at
 * once take turns instead of one losing the other's change. A lock whose process no longer runs on
 * this host (a kill -9 mid-write) is taken over by compare-and-swap, one takeover at a time
 * (`lock-file.ts`): two processes finding the same stale lock never both hold it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { createLockFile, readLockFile, removeStaleLock } from './lock-file.js';

/** Another process held the lock for longer than the caller waits. */
export class FileLockTimeoutError extends Error {
  override readonly name = 'FileLockTimeoutError';
  constructor(
    readonly lockFile: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `${lockFile} is held${ownerPid !== undefined ? ` by process ${ownerPid}` : ''}: another change is under way; try again`,
    );
  }
}

interface Owner {
  pid: number;
  host: string;
  token: string;
}

function parseOwner(text: string): Owner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<Owner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? (owner as Owner) : undefined;
  } catch {
    return undefined;
  }
}

async function readOwner(lockFile: string): Promise<Owner | undefined> {
  const state = await readLockFile(lockFile);
  return state ? parseOwner(state.raw) : undefined;
}

/** Time a holder may take between creating the lock and writing its owner into it. */
const UNWRITTEN_GRACE_MS = 2000;

async function isStale(lockFile: string, owner: Owner | undefined): Promise<boolean> {
  if (owner === undefined) {
    // Unreadable: being written just now, or left by a crash between creating and writing it.
    const info = await stat(lockFile).catch(() => undefined);
    return info !== undefined && Date.now() - info.mtimeMs > UNWRITTEN_GRACE_MS;
  }
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** Runs `fn` holding `<file>.lock` (the directory is created if missing); waits up to `timeoutMs` for another holder to finish. */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const lockFile = `${file}.lock`;
  await mkdir(dirname(file), { recursive: true });
  const me: Owner = { pid: process.pid, host: hostname(), token: randomUUID() };
  const deadline = Date.now() + timeoutMs;
  let waitMs = 5;
  while (!(await createLockFile(lockFile, `${JSON.stringify(me)}\n`, me.token))) {
    const seen = await readLockFile(lockFile);
    if (!seen) continue; // released meanwhile
    const owner = parseOwner(seen.raw);
    // Stale: removed by compare-and-swap on its text, one takeover at a time; then created again.
    if ((await isStale(lockFile, owner)) && (await removeStaleLock(lockFile, seen, me.token))) continue;
    if (Date.now() >= deadline) throw new FileLockTimeoutError(lockFile, owner?.pid);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    waitMs = Math.min(100, waitMs * 2);
  }
  try {
    return await fn();
  } finally {
    if ((await readOwner(lockFile))?.token === me.token) await rm(lockFile, { force: true });
  }
}
