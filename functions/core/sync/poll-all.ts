/**
 * Polls several collections with bounded concurrency. A failing collection (403, repeated 5xx,
 * a checkpoint conflict) is reported and the others go on. A collection the service answers with
 * 404 (a list the service variant does not have) is reported once as `unavailable` and then skipped
 * for the rest of the run (`deps.unavailable`).
 */
import type { CollectionName } from '#functions/accounting/collections.js';
import { pollCollection } from './poll-collection.js';
import type { PollOptions } from './poll-options.js';
import { isPayableCollection, pollPayments } from './poll-payments.js';
import type { CollectionResult, SyncDeps } from './sync-types.js';

export interface PollAllSummary {
  collections: CollectionResult[];
  published: number;
  requests: number;
  failed: number;
  conflicts: number;
  /** Collections first found missing (404) in this cycle. */
  unavailable: number;
  /** Some collection has work left; the next run resumes it. */
  more: boolean;
}

export async function pollAll(
  deps: SyncDeps,
  options: PollOptions,
  collections: readonly CollectionName[],
  concurrency = 4,
): Promise<PollAllSummary> {
  const runDeps: SyncDeps = deps.unavailable ? deps : { ...deps, unavailable: new Set() };
  // Payment detection (opt-in) runs for the payable collections polled, as tasks of their own.
  const payments = options.payments ? collections.filter(isPayableCollection) : [];
  const tasks: Array<() => Promise<CollectionResult>> = [
    ...collections.map((c) => () => pollCollection(runDeps, options, c)),
    ...payments.map((c) => () => pollPayments(runDeps, options, c)),
  ];
  const results: CollectionResult[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  return {
    collections: results,
    published: results.reduce((n, r) => n + r.published, 0),
    requests: results.reduce((n, r) => n + r.requests, 0),
    failed: results.filter((r) => r.status === 'failed').length,
    conflicts: results.filter((r) => r.status === 'conflict').length,
    unavailable: results.filter((r) => r.status === 'unavailable').length,
    more: results.some((r) => r.more),
  };
}
