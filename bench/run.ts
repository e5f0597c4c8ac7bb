/**
 * `npm run bench [-- --quick]` — every scenario against the sandbox, side by side in one run:
 * idle cost, backfills (each in its own process for a clean peak RSS), change-to-event latency
 * under the activity generator, the naive full-scan baseline, action throughput, the size and
 * cold import time of every Lambda bundle, and many connections on the multi-connection design
 * (bench/connections.ts, each count in its own process: 1,000 and 10,000 connections, `--quick` 50). Prints a table and
 * writes `bench/results/latest.json` (`--quick`: `bench/results/quick.json`, git-ignored; `--out
 * FILE` elsewhere; `--only connections`, `--only idle` or `--only bundles`: that scenario alone, its key replaced in
 * the existing results file; `--counts 1000` the connections scenario's counts instead of 1,000 and 10,000).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { type CollectionName, defaultPolledCollections } from '../functions/accounting/collections.js';
import type { BusEvent } from '../functions/core/ports.js';
import { formatTable } from '../functions/local/format-table.js';
import { startSandbox } from '../sandbox/index.js';
import { measureActions } from './actions.js';
import { measureBundles } from './bundles.js';
import { writeCharts } from './charts.js';
import type { ConnectionsFigures } from './connections.js';
import { measureIdlePayments } from './idle-payments.js';
import { createNaivePoller } from './naive-poller.js';
import { createBenchPoller } from './poller-deps.js';
import { type BenchResults, benchResultsSchema, checkTargets } from './results.js';
import { percentile, round } from './stats.js';

const run = promisify(execFile);
// The SDK's Node-20 notice would interleave with the figures (children inherit this).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE_SIZE = 100;
const collections: readonly CollectionName[] = defaultPolledCollections;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    out: { type: 'string' },
    only: { type: 'string' },
    counts: { type: 'string' },
  },
  strict: true,
});
const quick = flags.quick === true;
// A quick run is for a look, not the record: it never replaces the committed latest.json.
const outFile = flags.out ?? join(root, 'bench', 'results', quick ? 'quick.json' : 'latest.json');
const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Σ over collections of ceil(n / pageSize), at least one request for an empty collection. */
function minimumRequests(counts: Record<string, number>, pageSize: number): number {
  return collections.reduce((n, c) => n + Math.max(1, Math.ceil((counts[c] ?? 0) / pageSize)), 0);
}

async function idleScenario(): Promise<BenchResults['idle']> {
  const sandbox = await startSandbox({ sizes: { documents: 300, partners: 40, perCollection: {} } });
  const poller = createBenchPoller({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.credentials.apiKey,
    collections,
    pageSize: PAGE_SIZE,
  });
  try {
    while ((await poller.cycle()).more) {}
    const cycles = quick ? 5 : 10;
    const before = poller.requests();
    for (let i = 0; i < cycles; i += 1) await poller.cycle();
    const perCollection = (poller.requests() - before) / cycles / collections.length;
    log(`idle: ${round(perCollection, 3)} requests per collection per cycle over ${cycles} cycles`);
    return {
      requestsPerCollectionPerCycle: round(perCollection, 3),
      payments: await measureIdlePayments({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.credentials.apiKey,
        collections,
        pageSize: PAGE_SIZE,
        cycles,
        cadenceRounds: quick ? 1 : 2,
        log,
      }),
    };
  } finally {
    await poller.close();
    await sandbox.close();
  }
}

interface ChildFigures {
  events: number;
  cycles: number;
  seconds: number;
  backfillRequests: number;
  steadyRequests: number;
  requestsRightAfterBackfill: number;
  peakRssMb: number;
}

interface BackfillRun {
  row: BenchResults['backfill'][number];
  steadyRequests: number;
  baseline?: { requestsPerCycle: number; seconds: number };
}

