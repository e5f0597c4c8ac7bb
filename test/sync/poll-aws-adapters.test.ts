/**
 * The change detector on the real storage adapters: DynamoDB checkpoints (dynalite, conditional
 * writes) and the S3 claim-check store (s3rver), reading the sandbox through the real client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountingClient, createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { resolveRecord } from '#functions/core/events/claim-check.js';
import { pollCollection } from '#functions/core/sync/poll-collection.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import type { SyncDeps } from '#functions/core/sync/sync-types.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { RecordingPublisher } from './harness.js';

describe('change detector on DynamoDB and S3 adapters', () => {
  const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
  let servers: TestServers;
  let sandbox: Sandbox;
  let client: AccountingClient;

  beforeAll(async () => {
    [servers, sandbox] = await Promise.all([
      startTestServers(),
      startSandbox({
        clock,
        seed: 3,
        sizes: { documents: 150, partners: 5, perCollection: { ReceivedOrders: 120 } },
      }),
    ]);
    client = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey }),
      { clock, logger: silentLogger },
    );
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    await servers?.close();
  });

  async function deps(): Promise<SyncDeps & { publisher: RecordingPublisher }> {
    const [table, bucket] = await Promise.all([servers.checkpointTable(), servers.bucket()]);
    return {
      api: client,
      checkpoints: createDynamoDbCheckpointStore({ client: servers.dynamoDb, tableName: table }),
      publisher: new RecordingPublisher(),
      clock,
      logger: silentLogger,
      objectStore: createS3ObjectStore({ client: servers.s3, bucket }),
    };
  }

  it('backfills, claim-checks large records into S3, reconciles deletions and idles at one request', async () => {
    const d = await deps();
    const options = pollOptionsSchema.parse({ connection: 'acme', pageSize: 50, maxEventBytes: 3_000 });
    const first = await pollCollection(d, options, 'ReceivedOrders');
    expect(first.status).toBe('ok');
    expect(first.published).toBe(120);
    expect(first.reconciled).toBe(true);
    expect(first.claimChecked).toBeGreaterThan(0);
    for (const detail of d.publisher.details().filter((x) => x.recordRef)) {
      const record = await resolveRecord(detail as never, d.objectStore!);
      expect((record as { Id: string }).Id).toBe(detail.id);
    }
    const victim = sandbox.state.collection('ReceivedOrders').entries[5]!.id;
    sandbox.state.remove('ReceivedOrders', victim);
    clock.advance(25 * 3_600_000);
    const second = await pollCollection(d, options, 'ReceivedOrders');
    expect(second.events['ReceivedOrder.Deleted']).toBe(1);
    expect(
      d.publisher
        .details()
        .filter((x) => x.change === 'Deleted')
        .map((x) => x.id),
    ).toEqual([victim]);
    clock.advance(60_000);
    const idle = await pollCollection(d, options, 'ReceivedOrders');
    expect(idle.requests).toBe(1);
    expect(idle.published).toBe(0);
  });

  it('lets only one of two racing pollers advance a collection', async () => {
    const d = await deps();
    const options = pollOptionsSchema.parse({ connection: 'race', pageSize: 50, reconcileIntervalMs: 0 });
    const results = await Promise.all([
      pollCollection(d, options, 'ReceivedOrders'),
      pollCollection(d, options, 'ReceivedOrders'),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['conflict', 'ok']);
    const stored = await d.checkpoints.get('race#ReceivedOrders');
    expect(stored?.version).toBeGreaterThan(0);
  });
});
