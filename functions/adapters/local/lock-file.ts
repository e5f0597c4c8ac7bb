/**
 * The two steps both local locks (the data directory's, the registry file's) are built on:
 * a lock file that appears whole, and a takeover of a stale one that two processes never both win.
 */
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';

/** A takeover marker older than this was left by a crash during a takeover: removed. */
export const TAKEOVER_GRACE_MS = 30_000;

export interface LockFileState {
  /** The file's text as read (compared whole: the compare-and-swap of a takeover). */
  raw: string;
  ageMs: number;
}

/** The lock file's text and age, or undefined when there is none. */
export async function readLockFile(path: string): Promise<LockFileState | undefined> {
  try {
    const [raw, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { raw, ageMs: Date.now() - info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Creates `path` holding `content` (mode 0600), or returns false when it exists. The content is
 * written to a file of our own first and linked into place: no reader sees it empty or half written.
 */
export async function createLockFile(path: string, content: string, token: string): Promise<boolean> {
  const temp = `${path}.${token}.tmp`;
  await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Removes the stale lock at `path` if its text is still `seen` (compare-and-swap), under a takeover
 * marker (`<path>.takeover`) so that one takeover runs at a time. Returns `true` when it removed it,
 * `false` when it did not (another takeover is under way, or the lock changed): the caller tries
 * to create the lock again either way.
 */
export async function removeStaleLock(path: string, seen: LockFileState, token: string): Promise<boolean> {
  const marker = `${path}.takeover`;
  if (!(await createLockFile(marker, `${token}\n`, token))) {
    const held = await readLockFile(marker);
    if (held && held.ageMs > TAKEOVER_GRACE_MS) await rm(marker, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.floor(Math.random() * 5)));
    return false;
  }
  try {
    const again = await readLockFile(path);
    if (!again || again.raw !== seen.raw) return false;
    const aside = `${path}.stale-${token}`;
    await rename(path, aside);
    await rm(aside, { force: true });
    return true;
  } finally {
    await rm(marker, { force: true });
  }
}
