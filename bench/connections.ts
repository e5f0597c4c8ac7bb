/**
 * The scale benchmark of many connections: N simulated companies (the sandbox's `--companies`),
 * each a connection in the DynamoDB registry polled every minute by the multi-connection design —
 * the dispatcher handler enqueues one poll request per due connection on the SQS FIFO poll queue
 * (group = connection), and K poller containers take batches off it and run the poller handler on
 * them. One warm-up cycle (the first backfill) is left out; then each steady cycle starts at its
 * minute (the clock jumps there; everything in it runs in real time), a small fraction of the
 * companies get a change first (the sandbox's admin activity API), and the cycle's requests,
 * invocations, billed durations, PutEvents entries, DynamoDB units, SQS requests and secret reads
 * are counted. `costPerConnectionMonthUsd` prices them (connections-cost.ts).
 *
^ * `tsx bench/connections-child.ts [--count N] [--cycles N]` prints the figures as one JSON line (what
 * `npm run bench` runs in a child process, for a clean peak RSS).
 */
import { availableParallelism } from 'node:os';
import type { SQSEvent } from 'aws-lambda';
import { defaultPolledCollectionsFor } from '../functions/accounting/collections.js';
import { pollBatch } from '../functions/handlers/poll-connections.js';
import { defaultInfraConfig } from '../infra/config/load.js';
import { type CostLine, costPerConnectionMonth, type MeasuredUsage } from './connections-cost.js';
import { connectionName, credentialOf, type Deployment, startDeployment } from './connections-deployment.js';
import { percentile, round } from './stats.js';

export interface ConnectionsBenchOptions {
  count: number;
  steadyCycles: number;
  /** Fraction of the companies changed before each steady cycle (at least one). */
  churn: number;
  /** Poller containers at once (the event source's maximum concurrency). */
  containers: number;
  /** Poll requests per poller invocation (the event source's batch size). */
  batchSize: number;
  perConnectionMetrics: boolean;
  log?: (line: string) => void;
}

const infra = defaultInfraConfig();
/** The deployed defaults: the event source's batch size and maximum concurrency, metrics per connection. */
export const DEFAULT_OPTIONS: Omit<ConnectionsBenchOptions, 'count' | 'steadyCycles'> = {
  churn: 0.01,
  containers: infra.connectionPollerMaxConcurrency,
  batchSize: infra.connectionPollerBatchSize,
  perConnectionMetrics: infra.perConnectionMetrics,
};
/** The dispatcher's memory, as infra/constructs/connection-polling.ts sets it. */
const DISPATCHER_MEMORY_MB = 256;

/** One connection's poll, as the poller handler reported it. */
export interface PollRecord {
  cycle: number;
  connection: string;
  status: string;
  startMs: number;
  endMs: number;
}

interface CycleUsage {
  ms: number;
  changed: Set<string>;
  requests: Map<string, number>;
  dispatcherBilledMs: number;
  pollerInvocations: number;
  pollerBilledMs: number;
  receives: number;
  deletes: number;
  sendBatches: number;
  putEventsEntries: number;
  readUnits: number;
  writeUnits: number;
  dynamoDbRequests: number;
  secretReads: number;
  logBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Lambda context of `timeoutMs` started now. */
function contextFor(timeoutMs: number) {
  const started = performance.now();
  return {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(timeoutMs - (performance.now() - started))),
  };
}

/** One container takes batches until the queue is empty; each batch is one billed invocation. */
async function drain(
  d: Deployment,
  deps: Deployment['containers'][number]['deps'],
  batchSize: number,
  timeoutMs: number,
  onBatch: (event: SQSEvent, outcomes: PollRecord[], billedMs: number) => void,
): Promise<void> {
  while (d.queue.messages().length > 0) {
    const event = d.queue.receive(batchSize);
    if (event.Records.length === 0) {
      await sleep(2); // every visible group is in flight elsewhere
      continue;
    }
    const started = performance.now();
    const startMs = d.clock.now().getTime();
    const out = await pollBatch(deps, event, contextFor(timeoutMs));
    const billedMs = Math.ceil(performance.now() - started);
    d.queue.settle(event, out);
    const polls = out.outcomes.map((o) => ({
      cycle: -1,
      connection: o.connection,
      status: o.status,
      startMs,
      endMs: startMs + o.durationMs,
    }));
    onBatch(event, polls, billedMs);
  }
}

