/**
 * The embedded stores of the local runtime: dynalite (checkpoints, idempotency records, action
 * state) and s3rver (the ISDOC archive, claim checks), with their data under one directory so a
 * restart finds its checkpoints and archive again.
 */

import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createS3ObjectStore } from '../adapters/aws/s3-object-store.js';
import { acquireDataDirLock, type LockOwner } from '../adapters/local/data-dir-lock.js';
import {
  createBucket,
  createCheckpointTable,
  createIdempotencyTable,
  type EmbeddedServers,
  privateSocketDir,
  startEmbeddedServers,
} from '../adapters/local/embedded-servers.js';
import { restrictDataDir } from '../adapters/local/private-data-dir.js';
import { removeTornObjects } from '../adapters/local/s3rver-repair.js';
import type { CheckpointStore, ObjectStore } from '../core/ports.js';

/** Resource names inside the embedded servers (fixed: they only exist locally). */
export const LOCAL_RESOURCES = {
  checkpointTable: 'accounting-events-checkpoints',
  idempotencyTable: 'accounting-events-idempotency',
  stateTable: 'accounting-events-state',
  archiveBucket: 'accounting-events-archive',
} as const;

export interface LocalStores {
  servers: EmbeddedServers;
  checkpoints: CheckpointStore;
  archive: ObjectStore;
  dataDir: string;
  /** Objects a killed run left half written (bucket/key), removed at start so their actions write them again. */
  tornObjects: string[];
  /** The owner of a stale lock on the data directory (a process killed before it stopped) that was taken over. */
  recoveredLock: LockOwner | undefined;
  close(): Promise<void>;
}

/**
 * Locks the data directory (`DataDirLockedError` when another process holds it), then starts the
 * embedded servers on it, each on a Unix domain socket in the owner-only `sockets/` (no TCP port:
 * neither server checks who calls it). `close()` stops them and releases the lock.
 */
export async function startLocalStores(dataDir: string, command?: string): Promise<LocalStores> {
  const dir = resolve(dataDir);
  const lock = await acquireDataDirLock(dir, command);
  let servers: EmbeddedServers;
  let tornObjects: string[] = [];
  let sockets: { dir: string; temporary: boolean } | undefined;
  const removeSockets = async () => {
    if (sockets?.temporary) await rm(sockets.dir, { recursive: true, force: true });
  };
  try {
    // Invoices and personal data: the owner's only (0700 directories, 0600 files, umask 077).
    await restrictDataDir(dir);
    // A run killed while the S3 server wrote an object leaves it torn: removed before the server starts.
    if (lock.recovered)
      tornObjects = await removeTornObjects(join(dir, 's3'), Date.parse(lock.recovered.since) || 0);
    sockets = await privateSocketDir(dir);
    servers = await startEmbeddedServers({
      dynamoDbPath: join(dir, 'dynamodb'),
      s3Directory: join(dir, 's3'),
      socketDir: sockets.dir,
    });
  } catch (error) {
    await removeSockets();
    await lock.release();
    throw error;
  }
  const close = async () => {
    await servers.close();
    await removeSockets();
    await lock.release();
  };
  try {
    await createCheckpointTable(servers.dynamoDb, LOCAL_RESOURCES.checkpointTable);
    await createIdempotencyTable(servers.dynamoDb, LOCAL_RESOURCES.idempotencyTable);
    await createCheckpointTable(servers.dynamoDb, LOCAL_RESOURCES.stateTable);
    await createBucket(servers.s3, LOCAL_RESOURCES.archiveBucket);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    servers,
    dataDir: dir,
    recoveredLock: lock.recovered,
    tornObjects,
    checkpoints: createDynamoDbCheckpointStore({
      client: servers.dynamoDb,
      tableName: LOCAL_RESOURCES.checkpointTable,
    }),
    archive: createS3ObjectStore({
      client: servers.s3,
      bucket: LOCAL_RESOURCES.archiveBucket,
      listApiVersion: 1,
    }),
    close,
  };
}
