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

import {
  type CollectionName,
  type CollectionSpec,
  findCollection,
} from '#functions/accounting/collections.js';
import { connectionEventSource } from '../connection.js';
import { CheckpointConflictError, SyncDataError } from '../errors.js';
import {
  type CollectionCheckpoint,
  checkpointKey,
  collectionCheckpointSchema,
  emptyCheckpoint,
} from './checkpoint-state.js';
import { pollChanges } from './poll-changes.js';
import type { PollOptions } from './poll-options.js';
import { reconcileDeletions } from './reconcile-deletions.js';
import { scanReference } from './scan-reference.js';
import { type CollectionResult, type CollectionRun, emptyResult, type SyncDeps } from './sync-types.js';

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
      source: connectionEventSource({ name: options.connection, source: options.source }),
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
