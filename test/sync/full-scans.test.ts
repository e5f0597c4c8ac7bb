/**
 * The two full scans of the change detector, driven one step at a time: the deletion
 * reconciliation (`reconcileDeletions`) and the reference-list scan (`scanReference`). Each is
 * called on a run built here, so what it does to the run (requests counted, state, checkpoint
 * writes, the object store, the log) is asserted directly, including the paths a whole poll
 * rarely takes: time running short between pages, a scan that saw fewer ids than were counted.
 */
import { describe, expect, it } from 'vitest';
import { findCollection } from '#functions/accounting/collections.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import type { Logger } from '#functions/core/ports.js';
import { emptyCheckpoint } from '#functions/core/sync/checkpoint-state.js';
import { readIdList, readSnapshot } from '#functions/core/sync/id-list.js';
import { idListKey, reconcileDeletions } from '#functions/core/sync/reconcile-deletions.js';
import { scanReference } from '#functions/core/sync/scan-reference.js';
import { type CollectionRun, emptyResult, type SyncDeps } from '#functions/core/sync/sync-types.js';
import { setup } from './harness.js';

interface LogLine {
  level: string;
  message: string;
  data?: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, data?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(data ? { data } : {}) });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

type Harness = ReturnType<typeof setup>;

/**
 * A run of `collection` over the harness's service. `remaining` is read once per call of
 * `run.remaining()` (a list: one value per call, the last repeated).
 */
function runOf(
  t: Harness,
  collection: string,
  opts: { remaining?: number[]; store?: boolean; logger?: Logger } = {},
) {
  const spec = findCollection(collection, t.options.variant)!;
  const remaining = [...(opts.remaining ?? [Number.POSITIVE_INFINITY])];
  let saves = 0;
  const deps: SyncDeps = { ...t.deps, ...(opts.logger ? { logger: opts.logger } : {}) };
  if (opts.store === false) delete deps.objectStore;
  const run: CollectionRun = {
    deps,
    options: t.options,
    spec,
    key: `checkpoint/${spec.name}`,
    state: emptyCheckpoint(),
    version: undefined,
    result: emptyResult(spec.name, spec.recordType),
    eventContext: {
      connection: t.options.connection,
      source: `accounting.${t.options.connection}`,
      maxEventBytes: t.options.maxEventBytes,
      ...(deps.objectStore ? { objectStore: deps.objectStore } : {}),
      claimPrefix: t.options.claimPrefix,
    },
    async save() {
      saves++;
    },
    remaining: () => (remaining.length > 1 ? remaining.shift()! : remaining[0]!),
    count(event, claimChecked) {
      run.result.published++;
      run.result.events[event.detailType] = (run.result.events[event.detailType] ?? 0) + 1;
      if (claimChecked) run.result.claimChecked++;
    },
  };
  return { run, saves: () => saves };
}

const MIN_REMAINING = 15_000;

