import type { AccountingApi } from '#functions/accounting/api.js';
import type { CollectionSpec } from '#functions/accounting/collections.js';
import type { BusEvent, CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../ports.js';
import type { EventContext } from './build-event.js';
import type { CollectionCheckpoint } from './checkpoint-state.js';
import type { PollOptions } from './poll-options.js';

/** The ports the change detector needs. */
export interface SyncDeps {
  api: AccountingApi;
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  /** Our clock: only for durations and schedules (reconciliation, settling), never for watermarks. */
  clock: Clock;
  logger: Logger;
  /** Claim checks, deletion id lists and reference snapshots. */
  objectStore?: ObjectStore;
  /** Milliseconds the function has left (Lambda `getRemainingTimeInMillis`); unlimited when absent. */
  remainingTimeMs?: () => number;
  signal?: AbortSignal;
  /**
   * Collections the service answered with 404 during this run (kept by the caller across cycles):
   * each is reported once and then skipped. Absent: remembered only within one `pollAll`.
   */
  unavailable?: Set<string>;
}

/**
 * `unavailable`: the service answered the collection's list with 404 in this cycle (reported);
 * `skipped`: it did so earlier in the run, so the collection was not read.
 */
export type CollectionStatus = 'ok' | 'conflict' | 'failed' | 'unavailable' | 'skipped';

export interface CollectionResult {
  collection: string;
  recordType: string;
  status: CollectionStatus;
  /** Work is left (time ran short mid-window); the next run resumes from the saved cursor. */
  more: boolean;
  /** List requests made (pages read). */
  requests: number;
  published: number;
  /** Versions skipped because they were already published inside the overlap. */
  duplicatesSkipped: number;
  /** Dedupe entries dropped because the state is full (those may be published again). */
  dedupeOverflow: number;
  claimChecked: number;
  /** Events published per detail-type. */
  events: Record<string, number>;
  /** The service's ModifiedDate the collection is complete up to (verbatim). */
  watermark?: string;
  watermarkMs?: number;
  /**
   * The service's clock (epoch ms) when this run's last complete window began: its first page's
   * `Date` header, or our clock when the service sent none. Every change committed before it is
   * published. Not kept in the checkpoint (an idle cycle writes none).
   */
  completeThroughMs?: number;
  reconciled: boolean;
  error?: { name: string; message: string; status?: number };
}

/**
 * How stale the published view may be at `nowMs`: since this run's last complete window began —
 * not the age of the last change, which grows on a collection where nothing changes. The
 * watermark stands in when no window completed in this run. Includes the service's clock skew.
 */
export function freshnessLagMs(result: CollectionResult, nowMs: number): number | undefined {
  const through = result.completeThroughMs ?? result.watermarkMs;
  return through === undefined ? undefined : Math.max(0, nowMs - through);
}

export function emptyResult(collection: string, recordType: string): CollectionResult {
  return {
    collection,
    recordType,
    status: 'ok',
    more: false,
    requests: 0,
    published: 0,
    duplicatesSkipped: 0,
    dedupeOverflow: 0,
    claimChecked: 0,
    events: {},
    reconciled: false,
  };
}

/** Mutable state of one collection's run, shared by the poll, the reconciliation and the reference scan. */
export interface CollectionRun {
  deps: SyncDeps;
  options: PollOptions;
  spec: CollectionSpec;
  key: string;
  state: CollectionCheckpoint;
  version: number | undefined;
  result: CollectionResult;
  eventContext: EventContext;
  /** Writes `state` if it differs from what is stored (conditional on `version`). */
  save(): Promise<void>;
  remaining(): number;
  count(event: BusEvent, claimChecked: boolean): void;
}
