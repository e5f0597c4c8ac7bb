/**
 * One backfill in a fresh process, so its peak RSS is its own: reads `BENCH_BACKFILL` (JSON:
 * baseUrl, collections, pageSize) and the sandbox key from `ACCOUNTING_API_KEY`, polls until
 * caught up, then a few steady cycles, and prints one JSON line with the figures.
 */
import type { CollectionName } from '../functions/accounting/collections.js';
import type { Clock } from '../functions/core/ports.js';
import { pollOptionsSchema } from '../functions/core/sync/poll-options.js';
import { systemClock } from '../functions/shared/clock.js';
import { createBenchPoller } from './poller-deps.js';

const input = JSON.parse(process.env.BENCH_BACKFILL ?? '{}') as {
  baseUrl: string;
  collections: CollectionName[];
  pageSize: number;
  reconcile?: boolean;
};
// The poller's clock runs ahead by `offsetMs` once the backfill is done, to let the lookback pass
// without waiting for it (only our clock moves; the service's timestamps stay as they are).
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs), sleep: systemClock.sleep };
const poller = createBenchPoller({
  clock,
  baseUrl: input.baseUrl,
  apiKey: process.env.ACCOUNTING_API_KEY ?? '',
  collections: input.collections,
  pageSize: input.pageSize,
  // The figure is the change detection's own reads; the deletion reconciliation (a separate id
  // scan, daily by default) is left out unless BENCH_BACKFILL sets `reconcile: true` (the parent
  // never does; it is there to compare by hand).
  poll: { reconcileIntervalMs: input.reconcile ? 24 * 3_600_000 : 0 },
});
const started = performance.now();
let cycles = 0;
for (;;) {
  const summary = await poller.cycle();
  cycles += 1;
  if (summary.failed > 0) throw new Error(`backfill: ${summary.failed} collections failed`);
  if (!summary.more) break;
}
const seconds = (performance.now() - started) / 1000;
const backfillRequests = poller.requests();
const events = poller.published();
// Steady state. Right after a backfill the windows still overlap its end by the lookback, so a cycle
// re-reads that overlap; once a whole window has started a lookback after the watermark last moved,
// the watermark is settled and a cycle without changes costs one request per collection. Both are
// measured: the first right after the backfill, the second once the lookback has passed.
const cycleCost = async (): Promise<number> => {
  const before = poller.requests();
  await poller.cycle();
  return poller.requests() - before;
};
const requestsRightAfterBackfill = await cycleCost();
offsetMs = pollOptionsSchema.parse({ connection: 'bench' }).lookbackMs + 1_000;
await poller.cycle(); // the window that settles the watermark
let steadyRequests = 0;
for (let i = 0; i < 3; i += 1) steadyRequests = await cycleCost();
await poller.close();
process.stdout.write(
  `${JSON.stringify({
    events,
    cycles,
    seconds,
    backfillRequests,
    steadyRequests,
    requestsRightAfterBackfill,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
