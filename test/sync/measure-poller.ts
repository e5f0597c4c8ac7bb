/**
 * Measures the change detector against the sandbox (not a test; run with tsx):
 *
 *   npx tsx test/sync/measure-poller.ts [--documents 100000] [--page-size 100]
 *
 * Prints JSON: requests per idle cycle per collection, and a backfill's wall time, requests
 * against ceil(N / PageSize), events per second and peak RSS. Events go to a counting publisher
 * (the bus is not measured here); checkpoints and claim checks to the in-memory stores.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createAccountingClient } from '../../functions/accounting/client.js';
import { type CollectionName, defaultPolledCollections } from '../../functions/accounting/collections.js';
import { parseAccountingConfig } from '../../functions/accounting/config.js';
import { createMemoryCheckpointStore } from '../../functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '../../functions/adapters/local/memory-object-store.js';
import type { BusEvent, EventPublisher } from '../../functions/core/ports.js';
import { pollAll } from '../../functions/core/sync/poll-all.js';
import { pollCollection } from '../../functions/core/sync/poll-collection.js';
import { pollOptionsSchema } from '../../functions/core/sync/poll-options.js';
import { systemClock } from '../../functions/shared/clock.js';
import { silentLogger } from '../../functions/shared/logger.js';
import { startSandbox } from '../../sandbox/index.js';

const flags = z
  .object({
    documents: z.coerce.number().int().positive().default(100_000),
    'page-size': z.coerce.number().int().positive().default(100),
  })
  .parse(parseArgs({ options: { documents: { type: 'string' }, 'page-size': { type: 'string' } } }).values);

const N = flags.documents;
const pageSize = flags['page-size'];
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

let published = 0;
const publisher: EventPublisher = {
  async publish(events: readonly BusEvent[]) {
    published += events.length;
  },
};

const sandbox = await startSandbox({
  sizes: { documents: N, partners: 50, perCollection: { ReceivedOrders: N } },
  maxPageSize: Math.max(pageSize, 100),
});
const client = createAccountingClient(
  parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey, pageSize }),
  { logger: silentLogger },
);
const deps = {
  api: client,
  checkpoints: createMemoryCheckpointStore(),
  publisher,
  clock: systemClock,
  logger: silentLogger,
  objectStore: createMemoryObjectStore(),
};
const options = pollOptionsSchema.parse({ connection: 'bench', pageSize, reconcileIntervalMs: 0 });

// Warm up the sandbox's listing (and our JIT) on another collection, then measure.
await pollCollection(deps, options, 'IssuedOrders');
global.gc?.();
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);

const requestsBefore = client.stats().requests;
published = 0;
const started = performance.now();
const backfill = await pollCollection(deps, options, 'ReceivedOrders');
const wallMs = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
const backfillRequests = client.stats().requests - requestsBefore;

// Idle cycles: every default collection, nothing changed since the last cycle.
await pollAll(deps, options, defaultPolledCollections, 4);
const idle: Record<string, number> = {};
const cycles = 3;
for (let c = 0; c < cycles; c++) {
  const summary = await pollAll(deps, options, defaultPolledCollections as CollectionName[], 4);
  for (const r of summary.collections) idle[r.collection] = Math.max(idle[r.collection] ?? 0, r.requests);
}
const idleTotalBefore = client.stats().requests;
await pollAll(deps, options, defaultPolledCollections as CollectionName[], 4);
const idleHttp = client.stats().requests - idleTotalBefore;

console.log(
  JSON.stringify(
    {
      documents: N,
      pageSize,
      backfill: {
        status: backfill.status,
        published: backfill.published,
        wallMs: Math.round(wallMs),
        listRequests: backfill.requests,
        httpRequests: backfillRequests,
        ceilNOverPageSize: Math.ceil(N / pageSize),
        eventsPerSecond: Math.round(backfill.published / (wallMs / 1000)),
        rssBeforeMb: mb(rssBefore),
        peakRssMb: mb(peakRss),
        maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
      },
      idle: {
        collections: defaultPolledCollections.length,
        maxListRequestsPerCollection: Math.max(...Object.values(idle)),
        httpRequestsPerCycle: idleHttp,
      },
    },
    null,
    2,
  ),
);
await client.close();
await sandbox.close();
