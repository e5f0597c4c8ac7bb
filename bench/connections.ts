/**
 * The scale benchmark of many connections: N simulated companies (the sandbox's `--companies`),
 * each a connection in the DynamoDB registry, polled every minute by the poller of shards — one
 * schedule per shard of about 100 connections invokes the poller handler (`pollShardCycle`), which
 * takes the shard's lease, scans its registry segment and polls its due connections side by side.
 * The sandbox answers every request after an injected latency (150 ms + up to 100 ms), since the
 * billed time of a poller on AWS is mostly waiting on the service. Two warm-up cycles (the first
 * backfill, and what each connection's budget left of it) are left out; then each steady cycle starts at its minute (the clock jumps there;
 * everything in it runs in real time; the shards' invocations one after another, each with the
 * machine to itself as each Lambda invocation has its CPU, the cycle as long as the longest), a small fraction of the companies get a change first (the sandbox's admin activity API),
 * and the cycle's requests, invocations and their billed durations, PutEvents entries, DynamoDB
 * units, credential-store calls, log bytes and metrics are counted. `costPerConnectionMonthUsd`
 * prices them (connections-cost.ts).
 *
 * `tsx bench/connections-child.ts [--count N] [--cycles N]` prints the figures as one JSON line (what
 * `npm run bench` runs in a child process, for a clean peak RSS).
 */
import { availableParallelism } from 'node:os';
import { defaultPolledCollectionsFor } from '../functions/accounting/collections.js';
import { pollShardCycle } from '../functions/handlers/poll-connections.js';
import { defaultInfraConfig } from '../infra/config/load.js';
import {
  type CostLine,
  costPerConnectionMonth,
  type MeasuredUsage,
  simulateCost,
} from './connections-cost.js';
import {
  connectionName,
  credentialOf,
  type Deployment,
  INJECTED_LATENCY,
  startDeployment,
} from './connections-deployment.js';
import { percentile, round } from './stats.js';

export interface ConnectionsBenchOptions {
  count: number;
  steadyCycles: number;
  /** Fraction of the companies changed before each steady cycle (at least one). */
  churn: number;
  /** Connections per shard (the deployment's `connectionPollerShards` = count / this, rounded up). */
  shardSize: number;
  perConnectionMetrics: boolean;
  latency: typeof INJECTED_LATENCY | null;
  log?: (line: string) => void;
}

// The deployment measured here: the connection registry (each entry names its own service URL).
const infra = defaultInfraConfig({ connectionRegistry: true });
/** The deployed defaults: shards of about 100 connections, no metrics per connection, the latency. */
export const DEFAULT_OPTIONS: Omit<ConnectionsBenchOptions, 'count' | 'steadyCycles'> = {
  churn: 0.01,
  shardSize: 100,
  perConnectionMetrics: infra.perConnectionMetrics,
  latency: INJECTED_LATENCY,
};

/** Cycles left out before the steady ones: the first backfill, and the rest of it past each connection's budget. */
export const WARM_UP_CYCLES = 2;

/** One connection's poll, as the poller handler reported it. */
export interface PollRecord {
  cycle: number;
  connection: string;
  status: string;
  startMs: number;
  endMs: number;
}

interface CycleUsage {
  /** The cycle as on AWS: its longest invocation (the shards' invocations run side by side there). */
  ms: number;
  /** The cycle here, the shards one after another. */
  wallMs: number;
  changed: Set<string>;
  requests: Map<string, number>;
  pollerInvocations: number;
  pollerBilledMs: number;
  /** Billed ms of each invocation (one per shard). */
  invocationMs: number[];
  putEventsEntries: number;
  readUnits: number;
  writeUnits: number;
  dynamoDbRequests: number;
  credentialCalls: number;
  credentialDecrypts: number;
  logBytes: number;
}

/** A Lambda context of `timeoutMs` started now. */
function contextFor(timeoutMs: number) {
  const started = performance.now();
  return {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(timeoutMs - (performance.now() - started))),
  };
}

function counters(d: Deployment) {
  return {
    putEventsEntries: d.publisher.billedEntries,
    readUnits: d.dynamoDb.readUnits,
    writeUnits: d.dynamoDb.writeUnits,
    dynamoDbRequests: d.dynamoDb.requests,
    credentialCalls: d.ssm.calls,
    credentialDecrypts: d.ssm.parameters,
    logBytes: d.logger.bytes + d.metrics.emfBytes,
    byCredential: { ...d.sandbox.requestCounts().byCredential },
  };
}

async function churn(
  d: Deployment,
  cycle: number,
  o: Pick<ConnectionsBenchOptions, 'count' | 'churn' | 'latency'>,
): Promise<Set<string>> {
  const { count, churn: fraction, latency } = o;
  const changes = Math.max(1, Math.round(count * fraction));
  const changed = new Set<string>();
  // The latency is the service's answer time to the pollers, not to the bench's own changes.
  d.sandbox.setFaults({ latency: null });
  try {
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
  } finally {
    d.sandbox.setFaults({ latency: latency ? { ...latency } : null });
  }
  return changed;
}

