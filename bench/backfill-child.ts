/**
 * One backfill in a fresh process, so its peak RSS is its own: reads `BENCH_BACKFILL` (JSON:
 * baseUrl, collections, pageSize) and the sandbox key from `ACCOUNTING_API_KEY`, polls until
 * caught up, then a few steady cycles, and prints one JSON line with the figures.
 */
import type { CollectionName } from '../functions/accounting/collections.js';
import { createBenchPoller } from './poller-deps.js';

const input = JSON.parse(process.env.BENCH_BACKFILL ?? '{}') as {
  baseUrl: string;
  collections: CollectionName[];
  pageSize: number;
  reconcile?: boolean;
};
const poller = createBenchPoller({
  baseUrl: input.baseUrl,
  apiKey: process.env.ACCOUNTING_API_KEY ?? '',
  collections: input.collections,
  pageSize: input.pageSize,
  // The figure is the change detection's own reads; the deletion reconciliation (a separate id
  // scan, daily by default) is left out here and measured on its own by the parent.
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
// Steady state: the first windows after a backfill still overlap its end (the lookback); once the
// watermark has settled a cycle without changes costs one request per collection. Report that cost.
let steadyRequests = 0;
for (let i = 0; i < 3; i += 1) {
  const before = poller.requests();
  await poller.cycle();
  steadyRequests = poller.requests() - before;
}
await poller.close();
process.stdout.write(
  `${JSON.stringify({
    events,
    cycles,
    seconds,
    backfillRequests,
    steadyRequests,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
