/**
 * The change detector against the sandbox through the real client, with the sandbox's faults on:
 * edits while pages are read, second-precision timestamps, a skewed service clock, late
 * visibility, random 429s, short-lived OAuth tokens, and crashes between publish and checkpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountingClient, createAccountingClient } from '#functions/accounting/client.js';
import type { CollectionName } from '#functions/accounting/collections.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { pollAll } from '#functions/core/sync/poll-all.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { crashingCheckpoints, RecordingPublisher } from './harness.js';

const COLLECTIONS: CollectionName[] = ['ReceivedOrders', 'IssuedInvoices', 'BusinessPartners'];
const LOOKBACK = 5 * 60_000;

describe('change detector against the sandbox with faults', () => {
  const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
  let sandbox: Sandbox;
  let client: AccountingClient;

  beforeAll(async () => {
    sandbox = await startSandbox({
      clock,
      seed: 7,
      sizes: { documents: 500, partners: 60, perCollection: { ReceivedOrders: 250, IssuedInvoices: 150 } },
      maxPageSize: 50,
      timestampPrecision: 's',
      tokenLifetimeSeconds: 120,
    });
    client = createAccountingClient(
      parseAccountingConfig({
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        clientId: sandbox.credentials.clientId,
        clientSecret: sandbox.credentials.clientSecret,
        maxAttempts: 6,
        retryBaseDelayMs: 100,
        retryAfterMaxMs: 10_000,
      }),
      { clock, logger: silentLogger },
    );
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });

  it('publishes the latest version of every record with duplicates only from crashes', async () => {
    sandbox.setFaults({
      editsWhilePaging: { rate: 0.5, count: 2 },
      clockSkewMs: -7 * 60_000,
      lateVisibilityMs: 45_000,
      random429Rate: 0.1,
      retryAfterSeconds: 1,
    });
    const publisher = new RecordingPublisher();
    const { store: checkpoints, control } = crashingCheckpoints(createMemoryCheckpointStore());
    const options = pollOptionsSchema.parse({
      connection: 'sandbox',
      lookbackMs: LOOKBACK,
      pageSize: 50,
      reconcileIntervalMs: 0,
    });
    // Slow paging: the service's clock moves 2 minutes per page read, so one window spans more
    // than the lookback and the sandbox's edits-while-paging land far behind the keyset cursor.
    const api: typeof client = Object.create(client);
    api.listPages = async function* (name, opts) {
      for await (const page of client.listPages(name, opts)) {
        yield page;
        clock.advance(2 * 60_000);
      }
    } as typeof client.listPages;
    const deps = {
      api,
      checkpoints,
      publisher,
      clock,
      logger: silentLogger,
      objectStore: createMemoryObjectStore(),
    };
    const ids = (name: string) => sandbox.state.collection(name).entries.map((e) => e.id);
    let crashes = 0;
    for (let cycle = 0; cycle < 12; cycle++) {
      for (const name of COLLECTIONS) {
        const all = ids(name);
        for (let i = 0; i < 8; i++) {
          const id = all[(cycle * 31 + i * 17) % all.length]!;
          sandbox.state.update(name, id, (r) => {
            r.Note = `cycle ${cycle} edit ${i}`;
          });
          clock.advance(3_000); // spread commits, so late ones are overtaken by visible ones
        }
      }
      if (cycle % 4 === 1) {
        control.crashOnPut = control.puts + 1; // dies after publishing a page, before its checkpoint
        crashes++;
      }
      clock.advance(20_000);
      const summary = await pollAll(deps, options, COLLECTIONS, 2);
      expect(
        summary.collections.filter((c) => c.status === 'failed' && c.error?.message.includes('died')).length,
      ).toBeLessThanOrEqual(1);
      clock.advance(40_000);
    }
    // Quiet period: faults off, late commits land, then catch up.
    sandbox.setFaults({ editsWhilePaging: null, random429Rate: 0 });
    clock.advance(2 * 60_000);
    for (let i = 0; i < 3; i++) {
      await pollAll(deps, options, COLLECTIONS, 2);
      clock.advance(60_000);
    }

    const versions = publisher.versions();
    const recordTypes: Record<string, string> = {
      ReceivedOrders: 'ReceivedOrder',
      IssuedInvoices: 'IssuedInvoice',
      BusinessPartners: 'BusinessPartner',
    };
    const missing: string[] = [];
    let records = 0;
    for (const name of COLLECTIONS) {
      for await (const item of client.listItems(name)) {
        records++;
        const key = `${item.Id}@${item.ModificationInfo?.ModifiedDate}`;
        if (!versions.has(key)) missing.push(`${recordTypes[name]} ${key}`);
      }
    }
    const duplicates = [...versions.values()].filter((n) => n > 1).length;
    console.info(
      JSON.stringify({
        records,
        events: publisher.events.length,
        duplicates,
        crashes,
        stats: client.stats(),
      }),
    );
    expect(missing).toEqual([]);
    expect(records).toBeGreaterThan(400);
    // Each crash republishes at most one page (≤ 50 versions) of one collection.
    expect(duplicates).toBeLessThanOrEqual(crashes * 50);
    expect(client.stats().rateLimited).toBeGreaterThan(0);
    expect(client.stats().tokenRequests).toBeGreaterThan(1);
  });
});
