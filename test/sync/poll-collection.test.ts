import { describe, expect, it } from 'vitest';
import { CheckpointConflictError } from '#functions/core/errors.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import { resolveRecord } from '#functions/core/events/claim-check.js';
import { type CollectionCheckpoint, checkpointKey } from '#functions/core/sync/checkpoint-state.js';
import { pollAll } from '#functions/core/sync/poll-all.js';
import { setup } from './harness.js';

const KEY = checkpointKey('acme', 'ReceivedOrders');
const MIN = 60_000;

describe('pollCollection: windowing and classification', () => {
  it('backfills every record in keyset pages and publishes catalog-valid Created events', async () => {
    const t = setup();
    for (let i = 0; i < 250; i++) {
      t.service.create();
      t.service.advance(1000);
    }
    const result = await t.poll();
    expect(result.status).toBe('ok');
    expect(result.requests).toBe(3);
    expect(result.published).toBe(250);
    expect(result.events).toEqual({ 'ReceivedOrder.Created': 250 });
    for (const e of t.publisher.events) {
      expect(e.source).toBe('accounting.acme');
      expect(() => parseDetail(e.detailType, e.detail)).not.toThrow();
    }
    expect(t.missing()).toEqual([]);
  });

  it('costs exactly one request per idle cycle and writes no checkpoint', async () => {
    const t = setup();
    for (let i = 0; i < 30; i++) t.service.create();
    await t.poll();
    const before = await t.checkpoints.get(KEY);
    for (let cycle = 0; cycle < 12; cycle++) {
      t.tick(MIN);
      const result = await t.poll();
      expect(result.requests).toBe(1);
      expect(result.published).toBe(0);
    }
    // After one lookback the watermark is settled; the checkpoint was written once for that.
    const after = await t.checkpoints.get(KEY);
    expect(after!.version - before!.version).toBeLessThanOrEqual(1);
    expect((after!.value as CollectionCheckpoint).settled).toBe(true);
  });

  it('keeps one request per idle cycle when hundreds of records share the watermark timestamp', async () => {
    const t = setup();
    for (let i = 0; i < 350; i++) t.service.create(); // one timestamp, 4 pages
    await t.poll();
    const requests: number[] = [];
    for (let cycle = 0; cycle < 10; cycle++) {
      t.tick(MIN);
      requests.push((await t.poll()).requests);
    }
    // Inside the lookback the overlap is re-read (4 pages, all deduped); once settled: one request.
    expect(requests.slice(-4)).toEqual([1, 1, 1, 1]);
    t.service.create();
    t.tick(MIN);
    expect((await t.poll()).published).toBe(1);
    expect(t.missing()).toEqual([]);
  });

  it('classifies by CreatedDate against the window: new → Created, edited → Updated', async () => {
    const t = setup();
    const old = t.service.create();
    await t.poll();
    t.tick(10 * MIN);
    t.service.edit(old);
    const fresh = t.service.create();
    await t.poll();
    const changes = Object.fromEntries(
      t.publisher
        .details()
        .slice(1)
        .map((d) => [d.id, d.change]),
    );
    expect(changes).toEqual({ [old]: 'Updated', [fresh]: 'Created' });
  });

  it('does not call an update of a record created inside the overlap Created again', async () => {
    const t = setup();
    t.service.create();
    await t.poll();
    t.tick(MIN);
    const id = t.service.create();
    await t.poll();
    t.tick(MIN); // still inside the 5-minute lookback of the record's creation
    t.service.edit(id);
    await t.poll();
    expect(
      t.publisher
        .details()
        .filter((d) => d.id === id)
        .map((d) => d.change),
    ).toEqual(['Created', 'Updated']);
  });
});

