/**
 * What a default single-company deployment is billed for, counted from the synthesized templates
 * and from what the poller's code emits (docs/deploy.md quotes the printed counts): alarms and the
 * metrics they evaluate, the custom metrics the poller publishes with the environment the template
 * gives it (the real Powertools Metrics, its EMF documents read back from stdout), and the log
 * bytes and the checkpoint reads and writes of a poll without changes.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LambdaLogger } from '#functions/adapters/aws/lambda-logger.js';
import { createCheckpointCache } from '#functions/core/connections/checkpoint-cache.js';
import { createMemoryShardLease, type ShardLease } from '#functions/core/connections/shard.js';
import type { ShardCycle } from '#functions/core/connections/shard-cycle.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { createPowertoolsPollMetrics, pollMetricsOptionsFromEnv } from '#functions/handlers/poll-metrics.js';
import { reportShardCycle } from '#functions/handlers/shard-report.js';
import type { InfraConfigInput } from '#infra/config/schema.js';
import { SERVICE } from '#infra/constructs/metric-names.js';
import { scheduledPoll } from '../support/event-fixtures.js';
import { deployedPoller, POLLER_RESOURCES } from '../sync/deployed-poller.js';
import { setup } from '../sync/harness.js';
import { buildTestApp } from './support.js';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON of every shape
type Resource = { Type: string; Properties: Record<string, any> };

function resourcesOf(overrides: Partial<InfraConfigInput>) {
  const t = buildTestApp(overrides);
  return [
    ...Object.values(t.statefulTemplate.toJSON().Resources as Record<string, Resource>),
    ...Object.values(t.statelessTemplate.toJSON().Resources as Record<string, Resource>),
  ];
}

/** Alarms by name, and how many metrics each evaluates (CloudWatch bills an alarm per metric). */
function alarmsOf(resources: Resource[]) {
  return resources
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => {
      const p = r.Properties;
      const queries = (p.Metrics ?? []) as { MetricStat?: unknown; Expression?: string }[];
      return {
        name: String(p.AlarmName).replace(/^accounting-events-prod-/, ''),
        metrics: p.MetricName ? 1 : queries.filter((q) => q.MetricStat).length,
        insightsQueries: queries.filter((q) => q.Expression?.startsWith('SELECT')).length,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The poller function's environment in the template: its strings; the references and the sk service URL as placeholders. */
function pollerEnvironment(resources: Resource[]): Record<string, string> {
  const poller = resources.find(
    (r) =>
      r.Type === 'AWS::Lambda::Function' &&
      r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === SERVICE.poller,
  );
  const env = poller!.Properties.Environment.Variables as Record<string, unknown>;
  return {
    ...POLLER_RESOURCES,
    ...Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string')),
  };
}

/** The EMF metric sets (name and dimensions) of the captured output lines. */
function metricSetsOf(lines: readonly string[]): string[] {
  const sets = new Set<string>();
  for (const line of lines) {
    const doc = JSON.parse(line) as Record<string, unknown> & {
      _aws?: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    for (const set of doc._aws?.CloudWatchMetrics ?? []) {
      const dims = (set.Dimensions[0] ?? []).map((d) => `${d}=${doc[d]}`).join(',');
      for (const m of set.Metrics) sets.add(`${m.Name}{${dims}}`);
    }
  }
  return [...sets].sort();
}

/** Counts the checkpoint reads and writes (DynamoDB requests on AWS), the largest written, and the lease's writes. */
function countedStores(t: ReturnType<typeof setup>) {
  const io = { gets: 0, puts: 0, putBytes: 0, leaseWrites: 0 };
  const checkpoints = createCheckpointCache({
    get: (key) => {
      io.gets += 1;
      return t.deps.checkpoints.get(key);
    },
    put: (key, value, version) => {
      io.puts += 1;
      io.putBytes = Math.max(io.putBytes, Buffer.byteLength(JSON.stringify(value)));
      return t.deps.checkpoints.put(key, value, version);
    },
  });
  const memory = createMemoryShardLease();
  // On AWS each is one conditional write to the checkpoints table.
  const lease: ShardLease = {
    acquire: (...args) => {
      io.leaseWrites += 1;
      return memory.acquire(...args);
    },
    release: (...args) => {
      io.leaseWrites += 1;
      return memory.release(...args);
    },
  };
  return { io, checkpoints, lease };
}

/**
 * Runs the poller as deployed (`poll-connections`, its template environment: the registry of one,
 * the checkpoint cache of its container, the Lambda logger and Powertools Metrics) over two ticks of
 * one container and one tick of another; EMF and log output captured.
 */
async function pollerOutput(resources: Resource[]) {
  const env: Record<string, string> = {
    ...pollerEnvironment(resources),
    POLLER_RECONCILE_INTERVAL_SECONDS: '0',
  };
  const t = setup();
  for (let i = 0; i < 3; i++) t.service.create();
  const { io, checkpoints, lease } = countedStores(t);
  const writes: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
    writes.push(String(chunk));
    return write(chunk as string, ...(rest as []));
  });
  const container = (holder: string) => {
    const config = loadConnectionPollerConfig(env);
    const service = env.POWERTOOLS_SERVICE_NAME!;
    return deployedPoller(t, env, {
      lease,
      checkpoints,
      checkpointCache: checkpoints,
      holder,
      logger: new LambdaLogger({ service, level: config.logLevel }),
      perConnectionMetrics: config.perConnectionMetrics,
      metrics: createPowertoolsPollMetrics(
        new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE!, serviceName: service }),
        pollMetricsOptionsFromEnv(env),
      ),
    }).handler;
  };
  try {
    const handler = container('container-a');
    const context = { getRemainingTimeInMillis: () => 600_000 };
    const first = await handler(scheduledPoll(), context);
    const firstWrites = writes.length;
    Object.assign(io, { gets: 0, puts: 0, putBytes: 0, leaseWrites: 0 });
    t.tick(60_000);
    const idle = await handler(scheduledPoll(), context);
    const idleBytes = Buffer.byteLength(writes.slice(firstWrites).join(''));
    const idleIo = { ...io };
    Object.assign(io, { gets: 0, puts: 0, putBytes: 0, leaseWrites: 0 });
    t.tick(60_000);
    const other = await container('container-b')(scheduledPoll(), context);
    return {
      first,
      idle,
      other,
      metricSets: metricSetsOf(writes.join('').split('\n').filter(Boolean)),
      idleBytes,
      idleIo,
      otherIo: { ...io },
      collections: env.POLLER_COLLECTIONS,
    };
  } finally {
    spy.mockRestore();
  }
}