describe('reconcileDeletions', () => {
  function withRecords(n: number) {
    const t = setup({ poll: { reconcileIntervalMs: 3_600_000 } });
    const ids = Array.from({ length: n }, () => t.service.create());
    return { t, ids };
  }

  it('stores every listed id under the connection and collection, counts each page, saves once', async () => {
    const { t, ids } = withRecords(250);
    const logger = recordingLogger();
    const { run, saves } = runOf(t, 'ReceivedOrders', { logger });
    await reconcileDeletions(run);
    const key = idListKey(run);
    expect(key).toBe('sync/acme/ReceivedOrders/ids.txt.gz');
    expect(t.objectStore.keys()).toEqual([key]);
    expect(await readIdList(t.objectStore, key)).toEqual(ids);
    expect(run.result.requests).toBe(3);
    expect(run.result.reconciled).toBe(true);
    expect(run.state.reconciledAtMs).toBe(t.clock.now().getTime());
    expect(saves()).toBe(1);
    expect(t.publisher.events).toEqual([]); // no previous list: nothing can have vanished
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'deletions reconciled',
        data: { collection: 'ReceivedOrders', ids: 250, deleted: 0 },
      },
    ]);
  });

  it('does nothing without an object store to keep the list in', async () => {
    const { t } = withRecords(3);
    const { run, saves } = runOf(t, 'ReceivedOrders', { store: false });
    await reconcileDeletions(run);
    expect(t.service.requests).toBe(0);
    expect(run.result).toMatchObject({ requests: 0, reconciled: false });
    expect(saves()).toBe(0);
  });

  it('publishes the vanished ids in batches of at most 100 and drops them from the dedupe state', async () => {
    const { t, ids } = withRecords(260);
    await reconcileDeletions(runOf(t, 'ReceivedOrders').run);
    const gone = ids.slice(0, 250);
    for (const id of gone) t.service.delete(id);
    const logger = recordingLogger();
    const { run } = runOf(t, 'ReceivedOrders', { logger });
    const kept = ids[255]!;
    run.state.seen = [
      [gone[0]!, 1, 1],
      [kept, 2, 1],
      [gone[249]!, 3, 1],
    ];
    const before = t.publisher.calls;
    await reconcileDeletions(run);
    expect(t.publisher.calls - before).toBe(3);
    const deleted = t.publisher.details().filter((d) => d.change === 'Deleted');
    expect(deleted.map((d) => d.id)).toEqual(gone);
    expect(run.result.published).toBe(250);
    expect(run.result.events).toEqual({ 'ReceivedOrder.Deleted': 250 });
    expect(run.state.seen).toEqual([[kept, 2, 1]]);
    expect(await readIdList(t.objectStore, idListKey(run))).toEqual(ids.slice(250));
    expect(logger.lines.at(-1)).toEqual({
      level: 'info',
      message: 'deletions reconciled',
      data: { collection: 'ReceivedOrders', ids: 10, deleted: 250 },
    });
  });

  it('publishes in chunks of exactly 100 (the bus batch the publisher splits further)', async () => {
    const { t, ids } = withRecords(201);
    await reconcileDeletions(runOf(t, 'ReceivedOrders').run);
    for (const id of ids.slice(0, 200)) t.service.delete(id);
    const sizes: number[] = [];
    const { run } = runOf(t, 'ReceivedOrders');
    run.deps = {
      ...run.deps,
      publisher: { publish: async (events) => void sizes.push(events.length) },
    };
    await reconcileDeletions(run);
    expect(sizes).toEqual([100, 100]);
  });

  it('keeps the dedupe state whole when nothing vanished', async () => {
    const { t, ids } = withRecords(5);
    await reconcileDeletions(runOf(t, 'ReceivedOrders').run);
    const { run } = runOf(t, 'ReceivedOrders');
    const seen: typeof run.state.seen = [[ids[0]!, 1, 1]];
    run.state.seen = seen;
    await reconcileDeletions(run);
    expect(run.state.seen).toBe(seen);
    expect(run.result.published).toBe(0);
  });

  it('postpones when time runs short before the last page: no list written, nothing saved', async () => {
    const { t } = withRecords(250);
    const logger = recordingLogger();
    const { run, saves } = runOf(t, 'ReceivedOrders', { remaining: [MIN_REMAINING - 1], logger });
    await reconcileDeletions(run);
    expect(run.result).toMatchObject({ requests: 1, reconciled: false });
    expect(t.objectStore.keys()).toEqual([]);
    expect(run.state.reconciledAtMs).toBeUndefined();
    expect(saves()).toBe(0);
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'reconciliation postponed',
        data: { collection: 'ReceivedOrders', reason: 'time', ids: 100 },
      },
    ]);
  });

  it('goes on with exactly the minimum left, and finishes on the last page however short the time', async () => {
    const exact = withRecords(250).t;
    const { run } = runOf(exact, 'ReceivedOrders', { remaining: [MIN_REMAINING] });
    await reconcileDeletions(run);
    expect(run.result).toMatchObject({ requests: 3, reconciled: true });

    const onePage = withRecords(40).t;
    const short = runOf(onePage, 'ReceivedOrders', { remaining: [0] }).run;
    await reconcileDeletions(short);
    expect(short.result).toMatchObject({ requests: 1, reconciled: true });
  });
});