describe('pollCollection: the ways pollers lose data', () => {
  // Protects: the window's upper bound is the max ModifiedDate of its FIRST page, not of all pages.
  it('catches a record edited behind the keyset cursor while later pages are read', async () => {
    const t = setup();
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push(t.service.create());
    await t.poll();
    t.tick(MIN);
    for (const id of ids) t.service.edit(id); // 300 changes: a three-page window
    t.tick(MIN);
    t.service.onPage = (_c, index) => {
      if (index !== 1) return;
      t.service.advance(MIN);
      t.service.edit(ids[0]!); // behind the cursor: this window cannot see it
      t.service.advance(20 * MIN); // far more than the lookback
      t.service.edit(ids[299]!); // ahead of the cursor: seen on page 3 with a much later date
    };
    await t.poll();
    t.service.onPage = undefined;
    t.tick(MIN);
    await t.poll();
    expect(t.missing()).toEqual([]);
  });

  // Protects: ModifiedSince is inclusive of the watermark and the (id, ModifiedDate) dedupe state.
  it('publishes records sharing the boundary second exactly once', async () => {
    const t = setup({ service: { secondPrecision: true }, poll: { lookbackMs: 0 } });
    t.service.advance(100);
    for (let i = 0; i < 3; i++) t.service.create();
    await t.poll();
    t.service.advance(300); // same second: two more records share the watermark's timestamp
    t.service.create();
    t.service.create();
    await t.poll();
    expect(t.missing()).toEqual([]);
    expect([...t.publisher.versions().values()].every((n) => n === 1)).toBe(true);
    expect(t.publisher.events).toHaveLength(5);
  });

  // Protects: the watermark comes from the service's ModifiedDate values, never from our clock.
  it.each([
    ['behind', -10 * MIN],
    ['ahead', 10 * MIN],
  ])('loses nothing when the service clock is minutes %s of ours', async (_label, skew) => {
    const t = setup({ clockStart: '2026-05-01T08:00:00Z' });
    t.service.nowMs = Date.parse('2026-05-01T08:00:00Z') + skew;
    for (let round = 0; round < 5; round++) {
      t.service.create();
      t.tick(30_000);
      t.service.create();
      await t.poll();
      t.tick(MIN);
    }
    expect(t.missing()).toEqual([]);
    const state = (await t.checkpoints.get(KEY))!.value as CollectionCheckpoint;
    expect(t.service.latest().map((v) => v.modifiedDate)).toContain(state.watermark);
  });

  // Protects: dedupe skips the exact (id, ModifiedDate) already published, not every earlier date.
  it('publishes a new version dated before the one already published (service clock stepped back)', async () => {
    const t = setup();
    const id = t.service.create();
    t.tick(MIN);
    t.service.edit(id);
    await t.poll(); // publishes the edit at 08:01
    t.service.advance(-30_000); // the service's clock steps back 30 s, well within the lookback
    t.service.edit(id, { fields: { Name: 'after the step' } }); // latest state, dated 08:00:30
    t.tick(MIN);
    await t.poll();
    t.tick(MIN);
    await t.poll();
    expect(t.missing()).toEqual([]);
    const last = t.publisher.details().at(-1);
    expect(last?.record?.Name).toBe('after the step');
    expect(t.publisher.details().filter((d) => d.id === id)).toHaveLength(2);
  });

  // Protects: each read overlaps the watermark by the lookback.
  it.each([
    [5 * MIN, 0],
    [0, 1],
  ])(
    'catches a commit that becomes visible after later ones (lookback %d ms → missing %d)',
    async (lookbackMs, lost) => {
      const t = setup({ poll: { lookbackMs } });
      t.service.create();
      await t.poll();
      t.tick(MIN);
      const late = t.service.create({ lagMs: 30_000 }); // committed now, visible in 30 s
      t.tick(5_000);
      t.service.create(); // a later record, visible at once
      t.tick(5_000);
      await t.poll(); // sees the later record only
      t.tick(40_000);
      await t.poll();
      t.tick(MIN);
      await t.poll();
      expect(t.missing().map((m) => m.id)).toEqual(lost ? [late] : []);
    },
  );

  // Protects: the checkpoint is written only after the page's events were accepted.
  it('republishes (never loses) a page when the process dies between publish and checkpoint', async () => {
    const t = setup();
    for (let i = 0; i < 250; i++) t.service.create();
    t.crash.crashOnPut = 1; // page 1 saved; page 2 published, then the process dies
    const first = await t.poll();
    expect(first.status).toBe('failed');
    const saved = (await t.checkpoints.get(KEY))!.value as CollectionCheckpoint;
    expect(saved.window?.after).toBe('00000000-0000-4000-8000-000000000100');
    const second = await t.poll();
    expect(second.status).toBe('ok');
    expect(t.missing()).toEqual([]);
    const counts = [...t.publisher.versions().values()];
    expect(counts.filter((n) => n === 2)).toHaveLength(100); // page 2, once more
    expect(counts.every((n) => n <= 2)).toBe(true);
    const keys = t.publisher.details().map((d) => d.idempotencyKey);
    expect(new Set(keys).size).toBe(250); // duplicates carry the same idempotency key
  });

  it('keeps the checkpoint when the bus refuses a page, and publishes it on the next run', async () => {
    const t = setup();
    for (let i = 0; i < 150; i++) t.service.create();
    await t.poll();
    t.tick(MIN);
    const ids = t.service.latest().map((v) => v.id);
    for (const id of ids.slice(0, 10)) t.service.edit(id);
    const before = await t.checkpoints.get(KEY);
    t.publisher.failNext = 1;
    const failed = await t.poll();
    expect(failed.status).toBe('failed');
    expect(failed.error?.name).toBe('PublishError');
    expect((await t.checkpoints.get(KEY))!.version).toBe(before!.version);
    await t.poll();
    expect(t.missing()).toEqual([]);
  });
});

