/**
 * Measures the change detector against the sandbox (not a test; run with tsx):
 *
 *   npx tsx test/sync/measure-poller.ts [--documents 100000] [--page-size 100]
 *
 * Prints JSON: requests per idle cycle per collection, and a backfill's wall time, requests
 * against ceil(N / PageSize), events per second and peak RSS. Events go to a counting publisher
 * (the bus is not measured here); checkpoints and claim checks to the in-memory stores.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { createAccountingClient } from '#functions/accounting/client.js';
import { defaultPolledCollections } from '#functions/accounting/collections.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import type { BusEvent, EventPublisher } from '#functions/core/ports.js';
import { pollAll } from '#functions/core/sync/poll-all.js';
import { pollCollection } from '#functions/core/sync/poll-collection.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';

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

// The sandbox runs in its own process, so the RSS measured here is the poller's alone.
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    new URL('./measure-sandbox-child.ts', import.meta.url).pathname,
    String(N),
    String(Math.max(pageSize, 100)),
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
const sandbox = z.object({ baseUrl: z.string(), apiKey: z.string() }).parse(JSON.parse(line));
const client = createAccountingClient(
  parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, pageSize }),
  { logger: silentLogger },
);
// The poller's clock (durations only) is advanced by hand between idle cycles, as the schedule would.
const clock = createManualClock({ start: new Date() });
const deps = {
  api: client,
  checkpoints: createMemoryCheckpointStore(),
  publisher,
  clock,
  logger: silentLogger,
  objectStore: createMemoryObjectStore(),
};
const options = pollOptionsSchema.parse({ connection: 'bench', pageSize, reconcileIntervalMs: 0 });

// Warm up the sandbox's listing (and our JIT) on another collection, then measure.
await pollCollection(deps, options, 'IssuedOrders');
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const heapBeforeMb = mb(process.memoryUsage().heapUsed);
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
// Retained after the backfill (meaningful with NODE_OPTIONS=--expose-gc): constant memory means this
// does not grow with N, whatever the peak RSS (V8 grows its heap lazily).
global.gc?.();
const heapAfterMb = mb(process.memoryUsage().heapUsed);

// Backfill the other collections (not measured), then idle cycles, one per simulated minute: every default collection, nothing changed.
await pollAll(deps, options, defaultPolledCollections, 4);
const idleCycles: Array<{ listRequests: number; httpRequests: number; maxPerCollection: number }> = [];
for (let c = 0; c < 8; c++) {
  clock.advance(60_000);
  const before = client.stats().requests;
  const summary = await pollAll(deps, options, defaultPolledCollections, 4);
  idleCycles.push({
    listRequests: summary.requests,
    httpRequests: client.stats().requests - before,
    maxPerCollection: Math.max(...summary.collections.map((r) => r.requests)),
  });
}

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
        heapBeforeMb,
        heapAfterGcMb: heapAfterMb,
      },
      busEventsAccepted: published,
      idle: { collections: defaultPolledCollections.length, cycles: idleCycles },
    },
    null,
    2,
  ),
);
await client.close();
child.stdin!.end();
await once(child, 'exit');
