/**
 * Rules of one collection's incremental read (`poll-changes.ts`) that a whole poll meets only at
 * its edges: Created against Updated at the window's start (a CreatedDate equal to it, before it,
 * missing), the exact number of versions skipped in the overlap, no empty publish, and the time
 * budget's boundaries (exactly the minimum left goes on; a window left open is reported as more).
 */
import { describe, expect, it } from 'vitest';
import { setup } from './harness.js';

const MIN_REMAINING = 15_000;

describe('pollChanges', () => {
  it('Created from the window start on (inclusive), Updated before it or without a CreatedDate', async () => {
    const start = Date.parse('2026-05-01T09:00:00Z');
    const t = setup({ poll: { startFrom: new Date(start).toISOString() } });
    t.service.nowMs = start - 10_000;
    const before = t.service.create();
    t.service.nowMs = start;
    const atStart = t.service.create();
    t.service.nowMs = start + 5_000;
    t.service.edit(before);
    const undated = t.service.create();
    const info = t.service.records.get(undated)!.record.ModificationInfo as { CreatedDate?: string };
    delete info.CreatedDate;
    t.service.nowMs = start + 60_000;
    const result = await t.poll();
    expect(result.status).toBe('ok');
    const changes = Object.fromEntries(t.publisher.details().map((d) => [d.id, d.change]));
    expect(changes).toEqual({ [before]: 'Updated', [atStart]: 'Created', [undated]: 'Updated' });
  });

  it('counts each version skipped in the overlap once, and publishes nothing on an idle cycle', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) t.service.create();
    await t.poll();
    const calls = t.publisher.calls;
    t.tick(60_000);
    const again = await t.poll();
    expect(again.duplicatesSkipped).toBe(3);
    expect(again.published).toBe(0);
    expect(t.publisher.calls).toBe(calls);
  });

  it('goes on with exactly the minimum left; a window left open is more work, even when no page starts', async () => {
    const t = setup();
    for (let i = 0; i < 250; i++) t.service.create();
    const exact = await t.poll('ReceivedOrders', { remainingTimeMs: () => MIN_REMAINING });
    expect(exact).toMatchObject({ requests: 3, more: false, published: 250 });

    const u = setup();
    for (let i = 0; i < 250; i++) u.service.create();
    let left = MIN_REMAINING;
    const first = await u.poll('ReceivedOrders', { remainingTimeMs: () => left-- });
    expect(first).toMatchObject({ requests: 1, more: true, published: 100 });
    const none = await u.poll('ReceivedOrders', { remainingTimeMs: () => MIN_REMAINING - 1 });
    expect(none).toMatchObject({ requests: 0, more: true, published: 0 });
    const idle = setup();
    const nothingOpen = await idle.poll('ReceivedOrders', { remainingTimeMs: () => MIN_REMAINING - 1 });
    expect(nothingOpen).toMatchObject({ requests: 0, more: false });
  });
});