async function backfillScenario(documents: number, withBaseline: boolean): Promise<BackfillRun> {
  const sandbox = await startSandbox({ sizes: { documents, partners: 40, perCollection: {} } });
  try {
    const counts = sandbox.state.counts();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(root, 'bench', 'backfill-child.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          ACCOUNTING_API_KEY: sandbox.credentials.apiKey,
          BENCH_BACKFILL: JSON.stringify({ baseUrl: sandbox.baseUrl, collections, pageSize: PAGE_SIZE }),
        },
        maxBuffer: 1024 * 1024,
      },
    );
    const child = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildFigures;
    const row = {
      documents,
      pageSize: PAGE_SIZE,
      requests: child.backfillRequests,
      minimumRequests: minimumRequests(counts, PAGE_SIZE),
      seconds: round(child.seconds, 2),
      eventsPerSecond: round(child.events / child.seconds, 0),
      peakRssMb: round(child.peakRssMb, 1),
    };
    log(
      `backfill ${documents}: ${child.events} events, ${row.requests} requests (minimum ${row.minimumRequests}), ${row.seconds} s, peak RSS ${row.peakRssMb} MB; a cycle without changes: ${child.requestsRightAfterBackfill} requests right after, ${child.steadyRequests} once the lookback has passed`,
    );
    const result: BackfillRun = { row, steadyRequests: child.steadyRequests };
    if (withBaseline) {
      const naive = createNaivePoller({
        baseUrl: sandbox.baseUrl,
        headers: { 'Api-Key': sandbox.credentials.apiKey },
        collections,
        pageSize: PAGE_SIZE,
      });
      try {
        const started = performance.now();
        const first = await naive.cycle();
        const seconds = (performance.now() - started) / 1000;
        const steady = await naive.cycle();
        log(
          `baseline ${documents}: full scan ${first.records} records in ${round(seconds, 2)} s, steady cycle ${steady.requests} requests (${steady.updated} updated)`,
        );
        result.baseline = { requestsPerCycle: steady.requests, seconds: round(seconds, 2) };
      } finally {
        await naive.close();
      }
    }
    return result;
  } finally {
    await sandbox.close();
  }
}

async function latencyScenario(): Promise<BenchResults['latency']> {
  const intervalMs = 2000;
  const durationMs = quick ? 12_000 : 30_000;
  const sandbox = await startSandbox({ sizes: { documents: 300, partners: 40, perCollection: {} } });
  const latencies: number[] = [];
  let measuring = false;
  const poller = createBenchPoller({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.credentials.apiKey,
    collections,
    pageSize: PAGE_SIZE,
    onEvents(events: readonly BusEvent[], at: number) {
      if (!measuring) return;
      for (const e of events) {
        const modified = (e.detail as { modifiedDate?: unknown }).modifiedDate;
        if (typeof modified !== 'string') continue;
        latencies.push(at - Date.parse(modified));
      }
    },
  });
  try {
    while ((await poller.cycle()).more) {}
    measuring = true;
    sandbox.server.activity.start(quick ? 4 : 5);
    const started = Date.now();
    for (let k = 1; Date.now() - started < durationMs; k += 1) {
      await poller.cycle();
      const wait = started + k * intervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    sandbox.server.activity.stop();
    await poller.cycle();
    const p50 = round(percentile(latencies, 50), 0);
    const p95 = round(percentile(latencies, 95), 0);
    log(`latency: ${latencies.length} changes, p50 ${p50} ms, p95 ${p95} ms at interval ${intervalMs} ms`);
    const percentiles = Object.fromEntries(
      [10, 25, 50, 75, 90, 95, 99, 100].map((p) => [String(p), round(percentile(latencies, p), 0)]),
    );
    return { p50Ms: p50, p95Ms: p95, intervalMs, distribution: { samples: latencies.length, percentiles } };
  } finally {
    await poller.close();
    await sandbox.close();
  }
}

/** One count of the connections scenario in a child process (its own peak RSS); its figures are its last line. */
async function connectionsAt(count: number, cycles: number): Promise<ConnectionsFigures> {
  const child = run(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'bench', 'connections-child.ts'),
      '--count',
      String(count),
      '--cycles',
      String(cycles),
    ],
    { cwd: root, maxBuffer: 1024 * 1024 },
  );
  child.child.stderr?.pipe(process.stderr);
  const { stdout } = await child;
  const figures = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ConnectionsFigures;
  log(
    `connections ${figures.count}: ${figures.requestsPerConnectionPerCycle} requests per connection per cycle (idle ${figures.details.idleRequestsPerConnectionPerCycle}), cycle p95 ${figures.cycleP95Ms} ms, change → bus p95 ${figures.details.detection.p95Ms} ms, $${figures.costPerConnectionMonthUsd} per connection-month`,
  );
  return figures;
}

