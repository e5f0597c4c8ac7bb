/**
 * The scale benchmark of many connections, run as Lambda runs the poller: N simulated companies
 * (the sandbox's `--companies`, in a process of its own, over TLS), each a connection in the
 * DynamoDB registry, polled every minute by the poller of shards — one schedule per shard of about
 * 100 connections invokes the poller handler (`pollShardCycle`). Every schedule fires in the same
 * second, so each invocation of a cycle lands on its own container of a warm pool, drawn at random
 * (`containerAffinity: false`), a stated share of them on a new one (`coldStartRate`). The sandbox
 * answers every request after an injected latency (150 ms + up to 100 ms). Two warm-up cycles
 * (the first backfill) and the settle cycle at minute 8 (every collection's one-time settled
 * checkpoint) are left out; then the steady cycles a minute apart, each after changes in 1 % of
 * the companies at random moments of the minute before; then a tail cycle whose writes are the
 * settle writes the steady changes owe (folded in). Each invocation starts at the cycle's minute
 * (the clock is set there; everything in it runs in real time; the invocations one after another,
 * each with the machine to itself as each Lambda invocation has its CPU). Counted per cycle:
 * requests, invocations and their billed durations (connections-billing.ts: CPU + modelled wait),
 * PutEvents entries, DynamoDB units, credential-store calls and KMS decryptions, log bytes, bytes on
 * the wire and TLS handshakes, change → event latency. `costPerConnectionMonthUsd` prices them
 * (connections-cost.ts, prices.ts).
 *
 * `tsx bench/connections-child.ts [--count N] [--cycles N]` prints the figures as one JSON line (what
 * `npm run bench` runs in a child process, for a clean peak RSS).
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { defaultPolledCollectionsFor } from '../functions/accounting/collections.js';
import { defaultMaxClients, SHARD_DEFAULTS } from '../functions/handlers/connections-config.js';
import { pollShardCycle } from '../functions/handlers/poll-connections.js';
import { ENV } from '../functions/shared/env-names.js';
import { pollerSharedReads } from '../functions/wiring/connection-clients.js';
import { loadPollerSettings } from '../functions/wiring/poller-config.js';
import { defaultInfraConfig } from '../infra/config/load.js';
import { billedMs, platformLogBytes } from './connections-billing.js';
import { type CostLine, costPerConnectionMonth, type MeasuredUsage } from './connections-cost.js';
import {
  type Container,
  type CredentialsForm,
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
  /** Each shard on its own container (false: each invocation on a container drawn at random, as on Lambda). */
  containerAffinity: boolean;
  /** Share of the invocations that land on a new container (a cold start). */
  coldStartRate: number;
  /** The sandbox over TLS (the poller's process must trust its certificate: `NODE_EXTRA_CA_CERTS`). */
  tls?: { key: string; cert: string };
  /** Seed of the draws (containers, cold starts, moments of the changes). */
  seed: number;
  /** The poller's payment lists (`POLLER_PAYMENTS`, on by default as deployed): off to price them by difference. */
  payments: boolean;
  /** How the connections' credentials are stored: sealed in the entries (default), or an SSM parameter each. */
  credentials: CredentialsForm;
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
  containerAffinity: false,
  coldStartRate: 0.01,
  seed: 37,
  payments: true,
  credentials: 'sealed',
};

/** Cycles left out before the steady ones: the first backfill, and the rest of it past each connection's budget. */
export const WARM_UP_CYCLES = 2;
/**
 * The minute of the settle cycle after the warm-up: a collection's checkpoint is written once more
 * when a whole window started a lookback (5 minutes) after its watermark last moved. The idle
 * minutes before it are skipped (nothing happens in them but idle polls); it is left out too.
 */
const SETTLE_MINUTE = WARM_UP_CYCLES + 6;
/** The settle cycle after the steady ones: the writes the steady cycles' changes still owe. */
const TAIL_SETTLE_MINUTES = 6;

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
  /** Wall ms of the invocations here (to check the billing model on a quiet machine). */
  pollerWallMs: number;
  pollerCpuMs: number;
  /** Billed ms of each invocation (one per shard). */
  invocationMs: number[];
  coldStarts: number;
  /** Invocations whose container had not polled the shard last. */
  containerChanges: number;
  putEventsEntries: number;
  readUnits: number;
  writeUnits: number;
  dynamoDbRequests: number;
  credentialCalls: number;
  credentialDecrypts: number;
  logBytes: number;
  platformLogBytes: number;
  egressBytes: number;
  ingressBytes: number;
  tlsHandshakes: number;
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
  };
}

