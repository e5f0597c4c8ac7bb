import { describe, expect, it } from 'vitest';
import { createHandler, type PollMetrics } from '../../functions/handlers/poll-changes.js';
import { loadPollerSettings } from '../../functions/handlers/poller-config.js';
import { eventFixture, scheduledPoll } from '../support/event-fixtures.js';
import { setup } from './harness.js';

const scheduled = scheduledPoll();

function recordingMetrics() {
  const points: Array<{ name: string; value: number; dimensions?: Record<string, string> }> = [];
  const metrics: PollMetrics = {
    count: (name, value, dimensions) => points.push({ name, value, ...(dimensions ? { dimensions } : {}) }),
    milliseconds: (name, value, dimensions) =>
      points.push({ name, value, ...(dimensions ? { dimensions } : {}) }),
    flush: () => {},
  };
  return { points, metrics };
}

function handlerFor(t: ReturnType<typeof setup>, env: Record<string, string> = {}) {
  const settings = loadPollerSettings({
    ACCOUNTING_CONNECTION: 'acme',
    POLLER_COLLECTIONS: 'ReceivedOrders,IssuedInvoices',
    POLLER_RECONCILE_INTERVAL_SECONDS: '0',
    ...env,
  });
  const { points, metrics } = recordingMetrics();
  const handler = createHandler({
    api: t.deps.api,
    checkpoints: t.deps.checkpoints,
    publisher: t.publisher,
    objectStore: t.objectStore,
    clock: t.clock,
    logger: t.deps.logger,
    settings,
    metrics,
  });
  return { handler, points };
}

describe('poll-changes handler', () => {
  it('polls the configured collections on a scheduled event and returns a summary with metrics', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) t.service.create();
    const { handler, points } = handlerFor(t);
    const summary = await handler(scheduled, { getRemainingTimeInMillis: () => 600_000 });
    // The fake service lists the same records for every collection.
    expect(summary.published).toBe(6);
    expect(summary.collections.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(summary.more).toBe(false);
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
    const lag = points.filter((p) => p.name === 'WatermarkLagMs');
    expect(lag).toHaveLength(2);
    expect(lag[0]?.dimensions).toEqual({ collection: 'ReceivedOrders' });
  });

  it('reports as lag how stale the published view may be, not the age of the last change', async () => {
    const t = setup();
    t.service.create();
    const { handler, points } = handlerFor(t, { POLLER_COLLECTIONS: 'ReceivedOrders' });
    await handler(scheduled, { getRemainingTimeInMillis: () => 600_000 });
    // Thirty days without a change, then a poll one minute after the one before.
    t.tick(30 * 86_400_000);
    await handler(scheduled, { getRemainingTimeInMillis: () => 600_000 });
    t.tick(60_000);
    const summary = await handler(scheduled, { getRemainingTimeInMillis: () => 600_000 });
    const [collection] = summary.collections;
    expect(Date.parse(t.clock.now().toISOString()) - Date.parse(collection?.watermark ?? '')).toBeGreaterThan(
      29 * 86_400_000,
    );
    expect(collection?.lagMs).toBeLessThanOrEqual(1_000);
    expect(points.filter((p) => p.name === 'WatermarkLagMs').at(-1)?.value).toBeLessThanOrEqual(1_000);
  });

  it('reports more work when the function runs out of time', async () => {
    const t = setup();
    for (let i = 0; i < 250; i++) t.service.create();
    const { handler } = handlerFor(t, { POLLER_COLLECTIONS: 'ReceivedOrders' });
    const summary = await handler(scheduled, { getRemainingTimeInMillis: () => 1_000 });
    expect(summary.more).toBe(false); // nothing started: no window is open yet
    expect(summary.requests).toBe(0);
    let left = 3; // one call sets the abort deadline, then one per page started
    const second = await handler(scheduled, {
      getRemainingTimeInMillis: () => (left-- > 0 ? 60_000 : 1_000),
    });
    expect(second.more).toBe(true);
    expect(second.published).toBe(200);
  });

  it('accepts a manual run naming collections and rejects an unknown one', async () => {
    const t = setup();
    t.service.create();
    const { handler } = handlerFor(t);
    const summary = await handler(eventFixture('manual-poll.json'));
    expect(summary.collections.map((c) => c.collection)).toEqual(['IssuedOrders']);
    await expect(handler({ collections: ['Nope'] })).rejects.toThrow(/unknown collection 'Nope'/);
  });
});