describe('pollCollection: runs, budgets, state', () => {
  it('stops cleanly when time runs short, saves the cursor, and resumes without duplicates', async () => {
    const t = setup({ poll: { minRemainingMs: 10_000 } });
    for (let i = 0; i < 500; i++) t.service.create();
    let budget = 3; // pages this invocation has time for
    const remainingTimeMs = () => (budget-- > 0 ? 60_000 : 5_000);
    const first = await t.poll('ReceivedOrders', { remainingTimeMs });
    expect(first.more).toBe(true);
    expect(first.published).toBe(300);
    const state = (await t.checkpoints.get(KEY))!.value as CollectionCheckpoint;
    expect(state.window?.after).toBe('00000000-0000-4000-8000-000000000300');
    const second = await t.poll();
    expect(second.more).toBe(false);
    expect(second.requests).toBe(2);
    expect(t.publisher.events).toHaveLength(500);
    expect(t.missing()).toEqual([]);
  });

  it('keeps the dedupe state bounded during a large backfill (constant memory)', async () => {
    const t = setup({ poll: { dedupeCapacity: 50 } });
    for (let i = 0; i < 1000; i++) t.service.create(); // all share one timestamp: everything is "in the overlap"
    const result = await t.poll();
    const state = (await t.checkpoints.get(KEY))!.value as CollectionCheckpoint;
    expect(state.seen.length).toBeLessThanOrEqual(50);
    expect(result.dedupeOverflow).toBeGreaterThan(0);
    expect(t.missing()).toEqual([]);
  });

  it('bounds a window by the service clock of its first page, so an Id-ordered backfill is not re-published', async () => {
    // Ids ascend with ModifiedDate (sequential ids): the first page holds the oldest records. Bounded by
    // the first page's newest date, the next window would re-read nearly everything and re-publish what
    // the bounded dedupe state no longer holds; bounded by the service's `Date`, it re-reads only the
    // lookback and publishes nothing again.
    const t = setup({ service: { dateHeader: true }, poll: { dedupeCapacity: 400 } }); // holds the lookback, not the backfill
    for (let i = 0; i < 1000; i++) {
      t.service.create();
      t.service.advance(1000);
    }
    expect((await t.poll()).published).toBe(1000);
    const state = (await t.checkpoints.get(KEY))!.value as CollectionCheckpoint;
    expect(Date.parse(state.watermark!)).toBe(Date.parse(t.service.latest().at(-1)!.modifiedDate));
    t.tick(MIN);
    expect((await t.poll()).published).toBe(0);
    expect([...t.publisher.versions().values()].every((n) => n === 1)).toBe(true);
    expect(t.missing()).toEqual([]);
  });

  it('reports a checkpoint conflict when another poller advanced the collection', async () => {
    const t = setup();
    for (let i = 0; i < 5; i++) t.service.create();
    await t.poll();
    t.tick(MIN);
    t.service.create();
    const racing = {
      get: (k: string) => t.checkpoints.get(k),
      put: async (k: string) => {
        throw new CheckpointConflictError(k);
      },
    };
    const result = await t.poll('ReceivedOrders', { checkpoints: racing });
    expect(result.status).toBe('conflict');
    expect(result.error?.name).toBe('CheckpointConflictError');
  });

  it('reports a failing collection and polls the others', async () => {
    const t = setup();
    t.service.create();
    t.service.failures.set('IssuedInvoices', () =>
      Object.assign(new Error('403 Forbidden'), { status: 403 }),
    );
    const summary = await pollAll(t.deps, t.options, ['ReceivedOrders', 'IssuedInvoices', 'IssuedOrders'], 2);
    // The payment detector (on by default) reads the failing collection too, and fails with it.
    expect(summary.collections.map((c) => [c.collection, c.status])).toEqual([
      ['ReceivedOrders', 'ok'],
      ['IssuedInvoices', 'failed'],
      ['IssuedOrders', 'ok'],
      ['IssuedInvoices/Unpaid', 'failed'],
    ]);
    expect(summary.collections[1]?.error?.status).toBe(403);
    expect(summary.failed).toBe(2);
  });

  it('stores a too-large record in the object store and the event carries recordRef', async () => {
    const t = setup({ poll: { maxEventBytes: 2_000, claimBucket: 'claims-bucket' } });
    t.service.create({ fields: { Note: 'x'.repeat(5_000) } });
    t.service.create();
    const result = await t.poll();
    expect(result.claimChecked).toBe(1);
    const [big, small] = t.publisher.details();
    expect(big?.record).toBeUndefined();
    expect(big?.recordRef).toMatchObject({ bucket: 'claims-bucket' });
    expect(small?.record).toBeDefined();
    const record = await resolveRecord(big as never, t.objectStore);
    expect((record as { Note: string }).Note).toHaveLength(5_000);
    expect(() => parseDetail(t.publisher.events[0]!.detailType, big)).not.toThrow();
  });
});