/** The poller function's environment for these options (only what differs from the deployed defaults). */
const pollerEnvOf = (o: Pick<ConnectionsBenchOptions, 'payments'>): Record<string, string> =>
  o.payments ? {} : { [ENV.pollerPayments]: 'false' };

/** A small seeded generator (mulberry32): the same draws run after run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the run keeps between cycles: the warm pool, who polled each shard last, the changes not yet seen. */
interface RunState {
  random: () => number;
  pool: Container[];
  lastHolder: Map<number, string>;
  /** Connection → when its change happened (sandbox clock), until its first event. */
  pending: Map<string, number>;
  /** Change → event on the bus (ms), per detected change of a steady cycle. */
  detections: number[];
  measuring: boolean;
}

/** The changes before a cycle, each at its own moment of the minute before (sandbox clock). */
async function churn(
  d: Deployment,
  cycle: number,
  scheduledMs: number,
  o: Pick<ConnectionsBenchOptions, 'count' | 'churn' | 'latency'>,
  state: RunState,
): Promise<Set<string>> {
  const { count, churn: fraction, latency } = o;
  const changes = Math.max(1, Math.round(count * fraction));
  const changed = new Set<string>();
  const moments = Array.from(
    { length: changes },
    () => scheduledMs - 60_000 + Math.floor(state.random() * 60_000),
  );
  moments.sort((a, b) => a - b);
  // The latency is the service's answer time to the pollers, not to the bench's own changes.
  await d.sandbox.setFaults({ latency: null });
  try {
    for (const [i, at] of moments.entries()) {
      const k = (((cycle * changes + i) * 7919) % count) + 1; // spread over the companies, cycle by cycle
      await d.setClock(at);
      const happened = await d.sandbox.change(k);
      changed.add(connectionName(k));
      if (!state.pending.has(connectionName(k))) state.pending.set(connectionName(k), happened);
    }
  } finally {
    await d.sandbox.setFaults({ latency: latency ? { ...latency } : null });
  }
  return changed;
}

/** The containers of a cycle's invocations: on Lambda they run at once, each on its own container. */
function drawContainers(d: Deployment, o: ConnectionsBenchOptions, state: RunState, shards: number) {
  if (state.pool.length === 0) state.pool = Array.from({ length: shards }, () => d.newContainer());
  const order = state.pool.map((_, i) => i);
  if (!o.containerAffinity) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(state.random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
  }
  return order.map((slot) => {
    if (state.random() >= o.coldStartRate) return { container: state.pool[slot] as Container, cold: false };
    const old = state.pool[slot] as Container;
    void old.close();
    const fresh = d.newContainer();
    state.pool[slot] = fresh;
    return { container: fresh, cold: true };
  });
}

