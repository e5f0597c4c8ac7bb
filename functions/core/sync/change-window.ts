/**
 * The read window of the change detector (`poll-changes.ts`): where a window starts, the upper
 * bound it may advance the watermark to, when the watermark settles, and the bounded `seen` state
 * of versions that can still be re-read. Invariants: ARCHITECTURE.md 1, 2, 6 (see
 * `poll-collection.ts`).
 */
import type { SeenEntry, WindowState } from './checkpoint-state.js';
import type { CollectionRun } from './sync-types.js';

/** Versions published by the current window or earlier ones: id → ModifiedDate (ms) and window seq. */
export type Seen = Map<string, { ms: number; seq: number }>;

export function startWindow(run: CollectionRun): WindowState {
  const { state, options, spec } = run;
  let sinceMs: number | undefined;
  if (state.watermarkMs !== undefined) {
    // Settled: every version dated up to the watermark was visible to a whole window and was read,
    // so the read starts just after it (records sharing the watermark's timestamp are not re-read).
    sinceMs = state.settled ? state.watermarkMs + 1 : state.watermarkMs - options.lookbackMs;
  } else if (options.startFrom !== undefined) {
    sinceMs = Date.parse(options.startFrom);
  }
  return {
    ...(sinceMs !== undefined ? { since: new Date(sinceMs).toISOString() } : {}),
    ...(spec.acceptsAfter ? {} : { pageNumber: 1 }),
    startedAtMs: run.deps.clock.now().getTime(),
    seq: state.seq + 1,
    pages: 0,
  };
}

export function raiseUpper(window: WindowState, ms: number, modifiedDate: string): void {
  if (window.upperMs === undefined || ms > window.upperMs) {
    window.upperMs = ms;
    window.upper = modifiedDate;
  }
}

export function finishWindow(run: CollectionRun, window: WindowState): void {
  const { state, options } = run;
  const now = run.deps.clock.now().getTime();
  run.result.completeThroughMs = window.boundMs ?? window.startedAtMs;
  if (
    window.upperMs !== undefined &&
    (state.watermarkMs === undefined || window.upperMs > state.watermarkMs)
  ) {
    state.watermarkMs = window.upperMs;
    if (window.upper !== undefined) state.watermark = window.upper;
    state.watermarkChangedAtMs = now;
    state.settled = false;
  } else if (
    state.watermarkMs !== undefined &&
    !state.settled &&
    window.startedAtMs - (state.watermarkChangedAtMs ?? window.startedAtMs) >= options.lookbackMs
  ) {
    // A whole window started a lookback after the watermark last moved and found nothing newer:
    // everything dated up to the watermark was visible to it; later reads start after the watermark.
    state.settled = true;
  }
}

/**
 * Keeps versions that can still be re-read, newest first, bounded by `dedupeCapacity`: those the
 * next window reaches (ModifiedDate ≥ watermark − lookback) and, while a window is open, the
 * versions published before it that its remaining pages can still list (ModifiedDate ≥ its since).
 */
export function pruneSeen(run: CollectionRun, seen: Seen, window: WindowState, open: boolean): SeenEntry[] {
  const { state, options, result } = run;
  const top = Math.max(
    state.watermarkMs ?? Number.NEGATIVE_INFINITY,
    window.upperMs ?? Number.NEGATIVE_INFINITY,
  );
  const next = top - options.lookbackMs;
  const sinceMs = window.since === undefined ? Number.NEGATIVE_INFINITY : Date.parse(window.since);
  const older = open ? Math.min(sinceMs, next) : next;
  let entries: SeenEntry[] = [];
  for (const [id, { ms, seq }] of seen) {
    if (top === Number.NEGATIVE_INFINITY || ms >= (seq < window.seq ? older : next))
      entries.push([id, ms, seq]);
  }
  if (entries.length > options.dedupeCapacity) {
    entries.sort((a, b) => b[1] - a[1]);
    result.dedupeOverflow += entries.length - options.dedupeCapacity;
    entries = entries.slice(0, options.dedupeCapacity);
  }
  seen.clear();
  for (const [id, ms, seq] of entries) seen.set(id, { ms, seq });
  return entries;
}