function counters(d: Deployment) {
  return {
    sendBatches: d.queue.sendBatchCalls,
    putEventsEntries: d.publisher.billedEntries,
    readUnits: d.dynamoDb.readUnits,
    writeUnits: d.dynamoDb.writeUnits,
    dynamoDbRequests: d.dynamoDb.requests,
    secretReads: d.secrets.reads,
    logBytes: d.logger.bytes + d.metrics.emfBytes,
    byCredential: { ...d.sandbox.requestCounts().byCredential },
  };
}

async function churn(d: Deployment, cycle: number, count: number, fraction: number): Promise<Set<string>> {
  const changes = Math.max(1, Math.round(count * fraction));
  const changed = new Set<string>();
  for (let i = 0; i < changes; i++) {
    const k = (((cycle * changes + i) * 7919) % count) + 1; // spread over the companies, cycle by cycle
    const res = await fetch(`${d.sandbox.baseUrl}/_sandbox/activity?company=${k}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1 }),
    });
    if (!res.ok) throw new Error(`activity on company ${k} answered ${res.status}`);
    await res.arrayBuffer();
    changed.add(connectionName(k));
  }
  return changed;
}

/** One cycle: (changes,) the dispatcher's tick at the cycle's minute, then the containers until the queue is empty. */
async function runCycle(
  d: Deployment,
  o: ConnectionsBenchOptions,
  cycle: number,
  startMs: number,
  polls: PollRecord[],
): Promise<CycleUsage> {
  const scheduledMs = startMs + cycle * 60_000;
  d.clock.jumpTo(scheduledMs);
  const changed = cycle === 0 ? new Set<string>() : await churn(d, cycle, o.count, o.churn);
  const before = counters(d);
  const usage = { pollerInvocations: 0, pollerBilledMs: 0, receives: 0, deletes: 0 };
  const started = performance.now();
  await d.dispatch(new Date(scheduledMs).toISOString());
  const dispatcherBilledMs = Math.ceil(performance.now() - started);
  let lastPollEnd = performance.now();
  const timeoutMs = infra.pollerTimeoutSeconds * 1000;
  await Promise.all(
    d.containers.map((c) =>
      drain(d, c.deps, o.batchSize, timeoutMs, (event, outcomes, billedMs) => {
        usage.pollerInvocations++;
        usage.pollerBilledMs += billedMs;
        usage.receives++;
        usage.deletes += event.Records.length > 0 ? 1 : 0; // DeleteMessageBatch of the batch's successes
        for (const p of outcomes) polls.push({ ...p, cycle });
        lastPollEnd = performance.now();
      }),
    ),
  );
  const after = counters(d);
  const requests = new Map<string, number>();
  for (let k = 1; k <= o.count; k++) {
    const key = credentialOf(k);
    requests.set(connectionName(k), (after.byCredential[key] ?? 0) - (before.byCredential[key] ?? 0));
  }
  const delta = (name: Exclude<keyof typeof before, 'byCredential'>) => after[name] - before[name];
  return {
    ms: lastPollEnd - started,
    changed,
    requests,
    dispatcherBilledMs,
    ...usage,
    sendBatches: delta('sendBatches'),
    putEventsEntries: delta('putEventsEntries'),
    readUnits: delta('readUnits'),
    writeUnits: delta('writeUnits'),
    dynamoDbRequests: delta('dynamoDbRequests'),
    secretReads: delta('secretReads'),
    logBytes: delta('logBytes'),
  };
}

/** The most polls running at one moment (a sweep over their start and end). */
export function maxConcurrent(polls: readonly Pick<PollRecord, 'startMs' | 'endMs'>[]): number {
  const edges = polls.flatMap((p) => [
    [p.startMs, 1],
    [p.endMs, -1],
  ]) as Array<[number, number]>;
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // an end before a start at the same ms
  let now = 0;
  let max = 0;
  for (const [, step] of edges) {
    now += step;
    max = Math.max(max, now);
  }
  return max;
}

export interface ConnectionsFigures {
  count: number;
  requestsPerConnectionPerCycle: number;
  cycleP95Ms: number;
  maxConcurrentPolls: number;
  costPerConnectionMonthUsd: number;
  details: {
    collectionsPerConnection: number;
    /** Requests per cycle of the connections without a change in that cycle. */
    idleRequestsPerConnectionPerCycle: number;
    changedConnectionsPerCycle: number;
    steadyCycles: number;
    warmUpCycleMs: number;
    cycleMs: number[];
    containers: number;
    batchSize: number;
    perCycle: Omit<
      MeasuredUsage,
      | 'connections'
      | 'dispatcherMemoryMb'
      | 'pollerMemoryMb'
      | 'metricsPerConnection'
      | 'metricsShared'
      | 'storedBytes'
      | 'secretsPerConnection'
    > & {
      dynamoDbRequests: number;
      sendBatches: number;
      receives: number;
      deletes: number;
    };
    memoryMb: { dispatcher: number; poller: number };
    metrics: { perConnection: number; shared: number };
    storedBytesPerConnection: number;
    cost: CostLine[];
    costWithoutPerConnectionMetricsUsd: number;
    peakRssMb: number;
    seconds: number;
    cpus: number;
  };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Metrics with a `connection` dimension, per connection; the others are shared by all. */
function metricCounts(series: readonly string[], count: number) {
  const perConnection = series.filter((s) => s.includes('"connection"')).length;
  return { perConnection: perConnection / count, shared: series.length - perConnection };
}

function figuresOf(
  o: ConnectionsBenchOptions,
  cycles: CycleUsage[],
  extra: { series: string[]; storedBytes: number; seconds: number },
): ConnectionsFigures {
  const [warmUp, ...steady] = cycles as [CycleUsage, ...CycleUsage[]];
  const avg = (pick: (c: CycleUsage) => number) => mean(steady.map(pick));
  const allRequests = steady.flatMap((c) => [...c.requests.values()]);
  const idleRequests = steady.flatMap((c) =>
    [...c.requests].filter(([n]) => !c.changed.has(n)).map(([, r]) => r),
  );
  const { pollerMemoryMb } = infra;
  const metrics = metricCounts(extra.series, o.count);
  const perCycle = {
    dispatcherInvocations: 1,
    pollerInvocations: avg((c) => c.pollerInvocations),
    dispatcherBilledMs: avg((c) => c.dispatcherBilledMs),
    pollerBilledMs: avg((c) => c.pollerBilledMs),
    schedulerInvocations: 1,
    putEventsEntries: avg((c) => c.putEventsEntries),
    dynamoDbReadUnits: avg((c) => c.readUnits),
    dynamoDbWriteUnits: avg((c) => c.writeUnits),
    dynamoDbRequests: avg((c) => c.dynamoDbRequests),
    sendBatches: avg((c) => c.sendBatches),
    receives: avg((c) => c.receives),
    deletes: avg((c) => c.deletes),
    sqsRequests: avg((c) => c.sendBatches + c.receives + c.deletes),
    secretReads: avg((c) => c.secretReads),
    logBytes: avg((c) => c.logBytes),
  };
  const usage: MeasuredUsage = {
    ...perCycle,
    connections: o.count,
    dispatcherMemoryMb: DISPATCHER_MEMORY_MB,
    pollerMemoryMb,
    metricsPerConnection: metrics.perConnection,
    metricsShared: metrics.shared,
    storedBytes: extra.storedBytes,
    secretsPerConnection: 1,
  };
  const cost = costPerConnectionMonth(usage);
  const withoutMetrics = costPerConnectionMonth({ ...usage, metricsPerConnection: 0 });
  const r = (n: number) => round(n, 2);
  return {
    count: o.count,
    requestsPerConnectionPerCycle: round(mean(allRequests), 3),
    cycleP95Ms: Math.round(
      percentile(
        steady.map((c) => c.ms),
        95,
      ),
    ),
    maxConcurrentPolls: 0, // set by the caller from the poll records
    costPerConnectionMonthUsd: round(cost.totalUsd, 4),
    details: {
      collectionsPerConnection: defaultPolledCollectionsFor('sk').length,
      idleRequestsPerConnectionPerCycle: round(mean(idleRequests), 3),
      changedConnectionsPerCycle: avg((c) => c.changed.size),
      steadyCycles: steady.length,
      warmUpCycleMs: Math.round(warmUp.ms),
      cycleMs: steady.map((c) => Math.round(c.ms)),
      containers: o.containers,
      batchSize: o.batchSize,
      perCycle: Object.fromEntries(Object.entries(perCycle).map(([k, v]) => [k, r(v)])) as typeof perCycle,
      memoryMb: { dispatcher: DISPATCHER_MEMORY_MB, poller: pollerMemoryMb },
      metrics: { perConnection: r(metrics.perConnection), shared: metrics.shared },
      storedBytesPerConnection: Math.round(extra.storedBytes / o.count),
      cost: cost.lines.map((l) => ({ ...l, usd: round(l.usd, 5) })),
      costWithoutPerConnectionMetricsUsd: round(withoutMetrics.totalUsd, 4),
      peakRssMb: round(process.resourceUsage().maxRSS / 1024, 1),
      seconds: r(extra.seconds),
      cpus: availableParallelism(),
    },
  };
}

/** Runs the scenario; the figures, and every poll for the checks of the accounting. */
export async function measureConnections(
  options: Pick<ConnectionsBenchOptions, 'count' | 'steadyCycles'> & Partial<ConnectionsBenchOptions>,
): Promise<{
  figures: ConnectionsFigures;
  polls: PollRecord[];
  requests: Array<Map<string, number>>;
  changed: Array<Set<string>>;
}> {
  const o: ConnectionsBenchOptions = { ...DEFAULT_OPTIONS, ...options };
  const log = o.log ?? (() => {});
  const began = performance.now();
  const d = await startDeployment(o);
  try {
    const startMs = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    const polls: PollRecord[] = [];
    const cycles: CycleUsage[] = [];
    for (let cycle = 0; cycle <= o.steadyCycles; cycle++) {
      const usage = await runCycle(d, o, cycle, startMs, polls);
      cycles.push(usage);
      log(
        `connections: cycle ${cycle}${cycle === 0 ? ' (warm-up backfill)' : ''} ${Math.round(usage.ms)} ms, ${usage.pollerInvocations} invocations, ${[...usage.requests.values()].reduce((a, b) => a + b, 0)} requests, ${usage.changed.size} changed, RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`,
      );
    }
    if (d.logger.errors.length > 0) {
      throw new Error(`the functions logged errors: ${JSON.stringify(d.logger.errors.slice(0, 3))}`);
    }
    const figures = figuresOf(o, cycles, {
      series: d.metrics.series(),
      storedBytes: await d.storedBytes(),
      seconds: (performance.now() - began) / 1000,
    });
    figures.maxConcurrentPolls = maxConcurrent(polls);
    return { figures, polls, requests: cycles.map((c) => c.requests), changed: cycles.map((c) => c.changed) };
  } finally {
    await d.close();
  }
}
