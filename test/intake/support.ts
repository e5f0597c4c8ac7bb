/** Test bed of the order intake: sandbox + dynalite + the local intake endpoint on an ephemeral port. */
import { afterAll, beforeAll } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { type LocalIntake, startLocalIntake } from '#functions/local/local-intake.js';
import { registryOfOne } from '#functions/wiring/connection-clients.js';
import {
  type RecordingLogger,
  type RecordingPublisher,
  recordingLogger,
  recordingPublisher,
  type SandboxClient,
  startSandboxClient,
} from '../actions/support.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { ACME } from './one-connection.js';

export const SECRETS = {
  INTAKE_SHOPIFY_SECRET: 'shpss_test_secret_0123456789abcdef',
  INTAKE_WOOCOMMERCE_SECRET: 'wc-test-secret-0123456789abcdef',
  INTAKE_GENERIC_SECRET: `whsec_${Buffer.from('generic-test-secret-0123456789ab').toString('base64')}`,
};

export interface IntakeBed {
  servers: TestServers;
  sb: SandboxClient;
}

export function useIntakeBed(): IntakeBed {
  const bed = {} as IntakeBed;
  beforeAll(async () => {
    [bed.servers, bed.sb] = await Promise.all([
      startTestServers(),
      startSandboxClient({ sizes: { documents: 20, partners: 6, perCollection: {} } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([bed.servers?.close(), bed.sb?.close()]);
  });
  return bed;
}

export interface StartedIntake {
  intake: LocalIntake;
  publisher: RecordingPublisher;
  logger: RecordingLogger;
}

export async function startIntake(
  bed: IntakeBed,
  options: {
    api?: AccountingApi;
    env?: Record<string, string>;
    tableName?: string;
    /** Where large orders are claim-checked: a fresh bucket of the embedded S3 unless `false`. */
    orderStore?: false;
  } = {},
): Promise<StartedIntake> {
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const tableName = options.tableName ?? (await bed.servers.idempotencyTable());
  const orderStore =
    options.orderStore === false
      ? undefined
      : createS3ObjectStore({ client: bed.servers.s3, bucket: await bed.servers.bucket('intake-orders') });
  const intake = await startLocalIntake({
    port: 0,
    connections: registryOfOne(ACME, options.api ?? bed.sb.client),
    ...(orderStore ? { orderStore } : {}),
    idempotency: { client: bed.servers.dynamoDb, tableName },
    publisher,
    env: { ...SECRETS, ...(options.env ?? {}) },
    connection: ACME,
    clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))) },
    logger,
  });
  return { intake, publisher, logger };
}

/** Received orders of the sandbox whose internal note carries `marker`. */
export function ordersWithMarker(bed: IntakeBed, marker: string): ApiRecord[] {
  const { items } = bed.sb.sandbox.state.list('ReceivedOrders', { pageSize: 100_000, pageNumber: 1 });
  return items.filter((o) => typeof o.InternalNote === 'string' && o.InternalNote.includes(marker));
}

export function receivedOrderCount(bed: IntakeBed): number {
  return bed.sb.sandbox.state.list('ReceivedOrders', { pageSize: 1, pageNumber: 1 }).total;
}
