/**
 * The read window's rules one at a time (`change-window.ts`): where a window starts, which
 * ModifiedDate may become its upper bound, when the watermark moves and when it settles, and which
 * published versions the bounded dedupe state keeps. Each case pins one boundary a whole poll
 * crosses only by chance.
 */
import { describe, expect, it } from 'vitest';
import { findCollection } from '#functions/accounting/collections.js';
import {
  finishWindow,
  pruneSeen,
  raiseUpper,
  type Seen,
  startWindow,
} from '#functions/core/sync/change-window.js';
import {
  type CollectionCheckpoint,
  emptyCheckpoint,
  type WindowState,
} from '#functions/core/sync/checkpoint-state.js';
import { type PollOptionsInput, pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { type CollectionRun, emptyResult } from '#functions/core/sync/sync-types.js';
import { createManualClock } from '#functions/shared/clock.js';

const NOW = Date.parse('2026-05-01T08:00:00Z');
const LOOKBACK = 60_000;

function runOf(
  collection: string,
  state: Partial<CollectionCheckpoint> = {},
  poll: Partial<PollOptionsInput> = {},
): CollectionRun {
  const options = pollOptionsSchema.parse({ connection: 'acme', lookbackMs: LOOKBACK, ...poll });
  const spec = findCollection(collection, options.variant)!;
  return {
    deps: {
      clock: createManualClock({ start: new Date(NOW).toISOString() }),
    } as unknown as CollectionRun['deps'],
    options,
    spec,
    key: 'k',
    state: { ...emptyCheckpoint(), ...state },
    version: undefined,
    result: emptyResult(spec.name, spec.recordType),
    eventContext: {} as CollectionRun['eventContext'],
    save: async () => {},
    remaining: () => Number.POSITIVE_INFINITY,
    count: () => {},
  };
}

const windowOf = (w: Partial<WindowState> = {}): WindowState => ({
  startedAtMs: NOW,
  seq: 5,
  pages: 1,
  ...w,
});

describe('startWindow', () => {
  it('a first run starts at startFrom when given, else reads everything', () => {
    const from = runOf('ReceivedOrders', {}, { startFrom: '2026-04-01T00:00:00Z' });
    expect(startWindow(from).since).toBe('2026-04-01T00:00:00.000Z');
    expect(startWindow(runOf('ReceivedOrders')).since).toBeUndefined();
  });

  it('reads one lookback before an unsettled watermark, just after a settled one', () => {
    const wm = NOW - 3_600_000;
    expect(startWindow(runOf('ReceivedOrders', { watermarkMs: wm })).since).toBe(
      new Date(wm - LOOKBACK).toISOString(),
    );
    expect(startWindow(runOf('ReceivedOrders', { watermarkMs: wm, settled: true })).since).toBe(
      new Date(wm + 1).toISOString(),
    );
  });

  it('starts page-numbered collections at page 1, keyset ones at no cursor; numbers the window', () => {
    const keyset = startWindow(runOf('ReceivedOrders', { seq: 7 }));
    expect(keyset).toEqual({ startedAtMs: NOW, seq: 8, pages: 0 });
    const paged = runOf('ReceivedOrders');
    paged.spec = { ...paged.spec, acceptsAfter: false };
    expect(startWindow(paged)).toEqual({ pageNumber: 1, startedAtMs: NOW, seq: 1, pages: 0 });
  });
});

describe('raiseUpper', () => {
  it('keeps the first of two versions dated the same millisecond, takes a later one', () => {
    const w = windowOf();
    raiseUpper(w, 1000, '2026-05-01T00:00:01Z');
    raiseUpper(w, 1000, '2026-05-01T00:00:01.000Z');
    expect(w.upper).toBe('2026-05-01T00:00:01Z');
    raiseUpper(w, 999, 'earlier');
    expect(w.upper).toBe('2026-05-01T00:00:01Z');
    raiseUpper(w, 1001, 'later');
    expect([w.upperMs, w.upper]).toEqual([1001, 'later']);
  });
});

describe('finishWindow', () => {
  it('moves the watermark to a higher upper bound and unsettles it', () => {
    const run = runOf('ReceivedOrders', { watermarkMs: 1000, watermark: 'old', settled: true });
    finishWindow(run, windowOf({ upperMs: 2000, upper: 'new', boundMs: 1500 }));
    expect(run.state).toMatchObject({ watermarkMs: 2000, watermark: 'new', settled: false });
    expect(run.state.watermarkChangedAtMs).toBe(NOW);
    expect(run.result.completeThroughMs).toBe(1500);
  });

  it('a window that saw nothing leaves an empty checkpoint as it was', () => {
    const run = runOf('ReceivedOrders', {}, { lookbackMs: 0 });
    finishWindow(run, windowOf());
    expect(run.state.watermarkMs).toBeUndefined();
    expect(run.state.watermarkChangedAtMs).toBeUndefined();
    expect(run.state.settled).toBe(false);
    expect(run.result.completeThroughMs).toBe(NOW);
  });

  it('keeps the verbatim watermark when the upper bound has no text', () => {
    const run = runOf('ReceivedOrders', { watermarkMs: 1000, watermark: 'verbatim' });
    finishWindow(run, windowOf({ upperMs: 2000 }));
    expect(run.state).toMatchObject({ watermarkMs: 2000, watermark: 'verbatim' });
  });

  it('settles exactly one lookback after the watermark last moved, not a millisecond before', () => {
    const state = { watermarkMs: 1000, watermark: 'w', watermarkChangedAtMs: NOW - LOOKBACK };
    const early = runOf('ReceivedOrders', { ...state });
    finishWindow(early, windowOf({ startedAtMs: NOW - 1, upperMs: 1000 }));
    expect(early.state.settled).toBe(false);
    const exact = runOf('ReceivedOrders', { ...state });
    finishWindow(exact, windowOf({ startedAtMs: NOW, upperMs: 1000 }));
    expect(exact.state.settled).toBe(true);
    expect(exact.state.watermarkChangedAtMs).toBe(NOW - LOOKBACK);
  });
});

describe('pruneSeen', () => {
  const seenOf = (entries: Array<[string, number, number]>): Seen =>
    new Map(entries.map(([id, ms, seq]) => [id, { ms, seq }]));

  it('keeps everything while there is neither a watermark nor an upper bound', () => {
    const run = runOf('ReceivedOrders');
    const seen = seenOf([
      ['a', 1, 5],
      ['b', 2, 4],
    ]);
    expect(pruneSeen(run, seen, windowOf(), false)).toEqual([
      ['a', 1, 5],
      ['b', 2, 4],
    ]);
  });

  it('drops what the next window cannot reach: below the higher of watermark and upper bound, less a lookback', () => {
    const run = runOf('ReceivedOrders', { watermarkMs: 1_000_000 });
    const window = windowOf({ upperMs: 2_000_000 });
    const seen = seenOf([
      ['kept', 2_000_000 - LOOKBACK, 5],
      ['dropped', 2_000_000 - LOOKBACK - 1, 5],
      ['below-watermark', 1_000_000 - LOOKBACK, 5],
    ]);
    expect(pruneSeen(run, seen, window, false)).toEqual([['kept', 2_000_000 - LOOKBACK, 5]]);
    expect([...seen.keys()]).toEqual(['kept']);
  });

  it("an open window also keeps earlier windows' versions its remaining pages can list, not its own", () => {
    const run = runOf('ReceivedOrders', { watermarkMs: 1_000_000 });
    const since = 500_000;
    const window = windowOf({ since: new Date(since).toISOString(), upperMs: 1_000_000 });
    const seen = seenOf([
      ['earlier-in-reach', since, 4],
      ['earlier-out-of-reach', since - 1, 4],
      ['own-below-next', since + 1, 5],
    ]);
    expect(pruneSeen(run, seen, window, true)).toEqual([['earlier-in-reach', since, 4]]);
  });

  it('keeps the newest when over capacity and counts the overflow; at capacity, keeps the order', () => {
    const run = runOf('ReceivedOrders', {}, { dedupeCapacity: 2 });
    const over = seenOf([
      ['old', 1, 5],
      ['new', 3, 5],
      ['mid', 2, 5],
    ]);
    expect(pruneSeen(run, over, windowOf(), false)).toEqual([
      ['new', 3, 5],
      ['mid', 2, 5],
    ]);
    expect(run.result.dedupeOverflow).toBe(1);
    const full = seenOf([
      ['old', 1, 5],
      ['new', 3, 5],
    ]);
    expect(pruneSeen(run, full, windowOf(), false)).toEqual([
      ['old', 1, 5],
      ['new', 3, 5],
    ]);
    expect(run.result.dedupeOverflow).toBe(1);
  });
});
