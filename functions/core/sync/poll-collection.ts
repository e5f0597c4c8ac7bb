/**
 * The change detector for one collection: reads what changed since the watermark, publishes one
 * event per new version, checkpoints per page. Invariants (ARCHITECTURE.md 1, 2, 6):
 *
 * - the watermark is a ModifiedDate of the service, never our clock;
 * - every read starts one lookback before the watermark (skew, late commits, equal timestamps);
 *   versions already published inside that overlap are skipped with the bounded `seen` state;
 * - a window never advances the watermark past what was visible when it started: its upper bound
 *   is the maximum ModifiedDate, over all its pages, of versions dated at or before the service's
 *   clock when it answered the first page (its `Date` header) — without that header, the maximum
 *   over the FIRST page (and over versions published before the window began) — so a record edited
 *   while later pages are read, which may jump behind the keyset cursor, has a later ModifiedDate
 *   and falls in the next window;
 * - the checkpoint is written after each page's events were accepted, with a version check;
 * - memory is constant: one page plus the bounded dedupe state.
 */
import * as z from 'zod';
import { type CollectionName, type CollectionSpec, findCollection } from '../../accounting/collections.js';
import { CheckpointConflictError, SyncDataError } from '../errors.js';
import type { BusEvent } from '../ports.js';
import { buildRecordEvent } from './build-event.js';
import {
  type CollectionCheckpoint,
  checkpointKey,
  collectionCheckpointSchema,
  emptyCheckpoint,
  type SeenEntry,
  type WindowState,
} from './checkpoint-state.js';
import type { PollOptions } from './poll-options.js';
import { reconcileDeletions } from './reconcile-deletions.js';
import { scanReference } from './scan-reference.js';
import { type CollectionResult, type CollectionRun, emptyResult, type SyncDeps } from './sync-types.js';

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO date-time');
const changeRecordSchema = z.looseObject({
  Id: z.string().min(1, 'expected a non-empty Id'),
  // General reference lists of the real service carry ModifiedDate only.
  ModificationInfo: z.looseObject({ CreatedDate: isoDate.nullish(), ModifiedDate: isoDate }),
});

export async function pollCollection(
  deps: SyncDeps,
  options: PollOptions,
  collection: CollectionName,
): Promise<CollectionResult> {
  const spec = findCollection(collection, options.variant);
  if (!spec) throw new SyncDataError(`unknown collection '${collection}' (variant ${options.variant})`);
  const result = emptyResult(spec.name, spec.recordType);
  if (deps.unavailable?.has(spec.name)) {
    result.status = 'skipped';
    return result;
  }
  const key = checkpointKey(options.connection, spec.name);
  try {
    const run = await openRun(deps, options, spec, key, result);
    if (spec.modificationInfo) {
      await pollChanges(run);
      if (!result.more && reconciliationDue(run)) await reconcileDeletions(run);
    } else {
      await scanReference(run);
    }
    result.watermark = run.state.watermark;
    result.watermarkMs = run.state.watermarkMs;
  } catch (error) {
    if (deps.signal?.aborted && !(error instanceof CheckpointConflictError)) {
      // The invocation is ending: what was not checkpointed is read again by the next run.
      result.more = true;
      deps.logger.info('collection poll stopped', { collection: spec.name, reason: 'deadline' });
      return result;
    }
    result.status = error instanceof CheckpointConflictError ? 'conflict' : 'failed';
    const err = error instanceof Error ? error : new Error(String(error));
    const status = (err as { status?: unknown }).status;
    result.error = {
      name: err.name,
      message: err.message,
      ...(typeof status === 'number' ? { status } : {}),
    };
    if (status === 404 && result.status === 'failed') {
      // This service (variant) has no such list: say so once, leave it alone for the rest of the run.
      result.status = 'unavailable';
      deps.unavailable?.add(spec.name);
      deps.logger.warn('collection not served, skipped for this run', {
        collection: spec.name,
        status,
        variant: options.variant,
      });
      return result;
    }
    deps.logger.error('collection poll failed', {
      collection: spec.name,
      status: result.status,
      error: result.error,
    });
  }
  return result;
}

