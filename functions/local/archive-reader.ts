/**
 * Read access to the local archive for `archive ls|get`: its own s3rver over the data directory's
 * `s3/` folder, on a Unix domain socket of its own in the owner-only `sockets/` (no TCP port), nothing else. It takes no lock and starts no DynamoDB, so it works while `run` keeps
 * the data directory, and it creates nothing: a missing directory is an error, not a new archive.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { createS3ObjectStore } from '../adapters/aws/s3-object-store.js';
import { createS3rverClient, privateSocketDir, startS3rver } from '../adapters/local/embedded-servers.js';
import type { ObjectStore } from '../core/ports.js';
import { LOCAL_RESOURCES } from './local-stores.js';

/** The data directory, or its archive, does not exist. */
export class NoArchiveError extends Error {
  override readonly name = 'NoArchiveError';
}

export interface ArchiveReader {
  archive: ObjectStore;
  /** False when the data directory exists but nothing was archived yet (no bucket). */
  exists: boolean;
  close(): Promise<void>;
}

export async function openArchiveReader(dataDir: string): Promise<ArchiveReader> {
  const dir = resolve(dataDir);
  if (!existsSync(dir)) {
    throw new NoArchiveError(`no data directory at ${dir} (the runtime creates it on its first start)`);
  }
  const s3Directory = join(dir, 's3');
  if (!existsSync(s3Directory)) {
    throw new NoArchiveError(`no archive in ${dir} (the runtime creates it on its first start)`);
  }
  const sockets = await privateSocketDir(dir);
  const socketPath = join(sockets.dir, `archive-${process.pid}-${randomBytes(4).toString('hex')}.sock`);
  const { server, endpoint } = await startS3rver(s3Directory, socketPath);
  const client = createS3rverClient(endpoint);
  const close = async () => {
    client.destroy();
    await server.close();
    await rm(sockets.temporary ? sockets.dir : socketPath, { recursive: true, force: true });
  };
  let exists = true;
  try {
    await client.send(new HeadBucketCommand({ Bucket: LOCAL_RESOURCES.archiveBucket }));
  } catch {
    exists = false;
  }
  return {
    archive: createS3ObjectStore({ client, bucket: LOCAL_RESOURCES.archiveBucket, listApiVersion: 1 }),
    exists,
    close,
  };
}