/** The metric sets the deployed shard poller's report emits for `cycle`, with the template's environment. */
function shardReportMetricSets(resources: Resource[], cycle: ShardCycle): string[] {
  const env = pollerEnvironment(resources);
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    writes.push(String(chunk));
    return true;
  });
  reportShardCycle(
    {
      logger: new LambdaLogger({ service: SERVICE.poller, level: 'error' }),
      metrics: createPowertoolsPollMetrics(
        new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE!, serviceName: SERVICE.poller }),
        pollMetricsOptionsFromEnv(env),
      ),
    },
    cycle,
  );
  vi.restoreAllMocks();
  return metricSetsOf(writes.join('').split('\n').filter(Boolean));
}

afterEach(() => vi.restoreAllMocks());

describe('a default single-company deployment, counted', () => {
  const lean = resourcesOf({});

  it('keeps the alarms that guard against loss, and only those', () => {
    const alarms = alarmsOf(lean);
    expect(alarms.map((a) => a.name)).toEqual([
      'ActionFailedAlarm',
      'BankStatements-DlqAlarm',
      'Connections-UnhealthyAlarm',
      'IntakeApi5xxAlarm',
      'IntakeDlqAlarm',
      'PollerErrorsAlarm',
      'PollerLagAlarm',
      'Route-archive-isdoc-DlqAlarm',
      'Route-liquidate-payments-DlqAlarm',
      'Route-liquidate-shop-payment-DlqAlarm',
      'Route-send-einvoice-DlqAlarm',
      'Route-send-einvoice-fixed-DlqAlarm',
      'Route-transfer-issue-slip-DlqAlarm',
      'Route-transfer-received-order-DlqAlarm',
      'ScheduleDlqAlarm',
    ]);
    expect(alarms.every((a) => a.insightsQueries === 0)).toBe(true);
    const all = alarmsOf(resourcesOf({ operationalAlarms: true, detailedMetrics: true }));
    console.info(
      `alarms: ${alarms.length} (${alarms.reduce((s, a) => s + a.metrics, 0)} alarm metrics): ${alarms
        .map((a) => `${a.name}×${a.metrics}`)
        .join(', ')}; with operationalAlarms and detailedMetrics: ${all.length} (${all.reduce(
        (s, a) => s + a.metrics,
        0,
      )} alarm metrics, ${all.reduce((s, a) => s + a.insightsQueries, 0)} Metrics Insights query)`,
    );
  });

  it('the deployed poller (a shard of one) reports the same three series by default', () => {
    const outcome = {
      connection: 'default',
      status: 'polled',
      published: 2,
      requests: 12,
      rateLimited: 0,
      failedCollections: 0,
      more: false,
      durationMs: 900,
      events: { 'IssuedInvoice.Created': 1, 'ReceivedOrder.Created': 1 },
      lagByCollection: { IssuedInvoices: 1_000, ReceivedOrders: 2_000 },
      lagMs: 2_000,
      healthy: true,
    } as unknown as ShardCycle['outcomes'][number];
    const cycle: ShardCycle = {
      shard: { index: 0, count: 1 },
      slot: 0,
      leased: true,
      registered: 1,
      malformed: 0,
      paused: 0,
      due: 1,
      published: 2,
      requests: 12,
      failed: 0,
      outcomes: [outcome],
    } as ShardCycle;
    expect(shardReportMetricSets(lean, cycle)).toEqual([
      'CollectionsFailed{service=poll-changes}',
      'EventsPublished{service=poll-changes}',
      'WatermarkLagMs{service=poll-changes}',
    ]);
    // A malformed registry item is counted when there is one (its alarm reads it).
    expect(shardReportMetricSets(lean, { ...cycle, malformed: 1 })).toContain(
      'RegistryItemsMalformed{service=poll-changes}',
    );
    expect(shardReportMetricSets(resourcesOf({ detailedMetrics: true }), cycle)).toEqual(
      expect.arrayContaining([
        'ConnectionsPolled{service=poll-changes}',
        'ApiRequests{service=poll-changes}',
      ]),
    );
  });

  it('has no dashboard and no customer managed key; every log group keeps its logs a bounded time', () => {
    const count = (type: string) => lean.filter((r) => r.Type === type).length;
    expect(count('AWS::CloudWatch::Dashboard')).toBe(0);
    expect(count('AWS::KMS::Key')).toBe(0);
    const logGroups = lean.filter((r) => r.Type === 'AWS::Logs::LogGroup');
    for (const g of logGroups) expect(g.Properties.RetentionInDays).toBeGreaterThan(0);
    const functions = lean.filter((r) => r.Type === 'AWS::Lambda::Function');
    console.info(
      `billable resources: ${functions.length} functions (${functions
        .map(
          (f) =>
            `${f.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME} ${f.Properties.MemorySize} MB`,
        )
        .join(', ')}), ${count('AWS::Lambda::EventSourceMapping')} SQS event source mappings, ${count(
        'AWS::SQS::Queue',
      )} queues, ${count('AWS::Scheduler::Schedule')} schedule, ${count('AWS::DynamoDB::Table')} tables, ${count(
        'AWS::S3::Bucket',
      )} buckets, ${count('AWS::SecretsManager::Secret')} secrets, ${logGroups.length} log groups (retention ${[
        ...new Set(logGroups.map((g) => g.Properties.RetentionInDays)),
      ].join(', ')} days), ${count('AWS::Events::Rule')} rules, ${count('AWS::ApiGatewayV2::Api')} HTTP API`,
    );
  });

  it('the poller, as deployed, publishes one series per metric; detailedMetrics adds one per type and collection', async () => {
    const out = await pollerOutput(lean);
    expect(out.first.published).toBeGreaterThan(0);
    expect(out.idle).toMatchObject({ leased: true, due: 1, published: 0 });
    expect(out.other).toMatchObject({ leased: true, due: 1, published: 0 });
    // Only the service dimension: the per-type and per-collection ones are folded away.
    for (const set of out.metricSets) expect(set).toMatch(/\{service=poll-changes\}$/);
    // What the alarms read (failed collections, the worst lag) and the events published.
    expect(out.metricSets).toEqual([
      'CollectionsFailed{service=poll-changes}',
      'EventsPublished{service=poll-changes}',
      'WatermarkLagMs{service=poll-changes}',
    ]);
    // An idle tick writes no checkpoint; the container that polled last reads none either. Another
    // container reads each collection's checkpoint, the payment detector's (on by default) of each
    // payable collection, and the connection's health once.
    const collections = out.collections?.split(',') ?? [];
    const payable = collections.filter((c) => c === 'IssuedInvoices' || c === 'IssuedAdvanceInvoices');
    expect(payable).toHaveLength(2);
    expect(out.idleIo).toMatchObject({ gets: 0, puts: 0, leaseWrites: 2 });
    expect(out.otherIo).toMatchObject({
      gets: collections.length + payable.length + 1,
      puts: 0,
      leaseWrites: 2,
    });
    const detailed = await pollerOutput(resourcesOf({ detailedMetrics: true }));
    expect(detailed.metricSets.length).toBeGreaterThan(out.metricSets.length);
    expect(detailed.metricSets.some((s) => s.includes('detailType='))).toBe(true);
    expect(detailed.metricSets.some((s) => s.includes('collection='))).toBe(true);
    console.info(
      `custom metrics of the poller (default): ${out.metricSets.length}: ${out.metricSets.join(', ')}; with detailedMetrics over ${
        detailed.collections?.split(',').length
      } collections: ${detailed.metricSets.length}; a poll without changes: ${out.idleBytes} bytes of log and EMF output, ${
        out.idleIo.gets
      } checkpoint reads, ${out.idleIo.puts} checkpoint writes (largest ${out.idleIo.putBytes} bytes of JSON), ${
        out.idleIo.leaseWrites
      } lease writes; on another container: ${out.otherIo.gets} checkpoint reads, ${out.otherIo.puts} checkpoint writes, ${
        out.otherIo.leaseWrites
      } lease writes`,
    );
  });
});