/** `--counts 1000,10000`: the connections scenario's counts, each a whole number of at least 10. */
function connectionCounts(text: string): number[] {
  const counts = text.split(',').map((part) => Number(part.trim()));
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 10)) {
    throw new BenchUsageError(
      `--counts: expected whole numbers of at least 10, comma-separated, got ${text}`,
    );
  }
  return counts.sort((a, b) => a - b);
}

/** The connections scenario at each count, the largest's figures first and the others beside them. */
async function connectionsScenario(): Promise<ConnectionsFigures & { alsoMeasured: ConnectionsFigures[] }> {
  const counts = flags.counts !== undefined ? connectionCounts(flags.counts) : quick ? [50] : [1000, 10_000];
  const runs: ConnectionsFigures[] = [];
  for (const count of counts) runs.push(await connectionsAt(count, quick ? 2 : 3));
  const largest = runs.pop() as ConnectionsFigures;
  return { ...largest, alsoMeasured: runs };
}

function printConnectionsAndTargets(results: BenchResults): void {
  const out = process.stdout;
  if (results.connections) {
    out.write(`\n${results.connections.count} connections: cost per connection-month\n`);
    out.write(
      formatTable(
        ['item', 'USD', 'arithmetic'],
        results.connections.details.cost.map((l) => [l.item, l.usd, l.arithmetic]),
      ),
    );
  }
  out.write('\ntargets\n');
  out.write(
    formatTable(
      ['figure', 'measured', 'target', 'met'],
      checkTargets(results).map((t) => [t.name, t.measured, t.target, t.met ? 'yes' : 'NO']),
    ),
  );
}

/**
 * `--only connections` / `--only idle` / `--only bundles`: that scenario alone; its key is replaced in the results
 * file, whose other keys keep the run that measured them.
 */