/** One cycle: (changes,) every shard's schedule at the cycle's minute, their invocations side by side. */
async function runCycle(
  d: Deployment,
  o: ConnectionsBenchOptions,
  cycle: number,
  scheduledMs: number,
  withChanges: boolean,
  polls: PollRecord[],
  state: RunState,
): Promise<CycleUsage> {
  const changed = withChanges ? await churn(d, cycle, scheduledMs, o, state) : new Set<string>();
  const before = { ...counters(d), byCredential: await d.sandbox.requestCounts() };
  const timeoutMs = infra.pollerTimeoutSeconds * 1000;
  const scheduledTime = new Date(scheduledMs).toISOString();
  const shards = Math.ceil(o.count / o.shardSize);
  const { concurrency } = loadPollerSettings(pollerEnvOf(o));
  const collections = defaultPolledCollectionsFor('sk').length;
  const started = performance.now();
  const assigned = drawContainers(d, o, state, shards);
  // One shard after another, each from the cycle's minute: on AWS each invocation has a CPU of its
  // own and they run side by side; here they would share two cores with the sandbox and dynalite.
  const usage = { invocationMs: [] as number[], wallMs: 0, cpuMs: 0, cold: 0, changes: 0, platform: 0 };
  const wireBefore = await d.sandbox.wire();
  for (const [shard, { container, cold }] of assigned.entries()) {
    const calls = d.ssm.calls;
    await d.setClock(scheduledMs);
    const wire = await d.sandbox.wire();
    const cpu = process.cpuUsage();
    const began = performance.now();
    const out = await pollShardCycle(container.deps, { shard, shards, scheduledTime }, contextFor(timeoutMs));
    const wallMs = performance.now() - began;
    const used = process.cpuUsage(cpu);
    const handshakes = (await d.sandbox.wire()).tlsHandshakes - wire.tlsHandshakes;
    if (!out.leased) throw new Error(`shard ${shard} of ${shards} found its lease held`);
    const changedHolder = state.lastHolder.get(shard) !== container.name;
    state.lastHolder.set(shard, container.name);
    for (const p of out.outcomes) {
      polls.push({
        cycle,
        connection: p.connection,
        status: p.status,
        startMs: scheduledMs,
        endMs: scheduledMs + p.durationMs,
      });
    }
    const billed = billedMs(
      {
        cpuMs: (used.user + used.system) / 1000,
        connections: out.outcomes.map((p) => ({ requests: p.requests, published: p.published })),
        checkpointReads: changedHolder,
        credentialCalls: d.ssm.calls - calls,
        tlsHandshakes: handshakes,
        sockets: pollerSharedReads(SHARD_DEFAULTS.parallel, concurrency).connections,
      },
      o.latency,
      concurrency,
      collections,
    );
    usage.invocationMs.push(billed.billedMs);
    usage.wallMs += wallMs;
    usage.cpuMs += (used.user + used.system) / 1000;
    usage.cold += cold ? 1 : 0;
    usage.changes += changedHolder ? 1 : 0;
    usage.platform += platformLogBytes(cold);
  }
  const wireAfter = await d.sandbox.wire();
  const wallMs = performance.now() - started;
  const after = { ...counters(d), byCredential: await d.sandbox.requestCounts() };
  const requests = new Map<string, number>();
  for (let k = 1; k <= o.count; k++) {
    const key = credentialOf(k);
    requests.set(connectionName(k), (after.byCredential[key] ?? 0) - (before.byCredential[key] ?? 0));
  }
  const delta = (name: Exclude<keyof typeof before, 'byCredential'>) => after[name] - before[name];
  return {
    ms: Math.max(...usage.invocationMs),
    wallMs,
    changed,
    requests,
    pollerInvocations: shards,
    pollerBilledMs: usage.invocationMs.reduce((a, b) => a + b, 0),
    pollerWallMs: usage.wallMs,
    pollerCpuMs: usage.cpuMs,
    invocationMs: usage.invocationMs,
    coldStarts: usage.cold,
    containerChanges: usage.changes,
    putEventsEntries: delta('putEventsEntries'),
    readUnits: delta('readUnits'),
    writeUnits: delta('writeUnits'),
    dynamoDbRequests: delta('dynamoDbRequests'),
    credentialCalls: delta('credentialCalls'),
    credentialDecrypts: delta('credentialDecrypts'),
    logBytes: delta('logBytes'),
    platformLogBytes: usage.platform,
    egressBytes: wireAfter.bytesIn - wireBefore.bytesIn,
    ingressBytes: wireAfter.bytesOut - wireBefore.bytesOut,
    tlsHandshakes: wireAfter.tlsHandshakes - wireBefore.tlsHandshakes,
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
    containerAffinity: boolean;
    coldStartRate: number;
    tls: boolean;
    /** How the connections' credentials were stored. */
    credentials: CredentialsForm;
    /** Prices: region and the month they were taken. */
    region: string;
    pricesAsOf: string;
    /** Change in the service → its first event on the bus, at the 1-minute cadence (ms). */
    detection: { changes: number; detected: number; p50Ms: number; p95Ms: number; maxMs: number };
    warmUpCycleMs: number;
    cycleMs: number[];
    /** The steady cycles as run here, the shards one after another. */
    wallCycleMs: number[];
    shards: number;
    shardSize: number;
    /** The service's injected answer time per request. */
    latency: typeof INJECTED_LATENCY | null;
    perCycle: { [figure: string]: number | Record<string, number> } & {
      pollerInvocations: number;
      dynamoDbWriteUnits: number;
      credentialCalls: number;
      sqsRequests: 0;
      perConnection: Record<string, number>;
      invocationBilledMs: { p50: number; p95: number; max: number };
    };
    /** The billing model (CPU + modelled wait) against wall time here, summed over the steady invocations. */
    billingCheck: { billedMs: number; cpuMs: number; wallMs: number; loadAverage: number[] };
    /** Steady-state writes the steady cycles' changes still owed (their settle writes), folded in per cycle. */
    settleWriteUnitsPerCycle: number;
    memoryMb: { poller: number };
    metrics: { perConnection: number; shared: number };
    storedBytesPerConnection: number;
    cost: CostLine[];
    costWithPerConnectionMetricsUsd: number;
    /** Collections whose request failed on the network in the whole run (read again next cycle). */
    transientCollectionFailures: number;
    peakRssMb: number;
    seconds: number;
    cpus: number;
    /** Load average (1, 5, 15 min) at the start and the end of the run. */
    loadAverage: { start: number[]; end: number[] };
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

/** The poller bundle's cold import (`npm run bench`'s bundles scenario): the billed INIT of a cold start. */
async function initMs(): Promise<number> {
  try {
    const latest = JSON.parse(await readFile(new URL('./results/latest.json', import.meta.url), 'utf8')) as {
      bundles?: Array<{ name: string; coldImportMs: number }>;
    };
    const b = latest.bundles?.find((x) => x.name === 'poll-connections');
    if (b) return b.coldImportMs;
  } catch {
    // no results yet: the figure below
  }
  return 650;
}

function figuresOf(
  o: ConnectionsBenchOptions,
  warmUp: CycleUsage,
  steady: CycleUsage[],
  tail: CycleUsage,
  extra: {
    series: string[];
    storedBytes: number;
    seconds: number;
    transientFailures: number;
    initMs: number;
    detections: number[];
    changes: number;
    loadStart: number[];
  },
): ConnectionsFigures {
  const avg = (pick: (c: CycleUsage) => number) => mean(steady.map(pick));
  const allRequests = steady.flatMap((c) => [...c.requests.values()]);
  const idleRequests = steady.flatMap((c) =>
    [...c.requests].filter(([n]) => !c.changed.has(n)).map(([, r]) => r),
  );
  const { pollerMemoryMb } = infra;
  const metrics = metricCounts(extra.series, o.count);
  const invocations = steady.flatMap((c) => c.invocationMs);
  const r = (n: number) => round(n, 2);
  // The tail cycle polls without changes: its writes beyond the leases' (two a shard) are the
  // settle writes the steady cycles' changes owe, spread over those cycles.
  const settle = Math.max(0, tail.writeUnits - 2 * tail.pollerInvocations) / steady.length;
  const perCycle = {
    pollerInvocations: avg((c) => c.pollerInvocations),
    pollerBilledMs: avg((c) => c.pollerBilledMs),
    initBilledMs: avg((c) => c.coldStarts) * extra.initMs,
    coldStarts: avg((c) => c.coldStarts),
    containerChanges: avg((c) => c.containerChanges),
    schedulerInvocations: avg((c) => c.pollerInvocations),
    putEventsEntries: avg((c) => c.putEventsEntries),
    dynamoDbReadUnits: avg((c) => c.readUnits),
    dynamoDbWriteUnits: avg((c) => c.writeUnits) + settle,
    dynamoDbRequests: avg((c) => c.dynamoDbRequests),
    credentialCalls: avg((c) => c.credentialCalls),
    credentialDecrypts: avg((c) => c.credentialDecrypts),
    logBytes: avg((c) => c.logBytes),
    platformLogBytes: avg((c) => c.platformLogBytes),
    egressBytes: avg((c) => c.egressBytes),
    ingressBytes: avg((c) => c.ingressBytes),
    tlsHandshakes: avg((c) => c.tlsHandshakes),
  };
  const usage: MeasuredUsage = {
    connections: o.count,
    collectionsPerConnection: defaultPolledCollectionsFor('sk').length,
    pollerInvocations: perCycle.pollerInvocations,
    pollerBilledMs: perCycle.pollerBilledMs,
    initBilledMs: perCycle.initBilledMs,
    pollerMemoryMb,
    schedulerInvocations: perCycle.schedulerInvocations,
    putEventsEntries: perCycle.putEventsEntries,
    dynamoDbReadUnits: perCycle.dynamoDbReadUnits,
    dynamoDbWriteUnits: perCycle.dynamoDbWriteUnits,
    credentialCalls: perCycle.credentialCalls,
    credentialDecrypts: perCycle.credentialDecrypts,
    // The cycle's invocations start in the same second: their credential reads land in it.
    credentialCallsPeakPerSecond: Math.max(...steady.map((c) => c.credentialCalls)),
    logBytes: perCycle.logBytes,
    platformLogBytes: perCycle.platformLogBytes,
    egressBytes: perCycle.egressBytes,
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
  const det = extra.detections;
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
      collectionsPerConnection: usage.collectionsPerConnection,
      idleRequestsPerConnectionPerCycle: round(mean(idleRequests), 3),
      changedConnectionsPerCycle: avg((c) => c.changed.size),
      steadyCycles: steady.length,
      containerAffinity: o.containerAffinity,
      coldStartRate: o.coldStartRate,
      tls: o.tls !== undefined,
      credentials: o.credentials,
      region: cost.region,
      pricesAsOf: cost.pricesAsOf,
      detection: {
        changes: extra.changes,
        detected: det.length,
        p50Ms: det.length ? Math.round(percentile(det, 50)) : 0,
        p95Ms: det.length ? Math.round(percentile(det, 95)) : 0,
        maxMs: det.length ? Math.max(...det) : 0,
      },
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
          credentialDecrypts: per(perCycle.credentialDecrypts),
          logBytes: per(perCycle.logBytes),
          egressBytes: per(perCycle.egressBytes),
          tlsHandshakes: per(perCycle.tlsHandshakes),
        },
        invocationBilledMs: {
          p50: Math.round(percentile(invocations, 50)),
          p95: Math.round(percentile(invocations, 95)),
          max: Math.max(...invocations),
        },
        sqsRequests: 0,
      },
      billingCheck: {
        billedMs: Math.round(steady.reduce((n, c) => n + c.pollerBilledMs, 0)),
        cpuMs: Math.round(steady.reduce((n, c) => n + c.pollerCpuMs, 0)),
        wallMs: Math.round(steady.reduce((n, c) => n + c.pollerWallMs, 0)),
        loadAverage: loadavg().map((x) => r(x)),
      },
      settleWriteUnitsPerCycle: r(settle),
      memoryMb: { poller: pollerMemoryMb },
      metrics: { perConnection: r(metrics.perConnection), shared: metrics.shared },
      storedBytesPerConnection: Math.round(extra.storedBytes / o.count),
      cost: cost.lines.map((l) => ({ ...l, usd: round(l.usd, 5) })),
      costWithPerConnectionMetricsUsd: round(withMetrics.totalUsd, 4),
      transientCollectionFailures: extra.transientFailures,
      peakRssMb: round(process.resourceUsage().maxRSS / 1024, 1),
      seconds: r(extra.seconds),
      cpus: availableParallelism(),
      loadAverage: { start: extra.loadStart, end: loadavg().map((x) => r(x)) },
    },
  };
}

