/**
 * What a default single-company deployment is billed for, counted from the synthesized templates
 * and from what the poller's code emits (docs/deploy.md quotes the printed counts): alarms and the
 * metrics they evaluate, the custom metrics the poller publishes with the environment the template
 * gives it (the real Powertools Metrics, its EMF documents read back from stdout), and the log
 * bytes of a poll without changes.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LambdaLogger } from '../../functions/adapters/aws/lambda-logger.js';
import { createHandler } from '../../functions/handlers/poll-changes.js';
import {
  createPowertoolsPollMetrics,
  pollMetricsOptionsFromEnv,
} from '../../functions/handlers/poll-metrics.js';
import { loadPollerSettings } from '../../functions/handlers/poller-config.js';
import { reportShardCycle, type ShardCycle } from '../../functions/handlers/shard-report.js';
import type { InfraConfigInput } from '../../infra/config/schema.js';
import { scheduledPoll } from '../support/event-fixtures.js';
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

/** Runs the poller as deployed (its template environment) over two ticks; EMF and log output captured. */
async function pollerOutput(resources: Resource[]) {
  const poller = resources.find(
    (r) =>
      r.Type === 'AWS::Lambda::Function' &&
      r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'poll-changes',
  );
  const env = poller!.Properties.Environment.Variables as Record<string, unknown>;
  const plain = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const t = setup();
  for (let i = 0; i < 3; i++) t.service.create();
  // Checkpoint reads and writes (DynamoDB requests on AWS) and the size of what is written.
  const io = { gets: 0, puts: 0, putBytes: 0 };
  const checkpoints: typeof t.deps.checkpoints = {
    get: (key) => {
      io.gets += 1;
      return t.deps.checkpoints.get(key);
    },
    put: (key, value, version) => {
      io.puts += 1;
      io.putBytes = Math.max(io.putBytes, Buffer.byteLength(JSON.stringify(value)));
      return t.deps.checkpoints.put(key, value, version);
    },
  };
  const writes: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
    writes.push(String(chunk));
    return write(chunk as string, ...(rest as []));
  });
  try {
    const handler = createHandler({
      api: t.deps.api,
      checkpoints,
      publisher: t.publisher,
      objectStore: t.objectStore,
      clock: t.clock,
      logger: new LambdaLogger({ service: 'poll-changes', level: 'info' }),
      settings: loadPollerSettings({ ...plain, POLLER_RECONCILE_INTERVAL_SECONDS: '0' }),
      metrics: createPowertoolsPollMetrics(
        new Metrics({ namespace: plain.POWERTOOLS_METRICS_NAMESPACE!, serviceName: 'poll-changes' }),
        pollMetricsOptionsFromEnv(plain),
      ),
    });
    const context = { getRemainingTimeInMillis: () => 600_000 };
    const first = await handler(scheduledPoll(), context);
    const firstWrites = writes.length;
    Object.assign(io, { gets: 0, puts: 0, putBytes: 0 });
    t.tick(60_000);
    const idle = await handler(scheduledPoll(), context);
    const lines = writes.join('').split('\n').filter(Boolean);
    const idleBytes = Buffer.byteLength(writes.slice(firstWrites).join(''));
    const metricSets = new Set<string>();
    for (const line of lines) {
      const doc = JSON.parse(line) as Record<string, unknown> & {
        _aws?: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      };
      for (const set of doc._aws?.CloudWatchMetrics ?? []) {
        const dims = (set.Dimensions[0] ?? []).map((d) => `${d}=${doc[d]}`).join(',');
        for (const m of set.Metrics) metricSets.add(`${m.Name}{${dims}}`);
      }
    }
    return {
      first,
      idle,
      metricSets: [...metricSets].sort(),
      idleBytes,
      idleCheckpoints: { ...io },
      collections: plain.POLLER_COLLECTIONS,
    };
  } finally {
    spy.mockRestore();
  }
}

/** The metric sets the deployed shard poller's report emits for `cycle`, with the template's environment. */
function shardReportMetricSets(resources: Resource[], cycle: ShardCycle): string[] {
  const poller = resources.find(
    (r) =>
      r.Type === 'AWS::Lambda::Function' &&
      r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'poll-changes',
  );
  const env = Object.fromEntries(
    Object.entries(poller!.Properties.Environment.Variables as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    writes.push(String(chunk));
    return true;
  });
  reportShardCycle(
    {
      logger: new LambdaLogger({ service: 'poll-changes', level: 'error' }),
      metrics: createPowertoolsPollMetrics(
        new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE!, serviceName: 'poll-changes' }),
        pollMetricsOptionsFromEnv(env),
      ),
    },
    cycle,
  );
  vi.restoreAllMocks();
  const sets = new Set<string>();
  for (const line of writes.join('').split('\n').filter(Boolean)) {
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

afterEach(() => vi.restoreAllMocks());

describe('a default single-company deployment, counted', () => {
  const lean = resourcesOf({});

  it('keeps the alarms that guard against loss, and only those', () => {
    const alarms = alarmsOf(lean);
    expect(alarms.map((a) => a.name)).toEqual([
      'ActionFailedAlarm',
      'IntakeApi5xxAlarm',
      'IntakeDlqAlarm',
      'PollerErrorsAlarm',
      'PollerLagAlarm',
      'Route-archive-isdoc-DlqAlarm',
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
    expect(out.idle.published).toBe(0);
    // Only the service dimension: the per-type and per-collection ones are folded away.
    for (const set of out.metricSets) expect(set).toMatch(/\{service=poll-changes\}$/);
    // What the alarms read (failed collections, the worst lag) and the events published.
    expect(out.metricSets).toEqual([
      'CollectionsFailed{service=poll-changes}',
      'EventsPublished{service=poll-changes}',
      'WatermarkLagMs{service=poll-changes}',
    ]);
    const detailed = await pollerOutput(resourcesOf({ detailedMetrics: true }));
    expect(detailed.metricSets.length).toBeGreaterThan(out.metricSets.length);
    expect(detailed.metricSets.some((s) => s.includes('detailType='))).toBe(true);
    expect(detailed.metricSets.some((s) => s.includes('collection='))).toBe(true);
    console.info(
      `custom metrics of the poller (default): ${out.metricSets.length}: ${out.metricSets.join(', ')}; with detailedMetrics over ${
        detailed.collections?.split(',').length
      } collections: ${detailed.metricSets.length}; a poll without changes: ${out.idleBytes} bytes of log and EMF output, ${
        out.idleCheckpoints.gets
      } checkpoint reads, ${out.idleCheckpoints.puts} checkpoint writes (largest ${out.idleCheckpoints.putBytes} bytes of JSON)`,
    );
  });
});