async function onlyOne(part: 'connections' | 'idle' | 'bundles'): Promise<void> {
  if (!existsSync(outFile)) {
    throw new BenchUsageError(
      `--only ${part} replaces one key of an existing results file, and ${outFile} does not exist: run the whole benchmark first (npm run bench${flags.out ? ' -- --out FILE' : ''})`,
    );
  }
  const previous = benchResultsSchema.parse(JSON.parse(await readFile(outFile, 'utf8')));
  if (part === 'bundles') {
    const bundles = await measureBundles({ root, coldRuns: 7, log });
    const results = benchResultsSchema.parse({ ...previous, bundles });
    await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
    for (const b of bundles) log(`bundle ${b.name}: ${b.bytes} bytes, cold import ${b.coldImportMs} ms`);
    process.stdout.write(`wrote ${outFile}\n`);
    return;
  }
  if (part === 'idle') {
    const results = benchResultsSchema.parse({ ...previous, idle: await idleScenario() });
    await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify({ idle: results.idle }, null, 2)}\nwrote ${outFile}\n`);
    return;
  }
  const results = benchResultsSchema.parse({ ...previous, connections: await connectionsScenario() });
  await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
  const charts = await writeCharts(results, outFile);
  printConnectionsAndTargets(results);
  process.stdout.write(`wrote ${outFile}\n`);
  for (const chart of charts) process.stdout.write(`wrote ${chart}\n`);
}

async function main(): Promise<void> {
  if (flags.only !== undefined) {
    if (flags.only !== 'connections' && flags.only !== 'idle' && flags.only !== 'bundles')
      throw new BenchUsageError(`--only: expected connections, idle or bundles, got ${flags.only}`);
    return onlyOne(flags.only);
  }
  const sizes = quick ? [1_000, 10_000] : [10_000, 100_000];
  log(
    `start (${quick ? 'quick' : 'full'}): node ${process.version}, ${availableParallelism()} cpus (${cpus()[0]?.model ?? '?'})`,
  );

  const bundles = await measureBundles({ root, coldRuns: quick ? 3 : 7, log });
  for (const b of bundles) log(`bundle ${b.name}: ${b.bytes} bytes, cold import ${b.coldImportMs} ms`);
  const idle = await idleScenario();
  const backfills: BackfillRun[] = [];
  for (const [i, n] of sizes.entries()) backfills.push(await backfillScenario(n, i === sizes.length - 1));
  const latency = await latencyScenario();
  const actions = await measureActions({ quick, log });
  const connections = await connectionsScenario();

  const largest = backfills.at(-1)!;
  const baseline = largest.baseline ?? { requestsPerCycle: 0, seconds: 0 };
  const results: BenchResults = benchResultsSchema.parse({
    idle,
    backfill: backfills.map((b) => b.row),
    latency,
    baseline,
    ratios: { requestsPerCycle: round(baseline.requestsPerCycle / Math.max(1, largest.steadyRequests), 1) },
    actions,
    bundles,
    connections,
  });

  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
  const charts = await writeCharts(results, outFile);

  const out = process.stdout;
  out.write('\nbackfill\n');
  out.write(
    formatTable(
      ['documents', 'pageSize', 'requests', 'minimum', 'seconds', 'events/s', 'peak RSS MB'],
      results.backfill.map((b) => [
        b.documents,
        b.pageSize,
        b.requests,
        b.minimumRequests,
        b.seconds,
        b.eventsPerSecond,
        b.peakRssMb,
      ]),
    ),
  );
  out.write('\nours vs naive full scan (largest backfill)\n');
  out.write(
    formatTable(
      ['poller', 'requests/cycle', 'backfill seconds'],
      [
        ['ours', largest.steadyRequests, largest.row.seconds],
        ['naive', baseline.requestsPerCycle, baseline.seconds],
      ],
    ),
  );
  out.write('\nbundles\n');
  out.write(
    formatTable(
      ['handler', 'asset bytes', 'files', '≤ 1.5 MB', 'cold import ms'],
      results.bundles.map((b) => [
        b.name,
        b.bytes,
        Object.entries(b.files ?? {})
          .map(([name, bytes]) => `${name} ${bytes}`)
          .join(', '),
        b.bytes <= 1_500_000 ? 'yes' : 'NO',
        b.coldImportMs,
      ]),
    ),
  );
  printConnectionsAndTargets(results);
  out.write(
    `\nidle ${results.idle.requestsPerCollectionPerCycle} req/collection/cycle · latency p50 ${results.latency.p50Ms} ms p95 ${results.latency.p95Ms} ms (interval ${results.latency.intervalMs} ms) · ISDOC archives ${results.actions.isdocArchivesPerSecond}/s · transfers ${results.actions.transfersPerSecond}/s\n`,
  );
  out.write(`wrote ${outFile}\n`);
  for (const chart of charts) out.write(`wrote ${chart}\n`);
}

/** A bad flag or a missing results file: a message and exit 2, no stack trace. */
class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

try {
  await main();
} catch (error) {
  if (!(error instanceof BenchUsageError)) throw error;
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(2);
}
// Embedded servers and keep-alive agents are closed; do not wait for stray timers of dependencies.
process.exit(0);