/** Runs the scenario; the figures, and every poll for the checks of the accounting. */
export async function measureConnections(
  options: Pick<ConnectionsBenchOptions, 'count' | 'steadyCycles'> & Partial<ConnectionsBenchOptions>,
): Promise<{
  figures: ConnectionsFigures;
  polls: PollRecord[];
  /** Per cycle (warm-up, settle, steady…, tail): requests per connection, connections changed. */
  requests: Array<Map<string, number>>;
  changed: Array<Set<string>>;
}> {
  const o: ConnectionsBenchOptions = { ...DEFAULT_OPTIONS, ...options };
  const log = o.log ?? (() => {});
  const began = performance.now();
  const loadStart = loadavg().map((x) => round(x, 2));
  const state: RunState = {
    random: seededRandom(o.seed),
    pool: [],
    lastHolder: new Map(),
    pending: new Map(),
    detections: [],
    measuring: false,
  };
  const d = await startDeployment({
    count: o.count,
    shards: Math.ceil(o.count / o.shardSize),
    perConnectionMetrics: o.perConnectionMetrics,
    latency: o.latency,
    maxClients: defaultMaxClients(SHARD_DEFAULTS.parallel),
    pollerEnv: pollerEnvOf(o),
    credentials: o.credentials,
    ...(o.tls ? { tls: o.tls } : {}),
    onPublished: (events, atMs) => {
      for (const e of events) {
        const connection = (e.detail as { connection?: string }).connection;
        const at = connection === undefined ? undefined : state.pending.get(connection);
        if (connection === undefined || at === undefined || atMs < at) continue;
        state.pending.delete(connection);
        if (state.measuring) state.detections.push(atMs - at);
      }
    },
  });
  try {
    const startMs = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    const polls: PollRecord[] = [];
    const cycles: CycleUsage[] = [];
    // Warm-up at minutes 0 and 1, the settle cycle, the steady cycles a minute apart, the tail.
    const minutes = [
      ...Array.from({ length: WARM_UP_CYCLES }, (_, i) => i),
      SETTLE_MINUTE,
      ...Array.from({ length: o.steadyCycles }, (_, i) => SETTLE_MINUTE + 1 + i),
    ];
    minutes.push((minutes.at(-1) as number) + TAIL_SETTLE_MINUTES);
    let changes = 0;
    for (const [cycle, minute] of minutes.entries()) {
      const steady = cycle > WARM_UP_CYCLES && cycle < minutes.length - 1;
      state.measuring = steady;
      const usage = await runCycle(d, o, cycle, startMs + minute * 60_000, steady, polls, state);
      if (steady) changes += usage.changed.size;
      cycles.push(usage);
      const kind =
        cycle < WARM_UP_CYCLES
          ? ' (warm-up backfill)'
          : cycle === WARM_UP_CYCLES
            ? ' (settle)'
            : steady
              ? ''
              : ' (tail settle)';
      log(
        `connections: cycle ${cycle}${kind} at minute ${minute}: ${Math.round(usage.ms)} ms billed (longest invocation; ${Math.round(usage.wallMs)} ms here, shards in turn), ${usage.pollerInvocations} invocations (${usage.coldStarts} cold, ${usage.containerChanges} on another container), ${[...usage.requests.values()].reduce((a, b) => a + b, 0)} requests, ${usage.tlsHandshakes} TLS handshakes, ${usage.changed.size} changed, ${usage.writeUnits} WRU, load ${loadavg()[0]?.toFixed(2)}, RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`,
      );
    }
    // A collection (or payment list) whose request broke or timed out (a socket the sandbox closed
    // under it, or a starved machine) is reported and read again on the next cycle, as on AWS: counted, not
    // fatal. Any other error fails the run.
    const transient = (e: { message: string; data?: unknown }) =>
      ['collection poll failed', 'payment poll failed'].includes(e.message) &&
      ['ConnectionError', 'TimeoutError'].includes(
        (e.data as { error?: { name?: string } } | undefined)?.error?.name ?? '',
      );
    const fatal = d.logger.errors.filter((e) => !transient(e as { message: string; data?: unknown }));
    if (fatal.length > 0) {
      throw new Error(`the functions logged errors: ${JSON.stringify(fatal.slice(0, 3))}`);
    }
    const figures = figuresOf(
      o,
      cycles[0] as CycleUsage,
      cycles.slice(WARM_UP_CYCLES + 1, -1),
      cycles.at(-1) as CycleUsage,
      {
        transientFailures: d.logger.errors.length - fatal.length,
        series: d.metrics.series(),
        storedBytes: await d.storedBytes(),
        seconds: (performance.now() - began) / 1000,
        initMs: await initMs(),
        detections: state.detections,
        changes,
        loadStart,
      },
    );
    figures.maxConcurrentPolls = maxConcurrent(polls);
    return { figures, polls, requests: cycles.map((c) => c.requests), changed: cycles.map((c) => c.changed) };
  } finally {
    await d.close();
  }
}
