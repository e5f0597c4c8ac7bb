/**
 * Embedded dynalite + s3rver for tests: in-memory tables, a temporary bucket directory,
 * 127.0.0.1 on ephemeral ports. Typical use:
 *
 *   let servers: EmbeddedServers;
 *   beforeAll(async () => { servers = await startTestServers(); });
 *   afterAll(() => servers.close());
 *   const table = await servers.checkpointTable();   // fresh, uniquely named
 */
import { randomUUID } from 'node:crypto';
import {
  createBucket,
  createCheckpointTable,
  createConnectionRegistryTable,
  createIdempotencyTable,
  type EmbeddedServers,
  startEmbeddedServers,
} from '#functions/adapters/local/embedded-servers.js';

export {
  createBucket,
  createCheckpointTable,
  createDynaliteClient,
  createIdempotencyTable,
  createS3rverClient,
  DYNALITE_CREDENTIALS,
  EMBEDDED_REGION,
  type EmbeddedServers,
  S3RVER_CREDENTIALS,
  startEmbeddedServers,
} from '#functions/adapters/local/embedded-servers.js';

export interface TestServers extends EmbeddedServers {
  /** Creates a fresh checkpoint table (`pk` key) and returns its name. */
  checkpointTable(prefix?: string): Promise<string>;
  /** Creates a fresh idempotency table (`id` key, as Powertools expects) and returns its name. */
  idempotencyTable(prefix?: string): Promise<string>;
  /** Creates a fresh connection registry table (`name` key) and returns its name. */
  connectionTable(prefix?: string): Promise<string>;
  /** Creates a fresh bucket and returns its name. */
  bucket(prefix?: string): Promise<string>;
}

/** A short unique suffix valid in table and bucket names. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Starts both servers with throwaway storage; `close()` removes it. */
export async function startTestServers(): Promise<TestServers> {
  const servers = await startEmbeddedServers();
  return {
    ...servers,
    async checkpointTable(prefix = 'checkpoints') {
      const name = uniqueName(prefix);
      await createCheckpointTable(servers.dynamoDb, name);
      return name;
    },
    async idempotencyTable(prefix = 'idempotency') {
      const name = uniqueName(prefix);
      await createIdempotencyTable(servers.dynamoDb, name);
      return name;
    },
    async connectionTable(prefix = 'connections') {
      const name = uniqueName(prefix);
      await createConnectionRegistryTable(servers.dynamoDb, name);
      return name;
    },
    async bucket(prefix = 'bucket') {
      const name = uniqueName(prefix);
      await createBucket(servers.s3, name);
      return name;
    },
  };
}