describe('scanReference', () => {
  const SNAPSHOT = 'sync/acme/Banks/snapshot.json.gz';

  function withBanks(n: number, poll: Record<string, unknown> = {}) {
    const t = setup({ poll: { referenceIntervalMs: 3_600_000, pageSize: 100, ...poll } });
    const ids = Array.from({ length: n }, (_, i) =>
      t.service.create({ id: `bank-${String(i).padStart(4, '0')}`, fields: { Name: `Bank ${i}` } }),
    );
    return { t, ids };
  }

  it('refuses to run without an object store, naming the list', async () => {
    const { t } = withBanks(1);
    await expect(scanReference(runOf(t, 'Banks', { store: false }).run)).rejects.toThrow(
      'reference list Banks needs an object store for its snapshot',
    );
    expect(t.service.requests).toBe(0);
  });

  it('first scan: every id Created, versioned by content hash, snapshot stored, pages counted', async () => {
    const { t, ids } = withBanks(150);
    const { run, saves } = runOf(t, 'Banks');
    await scanReference(run);
    expect(run.result.requests).toBe(2);
    expect(run.result.published).toBe(150);
    expect(run.state.scannedAtMs).toBe(t.clock.now().getTime());
    expect(saves()).toBe(1);
    const details = t.publisher.details();
    expect(details.map((d) => d.id)).toEqual(ids);
    expect(new Set(details.map((d) => d.change))).toEqual(new Set(['Created']));
    const snapshot = await readSnapshot(t.objectStore, SNAPSHOT);
    expect([...snapshot!.keys()]).toEqual(ids);
    const hash = snapshot!.get(ids[0]!)!;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(snapshot!.values()).size).toBe(150); // different content, different hashes
    expect(details[0]!.idempotencyKey).toBe(idempotencyKey('acme', 'Bank', ids[0]!, `content:${hash}`));
  });

  it('a second scan publishes only what changed: Updated, Deleted, and nothing for the rest', async () => {
    const { t, ids } = withBanks(5);
    await scanReference(runOf(t, 'Banks').run);
    t.service.edit(ids[1]!, { fields: { Name: 'renamed' } });
    t.service.delete(ids[3]!);
    t.tick(3_600_000);
    const before = t.publisher.events.length;
    const { run } = runOf(t, 'Banks');
    await scanReference(run);
    expect(
      t.publisher
        .details()
        .slice(before)
        .map((d) => `${d.id}:${d.change}`),
    ).toEqual([`${ids[1]}:Updated`, `${ids[3]}:Deleted`]);
    expect(run.result.published).toBe(2);
  });

  it('is not due before its interval has passed, and is due exactly at it', async () => {
    const { t } = withBanks(3);
    await scanReference(runOf(t, 'Banks').run);
    const scannedAt = t.clock.now().getTime();
    t.tick(3_600_000 - 1);
    const early = runOf(t, 'Banks').run;
    early.state.scannedAtMs = scannedAt;
    const requests = t.service.requests;
    await scanReference(early);
    expect(t.service.requests).toBe(requests);
    expect(early.state.scannedAtMs).toBe(scannedAt);
    t.tick(1);
    const due = runOf(t, 'Banks').run;
    due.state.scannedAtMs = scannedAt;
    await scanReference(due);
    expect(due.result.requests).toBe(1);
    expect(due.state.scannedAtMs).toBe(scannedAt + 3_600_000);
  });

  it('does not start with less than the minimum left, but starts with exactly it', async () => {
    const { t } = withBanks(3);
    const short = runOf(t, 'Banks', { remaining: [MIN_REMAINING - 1] }).run;
    await scanReference(short);
    expect(t.service.requests).toBe(0);
    expect(short.state.scannedAtMs).toBeUndefined();
    const exact = runOf(t, 'Banks', { remaining: [MIN_REMAINING] }).run;
    await scanReference(exact);
    expect(exact.result.requests).toBe(1);
  });

  it('stops between pages when time runs short, says there is more, and stores no snapshot', async () => {
    const { t } = withBanks(250);
    // Enough to start, then short after the first page.
    const { run, saves } = runOf(t, 'Banks', { remaining: [MIN_REMAINING, MIN_REMAINING - 1] });
    await scanReference(run);
    expect(run.result).toMatchObject({ requests: 1, more: true, published: 100 });
    expect(t.objectStore.keys()).toEqual([]);
    expect(run.state.scannedAtMs).toBeUndefined();
    expect(saves()).toBe(0);
  });

  it('finishes on the last page however short the time, without claiming more', async () => {
    const { t } = withBanks(30);
    const { run } = runOf(t, 'Banks', { remaining: [MIN_REMAINING, 0] });
    await scanReference(run);
    expect(run.result).toMatchObject({ requests: 1, more: false, published: 30 });
    expect(await readSnapshot(t.objectStore, SNAPSHOT)).toBeDefined();
  });

  it('fakes no deletion when the scan saw fewer ids than the service counted, and says so', async () => {
    const { t, ids } = withBanks(150);
    await scanReference(runOf(t, 'Banks').run);
    t.service.delete(ids[149]!);
    t.tick(3_600_000);
    // A record created while the scan reads: page 2 shifts by one, the scan sees 149 of 150 counted.
    t.service.onPage = (_c, index) => {
      if (index === 1) t.service.create({ id: 'bank-0000a', fields: { Name: 'new' } });
    };
    const logger = recordingLogger();
    const before = t.publisher.events.length;
    const { run } = runOf(t, 'Banks', { logger });
    await scanReference(run);
    t.service.onPage = undefined;
    const changes = t.publisher
      .details()
      .slice(before)
      .map((d) => d.change);
    expect(changes).not.toContain('Deleted');
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: 'reference scan inconsistent',
        data: { collection: 'Banks', seen: 149, total: 150 },
      },
    ]);
  });

  it('says nothing is inconsistent on a first scan that saw fewer ids than counted', async () => {
    const { t } = withBanks(150);
    t.service.onPage = (_c, index) => {
      if (index === 1) t.service.create({ id: 'bank-0000a', fields: { Name: 'new' } });
    };
    const logger = recordingLogger();
    await scanReference(runOf(t, 'Banks', { logger }).run);
    expect(logger.lines).toEqual([]);
  });

  it('counts the events whose record went to the object store (claim check)', async () => {
    const t = setup({ poll: { referenceIntervalMs: 3_600_000, maxEventBytes: 2_000 } });
    t.service.create({ id: 'bank-big', fields: { Name: 'x'.repeat(5_000) } });
    t.service.create({ id: 'bank-small', fields: { Name: 'y' } });
    const { run } = runOf(t, 'Banks');
    await scanReference(run);
    expect(run.result.claimChecked).toBe(1);
    expect(run.result.published).toBe(2);
  });
});
