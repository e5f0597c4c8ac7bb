/**
 * The data directory holds invoices and personal data (the bus journal, the DynamoDB and S3
 * stand-ins' files): only its owner may read it. `restrictDataDir` makes what is already there
 * 0700 (directories) and 0600 (files), and sets the process's umask to 077 so everything the
 * embedded servers and the journal write from now on is created that way too.
 */
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const PRIVATE_UMASK = 0o077;

async function restrict(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return; // never follow a link out of the directory
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== 0o700) await chmod(path, 0o700);
    for (const name of await readdir(path)) await restrict(join(path, name));
  } else if ((info.mode & 0o077) !== 0) {
    await chmod(path, info.mode & 0o700);
  }
}

export async function restrictDataDir(dir: string): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await restrict(dir);
}
