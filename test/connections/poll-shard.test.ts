/**
 * One shard cycle against the sandbox: connections polled side by side, each with its own client,
 * checkpoints, health and deadline. A refused key makes one connection unhealthy, a connection whose
 * poll throws fails alone, and a connection with a large backfill stops at its budget (its
 * checkpoints carry the rest) while the others of its shard finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { type ConnectionEntry, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { type ConnectionOutcome, pollShard } from '#functions/core/connections/poll-shard.js';
import { CONNECTION_UNHEALTHY } from '#functions/core/events/connection-events.js';
import type { BusEvent } from '#functions/core/ports.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ clock, seed: 5, companies: 2, sizes: { documents: 200, partners: 5 } });
});
afterAll(async () => {
  await sandbox?.close();
});

const entryOf = (name: string): ConnectionEntry =>
  parseConnectionEntry({
    name,
    variant: 'sk',
    baseUrl: sandbox.baseUrl,
    credentialsSecret: `env:${name.toUpperCase()}_CREDENTIALS`,
    collections: ['IssuedInvoices'],
  });

/** Each page read advances the clock by `pageMs`: a backfill takes time, as on the network. */
function slowPages(api: AccountingApi, pageMs: number): AccountingApi {
  return {
    ...api,
    listPages: ((collection: never, options?: never) =>
      (async function* () {
        for await (const page of api.listPages(collection, options)) {
          clock.advance(pageMs);
          yield page;
        }
      })()) as AccountingApi['listPages'],
  };
}

function harness(keys: Record<string, string | Error>, pageSize = 100) {
  const events: BusEvent[] = [];
  const checkpoints = createMemoryCheckpointStore();
  const reported: string[] = [];
  const deps = {
    checkpoints,
    publisher: { publish: async (batch: readonly BusEvent[]) => void events.push(...batch) },
    clock,
    logger: silentLogger,
    apiFor: async (e: ConnectionEntry) => {
      const key = keys[e.name];
      if (key instanceof Error) throw key;
      const client = createAccountingClient(
        parseAccountingConfig({ baseUrl: e.baseUrl, apiKey: key, variant: e.variant, pageSize }),
        { clock, logger: silentLogger },
      );
      return slowPages(client, 1_000);
    },
    onPolled: (o: ConnectionOutcome) => void reported.push(o.connection),
  };
  const settings = (budgetMs: number) => ({
    options: pollOptionsSchema
      .omit({ connection: true, variant: true, source: true })
      // The change detector's pages and budget are counted: the payment detector (on by default) is off.
      .parse({ pageSize, minRemainingMs: 0, lookbackMs: 0, payments: false }),
    concurrency: 2,
    parallel: 10,
    budgetMs,
  });
  return { deps, events, reported, settings, checkpoints };
}

describe('pollShard', () => {
  it("keeps each connection's failure its own", async () => {
    const h = harness({
      good: sandbox.credentialsOf(1).apiKey,
      refused: 'not-the-key',
      broken: new TypeError('a bug in one connection'),
    });
    // The single-company deployment's custom source (a registry entry may not name one).
    const entries = [{ ...entryOf('good'), source: 'shop.good' }, entryOf('refused'), entryOf('broken')];
    const summary = await pollShard(h.deps, entries, h.settings(600_000));
    const by = Object.fromEntries(summary.outcomes.map((o) => [o.connection, o]));
    expect(by.good).toMatchObject({ status: 'polled', healthy: true, failedCollections: 0 });
    expect(by.good?.published).toBeGreaterThan(0);
    expect(by.refused).toMatchObject({ status: 'polled', healthy: false, published: 0 });
    expect(by.broken).toMatchObject({ status: 'failed', error: { name: 'TypeError' } });
    expect(summary.failed).toBe(1);
    expect(h.reported.sort()).toEqual(['broken', 'good', 'refused']);
    // Each connection's events carry its own source: the entry's custom one, or accounting.<name>.
    const sources = new Set(h.events.map((e) => e.source));
    expect(sources).toEqual(new Set(['shop.good', 'accounting.refused']));
    expect(h.events.filter((e) => e.detailType === CONNECTION_UNHEALTHY)).toHaveLength(1);
  });

  it('stops a large backfill at its budget; its checkpoints carry the rest to the next cycle', async () => {
    const h = harness({ large: sandbox.credentialsOf(1).apiKey, small: sandbox.credentialsOf(2).apiKey }, 5);
    const large = entryOf('large');
    const small = parseConnectionEntry({ ...entryOf('small'), collections: ['BusinessPartners'] });
    // The large connection's invoices are many pages of 5, a second each: far more than its 4 s budget.
    const first = await pollShard(h.deps, [large, small], h.settings(4_000));
    const [l1, s1] = first.outcomes;
    expect(l1).toMatchObject({ connection: 'large', status: 'polled', more: true });
    expect(l1?.requests).toBeLessThanOrEqual(6);
    expect(s1).toMatchObject({ connection: 'small', status: 'polled', more: false });
    expect(s1?.published).toBeGreaterThan(0);
    const publishedFirst = l1?.published ?? 0;
    let total = publishedFirst;
    let cycles = 1;
    let more = true;
    while (more && cycles < 40) {
      const next = await pollShard(h.deps, [large], h.settings(4_000));
      total += next.outcomes[0]?.published ?? 0;
      more = next.more > 0;
      cycles += 1;
    }
    expect(more).toBe(false);
    expect(cycles).toBeGreaterThan(2);
    const ids = new Set(
      h.events.filter((e) => e.source === 'accounting.large').map((e) => (e.detail as { id: string }).id),
    );
    // Every invoice once, across the cycles: nothing lost at a budget's edge, nothing twice.
    const client = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentialsOf(1).apiKey }),
      { clock, logger: silentLogger },
    );
    let listed = 0;
    for await (const _ of client.listItems('IssuedInvoices')) listed += 1;
    expect(ids.size).toBe(listed);
    expect(total).toBe(listed);
  });
});
