/**
 * The deployed poller of a single-company deployment (`poll-connections.ts`: shard 0 of 1 of its
 * registry of one) on a scheduled tick: what it publishes, its metrics and lag, running out of time,
 * and its input (the Scheduler's notification, a shard's schedule, a bad shard, a held lease).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryShardLease } from '#functions/core/connections/shard.js';
import { ShardTimeBudgetError } from '#functions/core/connections/shard-cycle.js';
import { checkpointKey } from '#functions/core/sync/checkpoint-state.js';
import { eventFixture, scheduledPoll } from '../support/event-fixtures.js';
import { deployedPoller, recordingMetrics } from './deployed-poller.js';
import { setup } from './harness.js';

const scheduled = scheduledPoll();
const context = (remaining: () => number) => ({ getRemainingTimeInMillis: remaining });
const ample = context(() => 600_000);

function pollerFor(t: ReturnType<typeof setup>, env: Record<string, string> = {}) {
  const { points, metrics } = recordingMetrics();
  const { handler, deps } = deployedPoller(
    t,
    {
      ACCOUNTING_CONNECTION: 'acme',
      POLLER_COLLECTIONS: 'ReceivedOrders,IssuedInvoices',
      POLLER_RECONCILE_INTERVAL_SECONDS: '0',
      // The fake service has no payment lists: these tests are about the change detector.
      POLLER_PAYMENTS: 'false',
      ...env,
    },
    { metrics },
  );
  return { handler, points, deps };
}

describe('the deployed poller, one connection', () => {
  it('polls the configured collections on a scheduled event and reports them with metrics', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) t.service.create();
    const { handler, points } = pollerFor(t);
    const cycle = await handler(scheduled, ample);
    expect(cycle).toMatchObject({
      leased: true,
      registered: 1,
      due: 1,
      published: 6,
      requests: 2,
      failed: 0,
    });
    const [outcome] = cycle.outcomes;
    // The fake service lists the same records for every collection.
    expect(outcome).toMatchObject({
      connection: 'acme',
      status: 'polled',
      published: 6,
      failedCollections: 0,
      more: false,
      healthy: true,
      events: { 'ReceivedOrder.Created': 3, 'IssuedInvoice.Created': 3 },
    });
    expect(Object.keys(outcome?.lagByCollection ?? {}).sort()).toEqual(['IssuedInvoices', 'ReceivedOrders']);
    expect(new Set(t.publisher.events.map((e) => e.source))).toEqual(new Set(['accounting.acme']));
    expect(points).toContainEqual({
      name: 'EventsPublished',
      value: 3,
      dimensions: { detailType: 'ReceivedOrder.Created' },
    });
    expect(points).toContainEqual({
      name: 'EventsPublished',
      value: 3,
      dimensions: { detailType: 'IssuedInvoice.Created' },
    });
    expect(points.find((p) => p.name === 'ApiRequests')?.value).toBe(2);
    expect(points.find((p) => p.name === 'ConnectionsPolled')?.value).toBe(1);
    const lag = points.filter((p) => p.name === 'WatermarkLagMs');
    expect(lag.map((p) => p.dimensions?.collection).sort()).toEqual(['IssuedInvoices', 'ReceivedOrders']);
  });

  it('reports as lag how stale the published view may be, not the age of the last change', async () => {
    const t = setup();
    t.service.create();
    const { handler, points } = pollerFor(t, { POLLER_COLLECTIONS: 'ReceivedOrders' });
    await handler(scheduled, ample);
    // Thirty days without a change, then a poll one minute after the one before.
    t.tick(30 * 86_400_000);
    await handler(scheduled, ample);
    t.tick(60_000);
    const cycle = await handler(scheduled, ample);
    const saved = await t.checkpoints.get(checkpointKey('acme', 'ReceivedOrders'));
    const watermark = (saved?.value as { watermark?: string } | undefined)?.watermark ?? '';
    expect(t.clock.now().getTime() - Date.parse(watermark)).toBeGreaterThan(29 * 86_400_000);
    expect(cycle.outcomes[0]?.lagByCollection.ReceivedOrders).toBeLessThanOrEqual(1_000);
    expect(points.filter((p) => p.name === 'WatermarkLagMs').at(-1)?.value).toBeLessThanOrEqual(1_000);
  });

  it('reports more work when the function runs out of time, and resumes it on the next tick', async () => {
    const t = setup();
    for (let i = 0; i < 250; i++) t.service.create();
    const { handler } = pollerFor(t, { POLLER_COLLECTIONS: 'ReceivedOrders' });
    // An invocation whose time cannot hold the report's margin (a function Timeout of a second or
    // two) fails, naming the Timeout, before it takes the lease: a cycle that polled nothing would pass unseen.
    await expect(
      handler(
        scheduled,
        context(() => 1_000),
      ),
    ).rejects.toThrow(ShardTimeBudgetError);
    await expect(
      handler(
        scheduled,
        context(() => 3_000),
      ),
    ).rejects.toThrow(/raise the function's Timeout/);
    expect(t.service.requests).toBe(0);
    // Time runs short once two pages were read: no third page is started.
    const cut = await handler(
      scheduled,
      context(() => (t.service.requests < 2 ? 600_000 : 1_000)),
    );
    expect(cut.outcomes[0]).toMatchObject({ status: 'polled', more: true, published: 200 });
    const rest = await handler(scheduled, ample);
    expect(rest.outcomes[0]).toMatchObject({ more: false, published: 50 });
    expect(t.missing()).toEqual([]);
  });

  it("takes a shard's schedule input, rejects a shard that does not exist, and polls nothing while the lease is held", async () => {
    const t = setup();
    t.service.create();
    const lease = createMemoryShardLease();
    const { handler } = pollerFor(t);
    // A shard's schedule: the registry of one has its connection in shard 0 only.
    const other = await handler(eventFixture('shard-poll.json'), ample);
    expect(other).toMatchObject({ shard: { index: 1, count: 4 }, leased: true, registered: 0, due: 0 });
    await expect(handler({ shard: 4, shards: 4 }, ample)).rejects.toThrow(
      /invalid poll input: index: expected a shard index below the shard count/,
    );
    await expect(handler({ shard: 0, shards: 'two' }, ample)).rejects.toThrow(
      /shards: expected a shard count/,
    );
    expect(t.publisher.events).toEqual([]);
    // Another invocation still holds shard 0 of 1 (a late tick): this one polls nothing.
    const held = deployedPoller(t, { ACCOUNTING_CONNECTION: 'acme' }, { lease });
    await lease.acquire(
      { index: 0, count: 1 },
      t.clock.now().getTime(),
      t.clock.now().getTime() + 60_000,
      'other',
    );
    expect(await held.handler(scheduled, ample)).toMatchObject({ leased: false, registered: 0 });
    expect(t.service.requests).toBe(0);
  });
});