/** One cycle: (changes,) every shard's schedule at the cycle's minute, their invocations side by side. */
async function runCycle(
  d: Deployment,
  o: ConnectionsBenchOptions,
  cycle: number,
  startMs: number,
  polls: PollRecord[],
): Promise<CycleUsage> {
  const scheduledMs = startMs + cycle * 60_000;
  d.clock.jumpTo(scheduledMs);
  const changed = cycle === 0 ? new Set<string>() : await churn(d, cycle, o);
  const before = counters(d);
  const timeoutMs = infra.pollerTimeoutSeconds * 1000;
  const scheduledTime = new Date(scheduledMs).toISOString();
  const shards = d.containers.length;
  const started = performance.now();
  // One shard after another: on AWS each invocation has a CPU of its own and they run side by side;
  // here they would share two cores with the sandbox and dynalite. The cycle on AWS lasts as long
  // as its longest invocation (`ms` below); the billed time is each invocation's own.
  const invocationMs: number[] = [];
  for (const [shard, c] of d.containers.entries()) {
    invocationMs.push(
      await (async () => {
        const began = performance.now();
        const startClock = d.clock.now().getTime();
        const out = await pollShardCycle(c.deps, { shard, shards, scheduledTime }, contextFor(timeoutMs));
        if (!out.leased) throw new Error(`shard ${shard} of ${shards} found its lease held`);
        for (const p of out.outcomes) {
          polls.push({
            cycle,
            connection: p.connection,
            status: p.status,
            // Side by side in one invocation: each connection's poll from the invocation's start.
            startMs: startClock,
            endMs: startClock + p.durationMs,
          });
        }
        return Math.ceil(performance.now() - began);
      })(),
    );
  }
  const wallMs = performance.now() - started;
  const ms = Math.max(...invocationMs);
  const after = counters(d);
  const requests = new Map<string, number>();
  for (let k = 1; k <= o.count; k++) {
    const key = credentialOf(k);
    requests.set(connectionName(k), (after.byCredential[key] ?? 0) - (before.byCredential[key] ?? 0));
  }
  const delta = (name: Exclude<keyof typeof before, 'byCredential'>) => after[name] - before[name];
  return {
    ms,
    wallMs,
    changed,
    requests,
    pollerInvocations: shards,
    pollerBilledMs: invocationMs.reduce((a, b) => a + b, 0),
    invocationMs,
    putEventsEntries: delta('putEventsEntries'),
    readUnits: delta('readUnits'),
    writeUnits: delta('writeUnits'),
    dynamoDbRequests: delta('dynamoDbRequests'),
    credentialCalls: delta('credentialCalls'),
    credentialDecrypts: delta('credentialDecrypts'),
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
    /** The steady cycles as run here, the shards one after another. */
    wallCycleMs: number[];
    shards: number;
    shardSize: number;
    /** The service's injected answer time per request. */
    latency: typeof INJECTED_LATENCY | null;
    perCycle: Omit<
      MeasuredUsage,
      'connections' | 'pollerMemoryMb' | 'metricsPerConnection' | 'metricsShared' | 'storedBytes'
    > & {
      dynamoDbRequests: number;
      /** Per connection: DynamoDB read and write units, credential-store calls, log bytes. */
      perConnection: { readUnits: number; writeUnits: number; credentialCalls: number; logBytes: number };
      /** Billed ms of the invocations of a steady cycle (one per shard): p50, p95, max. */
      invocationBilledMs: { p50: number; p95: number; max: number };
      sqsRequests: 0;
    };
    memoryMb: { poller: number };
    metrics: { perConnection: number; shared: number };
    storedBytesPerConnection: number;
    cost: CostLine[];
    costWithPerConnectionMetricsUsd: number;
    /** Collections whose request failed on the network in the whole run (read again next cycle). */
    transientCollectionFailures: number;
    /** 10,000 connections simulated from this run (`simulateCost`: per-connection and per-shard counts × 10). */
    simulated10000: { costPerConnectionMonthUsd: number; shards: number; cycleP95Ms: number };
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

/** The four metrics per connection `POLLER_CONNECTION_METRICS=true` adds. */
const OPT_IN_METRICS_PER_CONNECTION = 4;

function figuresOf(
  o: ConnectionsBenchOptions,
  cycles: CycleUsage[],
  extra: { series: string[]; storedBytes: number; seconds: number; transientFailures: number },
): ConnectionsFigures {
  const [warmUp, ...afterWarmUp] = cycles as [CycleUsage, ...CycleUsage[]];
  // The backfill may take more than one cycle (each connection stops at its budget): those cycles
  // are left out too.
  const steady = afterWarmUp.slice(WARM_UP_CYCLES - 1);
  const avg = (pick: (c: CycleUsage) => number) => mean(steady.map(pick));
  const allRequests = steady.flatMap((c) => [...c.requests.values()]);
  const idleRequests = steady.flatMap((c) =>
    [...c.requests].filter(([n]) => !c.changed.has(n)).map(([, r]) => r),
  );
  const { pollerMemoryMb } = infra;
  const metrics = metricCounts(extra.series, o.count);
  const invocations = steady.flatMap((c) => c.invocationMs);
  const r = (n: number) => round(n, 2);
  const perCycle = {
    pollerInvocations: avg((c) => c.pollerInvocations),
    pollerBilledMs: avg((c) => c.pollerBilledMs),
    schedulerInvocations: avg((c) => c.pollerInvocations),
    putEventsEntries: avg((c) => c.putEventsEntries),
    dynamoDbReadUnits: avg((c) => c.readUnits),
    dynamoDbWriteUnits: avg((c) => c.writeUnits),
    dynamoDbRequests: avg((c) => c.dynamoDbRequests),
    credentialCalls: avg((c) => c.credentialCalls),
    credentialDecrypts: avg((c) => c.credentialDecrypts),
    logBytes: avg((c) => c.logBytes),
  };
  const usage: MeasuredUsage = {
    ...perCycle,
    connections: o.count,
    pollerMemoryMb,
    metricsPerConnection: metrics.perConnection,
    metricsShared: metrics.shared,
    storedBytes: extra.storedBytes,
  };
  const cost = costPerConnectionMonth(usage);
  const withMetrics = costPerConnectionMonth({
    ...usage,
    metricsPerConnection: Math.max(metrics.perConnection, OPT_IN_METRICS_PER_CONNECTION),
  });
  const per = (n: number) => round(n / o.count, 4);
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
      wallCycleMs: steady.map((c) => Math.round(c.wallMs)),
      shards: Math.ceil(o.count / o.shardSize),
      shardSize: o.shardSize,
      latency: o.latency,
      perCycle: {
        ...(Object.fromEntries(Object.entries(perCycle).map(([k, v]) => [k, r(v)])) as typeof perCycle),
        perConnection: {
          readUnits: per(perCycle.dynamoDbReadUnits),
          writeUnits: per(perCycle.dynamoDbWriteUnits),
          credentialCalls: per(perCycle.credentialCalls),
          logBytes: per(perCycle.logBytes),
        },
        invocationBilledMs: {
          p50: Math.round(percentile(invocations, 50)),
          p95: Math.round(percentile(invocations, 95)),
          max: Math.max(...invocations),
        },
        sqsRequests: 0,
      },
      memoryMb: { poller: pollerMemoryMb },
      metrics: { perConnection: r(metrics.perConnection), shared: metrics.shared },
      storedBytesPerConnection: Math.round(extra.storedBytes / o.count),
      cost: cost.lines.map((l) => ({ ...l, usd: round(l.usd, 5) })),
      costWithPerConnectionMetricsUsd: round(withMetrics.totalUsd, 4),
      transientCollectionFailures: extra.transientFailures,
      simulated10000: {
        costPerConnectionMonthUsd: round(simulateCost(usage, 10_000).totalUsd, 4),
        shards: Math.ceil(10_000 / o.shardSize),
        // Shards of the same size run side by side: the cycle is as long as at this count.
        cycleP95Ms: Math.round(
          percentile(
            steady.map((c) => c.ms),
            95,
          ),
        ),
      },
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
  const d = await startDeployment({
    count: o.count,
    shards: Math.ceil(o.count / o.shardSize),
    perConnectionMetrics: o.perConnectionMetrics,
    latency: o.latency,
  });
  try {
    const startMs = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    const polls: PollRecord[] = [];
    const cycles: CycleUsage[] = [];
    for (let cycle = 0; cycle < o.steadyCycles + WARM_UP_CYCLES; cycle++) {
      const usage = await runCycle(d, o, cycle, startMs, polls);
      cycles.push(usage);
      log(
        `connections: cycle ${cycle}${cycle < WARM_UP_CYCLES ? ' (warm-up backfill)' : ''} ${Math.round(usage.ms)} ms (longest invocation; ${Math.round(usage.wallMs)} ms here, shards in turn), ${usage.pollerInvocations} invocations, ${[...usage.requests.values()].reduce((a, b) => a + b, 0)} requests, ${usage.changed.size} changed, RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`,
      );
    }
    // A collection whose request broke (a socket the sandbox closed under it) is reported and read
    // again on the next cycle, as on AWS: counted, not fatal. Any other error fails the run.
    const transient = (e: { message: string; data?: unknown }) =>
      e.message === 'collection poll failed' &&
      (e.data as { error?: { name?: string } } | undefined)?.error?.name === 'ConnectionError';
    const fatal = d.logger.errors.filter((e) => !transient(e as { message: string; data?: unknown }));
    if (fatal.length > 0) {
      throw new Error(`the functions logged errors: ${JSON.stringify(fatal.slice(0, 3))}`);
    }
    const figures = figuresOf(o, cycles, {
      transientFailures: d.logger.errors.length - fatal.length,
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
