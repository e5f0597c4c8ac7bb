/**
 * Repairs the embedded S3 server's directory after a kill -9. s3rver stores an object as three
 * files — the content (`<name>._S3rver_object`), its MD5 (`….md5`) and its metadata
 * (`<name>._S3rver_metadata.json`) — written one after the other, without fsync and without a
 * rename. A process killed in between leaves an object s3rver cannot serve (empty or cut metadata,
 * content shorter than its MD5 says): every later HEAD or GET of the key then fails, and an action
 * retries it forever. Such a torn object was never fully written; it is removed so the action that
 * wrote it can write it again. Only files changed since the killed run started are checked.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

const OBJECT = '._S3rver_object';
const MD5 = `${OBJECT}.md5`;
const METADATA = '._S3rver_metadata.json';

async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(path)));
    else found.push(path);
  }
  return found;
}

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  return readFile(path).catch(() => undefined);
}

/** Whether the three files of the object at `base` (path without suffix) are whole and agree. */
async function isWhole(base: string): Promise<boolean> {
  const [content, md5, metadata] = await Promise.all([
    readOrUndefined(`${base}${OBJECT}`),
    readOrUndefined(`${base}${MD5}`),
    readOrUndefined(`${base}${METADATA}`),
  ]);
  if (content === undefined || md5 === undefined || metadata === undefined) return false;
  try {
    JSON.parse(metadata.toString('utf8'));
  } catch {
    return false;
  }
  return createHash('md5').update(content).digest('hex') === md5.toString('utf8').trim();
}

/**
 * Removes the torn objects under `directory` among the files modified at or after `sinceMs`;
 * returns their paths relative to `directory` (bucket/key, without s3rver's suffixes).
 */
export async function removeTornObjects(directory: string, sinceMs: number): Promise<string[]> {
  const bases = new Set<string>();
  for (const path of await walk(directory)) {
    const suffix = [MD5, OBJECT, METADATA].find((s) => path.endsWith(s));
    if (suffix === undefined) continue;
    const changed = await stat(path).then(
      (s) => s.mtimeMs >= sinceMs,
      () => false,
    );
    if (changed) bases.add(path.slice(0, -suffix.length));
  }
  const removed: string[] = [];
  for (const base of [...bases].sort()) {
    if (await isWhole(base)) continue;
    await Promise.all([OBJECT, MD5, METADATA].map((s) => rm(`${base}${s}`, { force: true })));
    removed.push(relative(directory, base));
  }
  return removed;
}
