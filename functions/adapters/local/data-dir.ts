/**
 * The data directory made ready before anything is written in it: created one level at a time
 * (Node's recursive `mkdir` never returns for a path under `/proc`), and refused in one sentence
 * when it is a file, belongs to another user or cannot be written.
 */
import { constants } from 'node:fs';
import { access, chmod, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Why the data directory cannot be used; the message names the directory and what to do. */
export class DataDirUnusableError extends Error {
  override readonly name = 'DataDirUnusableError';
  constructor(
    readonly dataDir: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`--data-dir ${dataDir}: ${reason}; choose another with --data-dir`, options);
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** The path's status, or undefined when nothing is there. */
async function statOf(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    if (codeOf(error) === 'ENOTDIR') return 'not-a-directory' as const;
    throw error;
  }
}

function refusal(dir: string, path: string, error: unknown): DataDirUnusableError {
  const code = codeOf(error);
  const where = path === dir ? 'it' : path;
  const reason =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? `cannot create ${where} (${code}: not writable by this user)`
      : code === 'ENOTDIR' || code === 'EEXIST'
        ? `${where} is a file, not a directory`
        : `cannot create ${where} (${code ?? String(error)})`;
  return new DataDirUnusableError(dir, reason, { cause: error });
}

/** Checks an existing data directory: a directory, of this user, writable. */
async function checkExisting(dir: string, info: Awaited<ReturnType<typeof stat>>): Promise<void> {
  if (!info.isDirectory()) throw new DataDirUnusableError(dir, 'is a file, not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new DataDirUnusableError(
      dir,
      `belongs to another user (uid ${info.uid}, this process runs as uid ${uid})`,
    );
  }
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new DataDirUnusableError(dir, `is not writable by this user (${codeOf(error)})`, { cause: error });
  }
}

/**
 * Creates `dataDir` (and its missing parents, mode 0700) or checks the one there. Throws
 * `DataDirUnusableError` for a file, another user's directory, or one that cannot be made.
 */
export async function prepareDataDir(dataDir: string): Promise<string> {
  const dir = resolve(dataDir);
  const missing: string[] = [];
  let path = dir;
  for (;;) {
    const info = await statOf(path);
    // Under a file (ENOTDIR): walking up finds that file and names it.
    if (info && info !== 'not-a-directory') {
      if (path === dir) {
        await checkExisting(dir, info);
        await chmod(dir, 0o700);
        return dir;
      }
      if (!info.isDirectory()) throw new DataDirUnusableError(dir, `${path} is a file, not a directory`);
      break;
    }
    missing.unshift(path);
    const parent = dirname(path);
    if (parent === path) break;
    path = parent;
  }
  for (const level of missing) {
    try {
      await mkdir(level, { mode: 0o700 });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw refusal(dir, level, error);
      const now = await statOf(level);
      if (!now || now === 'not-a-directory' || !now.isDirectory()) throw refusal(dir, level, error);
    }
  }
  return dir;
}