describe('deletions and reference lists', () => {
  it('reconciles deletions on its interval and emits Deleted for vanished ids', async () => {
    const t = setup({ poll: { reconcileIntervalMs: 24 * 3_600_000 } });
    const ids = Array.from({ length: 120 }, () => {
      t.service.advance(10_000);
      return t.service.create();
    });
    const first = await t.poll();
    expect(first.reconciled).toBe(true);
    t.service.delete(ids[3]!);
    t.service.delete(ids[110]!);
    t.tick(MIN);
    const notDue = await t.poll();
    expect(notDue.reconciled).toBe(false);
    expect(notDue.requests).toBe(1);
    t.tick(24 * 3_600_000);
    const due = await t.poll();
    expect(due.reconciled).toBe(true);
    const deleted = t.publisher.details().filter((d) => d.change === 'Deleted');
    expect(deleted.map((d) => d.id).sort()).toEqual([ids[3], ids[110]].sort());
    for (const e of t.publisher.events.filter((e) => e.detailType.endsWith('.Deleted'))) {
      expect(() => parseDetail(e.detailType, e.detail)).not.toThrow();
    }
  });

  it('scans an opted-in reference list by content hash', async () => {
    const t = setup({ poll: { referenceIntervalMs: 3_600_000 } });
    const a = t.service.create({ id: 'bank-a', fields: { Name: 'A' } });
    const b = t.service.create({ id: 'bank-b', fields: { Name: 'B' } });
    await t.poll('Banks');
    expect(t.publisher.details().map((d) => `${d.id}:${d.change}`)).toEqual([
      'bank-a:Created',
      'bank-b:Created',
    ]);
    t.service.edit(a, { fields: { Name: 'A2' } });
    t.service.delete(b);
    t.tick(10 * MIN);
    expect((await t.poll('Banks')).requests).toBe(0); // not due yet
    t.tick(3_600_000);
    await t.poll('Banks');
    expect(
      t.publisher
        .details()
        .slice(2)
        .map((d) => `${d.id}:${d.change}`),
    ).toEqual(['bank-a:Updated', 'bank-b:Deleted']);
  });
});

describe('pollCollection: deadline', () => {
  it('reports more work, not a failure, when the invocation deadline aborts a request', async () => {
    const t = setup();
    for (let i = 0; i < 150; i++) t.service.create();
    const controller = new AbortController();
    t.service.onPage = (_c, index) => {
      if (index === 1) {
        controller.abort();
        throw new DOMException('The operation was aborted', 'AbortError');
      }
    };
    const result = await t.poll('ReceivedOrders', { signal: controller.signal });
    t.service.onPage = undefined;
    expect(result).toMatchObject({ status: 'ok', more: true, published: 100 });
    await t.poll();
    expect(t.missing()).toEqual([]);
  });
});