async function openRun(
  deps: SyncDeps,
  options: PollOptions,
  spec: CollectionSpec,
  key: string,
  result: CollectionResult,
): Promise<CollectionRun> {
  const stored = await deps.checkpoints.get(key);
  let state: CollectionCheckpoint;
  if (stored) {
    const parsed = collectionCheckpointSchema.safeParse(stored.value);
    if (!parsed.success) {
      throw new SyncDataError(
        `checkpoint '${key}' is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    }
    state = parsed.data;
  } else {
    state = emptyCheckpoint();
  }
  let savedJson = JSON.stringify(comparable(state));
  const run: CollectionRun = {
    deps,
    options,
    spec,
    key,
    state,
    version: stored?.version,
    result,
    eventContext: {
      connection: options.connection,
      source: options.source ?? `accounting.${options.connection}`,
      maxEventBytes: options.maxEventBytes,
      ...(deps.objectStore ? { objectStore: deps.objectStore } : {}),
      claimPrefix: options.claimPrefix,
      ...(options.claimBucket ? { claimBucket: options.claimBucket } : {}),
    },
    async save() {
      const json = JSON.stringify(comparable(run.state));
      if (json === savedJson) return;
      run.version = await deps.checkpoints.put(key, run.state, run.version);
      savedJson = json;
    },
    remaining: () => deps.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY,
    count(event, claimChecked) {
      result.published++;
      result.events[event.detailType] = (result.events[event.detailType] ?? 0) + 1;
      if (claimChecked) result.claimChecked++;
    },
  };
  return run;
}

/** The state without `seq`: a window that published nothing needs no write. */
function comparable(state: CollectionCheckpoint): Omit<CollectionCheckpoint, 'seq'> {
  const { seq: _seq, ...rest } = state;
  return rest;
}

function reconciliationDue(run: CollectionRun): boolean {
  const { reconcileIntervalMs } = run.options;
  if (reconcileIntervalMs === 0 || !run.deps.objectStore) return false;
  if (run.remaining() < run.options.minRemainingMs) return false;
  const last = run.state.reconciledAtMs;
  return last === undefined || run.deps.clock.now().getTime() - last >= reconcileIntervalMs;
}

function startWindow(run: CollectionRun): WindowState {
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

async function pollChanges(run: CollectionRun): Promise<void> {
  const { deps, options, spec, state, result } = run;
  if (run.remaining() < options.minRemainingMs) {
    result.more = state.window !== undefined;
    return;
  }
  const window = state.window ?? startWindow(run);
  state.seq = Math.max(state.seq, window.seq);
  const sinceMs = window.since === undefined ? undefined : Date.parse(window.since);
  const seen = new Map<string, { ms: number; seq: number }>(
    state.seen.map(([id, ms, seq]) => [id, { ms, seq }]),
  );

  const pages = deps.api.listPages(spec.name, {
    ...(window.since !== undefined ? { modifiedSince: window.since } : {}),
    ...(spec.acceptsAfter
      ? window.after !== undefined
        ? { after: window.after }
        : {}
      : { pageNumber: window.pageNumber ?? 1 }),
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });

  let complete = false;
  for await (const page of pages) {
    result.requests++;
    const firstPage = window.pages === 0;
    if (firstPage && page.serverTime !== undefined) {
      const serverMs = Date.parse(page.serverTime);
      if (!Number.isNaN(serverMs)) window.boundMs = serverMs;
    }
    const events: BusEvent[] = [];
    const claimed: boolean[] = [];
    const published: Array<[string, number]> = [];
    for (const item of page.items) {
      const parsed = changeRecordSchema.safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new SyncDataError(
          `${spec.name}: a listed record is missing ${issue?.path.join('.') || 'fields'} (${issue?.message})`,
        );
      }
      const record = parsed.data;
      const modifiedDate = record.ModificationInfo.ModifiedDate;
      const ms = Date.parse(modifiedDate);
      if (window.boundMs !== undefined ? ms <= window.boundMs : firstPage)
        raiseUpper(window, ms, modifiedDate);
      const prev = seen.get(record.Id);
      if (prev && prev.ms === ms) {
        // Already published (inside the overlap). Versions published before this window began were
        // visible when it started, so they may raise its upper bound. A different date, even an
        // earlier one (the service's clock stepped back), is a new version and is published.
        result.duplicatesSkipped++;
        if (prev.seq < window.seq) raiseUpper(window, ms, modifiedDate);
        continue;
      }
      const created = record.ModificationInfo.CreatedDate;
      // Without a CreatedDate (general reference lists) a record first seen by an incremental
      // window cannot be told new from changed: it is reported as Updated.
      const change = prev
        ? 'Updated'
        : sinceMs === undefined || (created != null && Date.parse(created) >= sinceMs)
          ? 'Created'
          : 'Updated';
      const built = await buildRecordEvent(run.eventContext, {
        recordType: spec.recordType,
        id: record.Id,
        change,
        modifiedDate,
        version: modifiedDate,
        record,
        time: new Date(ms),
      });
      events.push(built.event);
      claimed.push(built.claimChecked);
      published.push([record.Id, ms]);
    }

    // Publish first; only an accepted page may move the checkpoint (a throw leaves it untouched).
    if (events.length > 0) await deps.publisher.publish(events);
    events.forEach((event, i) => {
      run.count(event, claimed[i] ?? false);
    });
    for (const [id, ms] of published) seen.set(id, { ms, seq: window.seq });

    window.pages++;
    if (spec.acceptsAfter) {
      if (page.lastId !== undefined) window.after = page.lastId;
    } else {
      window.pageNumber = page.nextPageNumber ?? (window.pageNumber ?? 1) + 1;
    }
    complete = page.last;
    if (complete) finishWindow(run, window);
    state.window = complete ? undefined : window;
    state.seen = pruneSeen(run, seen, window, !complete);
    await run.save();
    if (complete) break;
    if (run.remaining() < options.minRemainingMs) {
      result.more = true;
      break;
    }
  }
  if (!complete && !result.more) {
    // The pages ended without one marked last (an empty result): the window is done.
    finishWindow(run, window);
    state.window = undefined;
    state.seen = pruneSeen(run, seen, window, false);
    await run.save();
  }
  deps.logger.debug('collection polled', {
    collection: spec.name,
    requests: result.requests,
    published: result.published,
    duplicatesSkipped: result.duplicatesSkipped,
    watermark: state.watermark,
    more: result.more,
  });
}

function raiseUpper(window: WindowState, ms: number, modifiedDate: string): void {
  if (window.upperMs === undefined || ms > window.upperMs) {
    window.upperMs = ms;
    window.upper = modifiedDate;
  }
}

function finishWindow(run: CollectionRun, window: WindowState): void {
  const { state, options } = run;
  const now = run.deps.clock.now().getTime();
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
function pruneSeen(
  run: CollectionRun,
  seen: Map<string, { ms: number; seq: number }>,
  window: WindowState,
  open: boolean,
): SeenEntry[] {
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
