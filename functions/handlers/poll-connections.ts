/**
 * The poller of many connections: an SQS FIFO event source delivers poll requests (one per due
 * connection and minute, message group = connection) and each is one poll of ONE connection with
 * its own client, checkpoints, event source and health. The connections of a batch are polled side
 * by side; a slow one delays none of the others' messages (their groups are not its group), a
 * failing one fails only its own messages (partial batch response), and a connection whose
 * credentials are refused is recorded unhealthy — one `Connection.Unhealthy` — and its request is
 * done: the next minute asks again. Two requests of one connection in a batch make one poll.
 * The entry is read from the registry at poll time: a connection removed or paused since the
 * dispatch is not polled.
 *
 * Metrics (EMF): the pipeline-wide ones of the single-connection poller (`EventsPublished` per
 * detail-type, `ApiRequests`, `RateLimited`, `CollectionsFailed`, `WatermarkLagMs` per collection)
 * and, per connection (dimension `connection`), `ConnectionEventsPublished`,
 * `ConnectionCollectionsFailed`, `ConnectionLagMs` (its worst collection) and `ConnectionUnhealthy`
 * (1 while unhealthy, 0 when it answered).
 */
import { setMaxListeners } from 'node:events';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createAwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '../adapters/aws/dynamodb-rate-limiter.js';
import { LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createConnectionSecretResolver } from '../adapters/connection-secrets.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { pollRequestSchema } from '../core/connections/dispatch.js';
import {
  type ConnectionPollResult,
  type ConnectionPollSettings,
  pollConnection,
} from '../core/connections/poll-connection.js';
import type { ConnectionRegistry } from '../core/connections/registry.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { freshnessLagMs } from '../core/sync/sync-types.js';
import { systemClock } from '../shared/clock.js';
import {
  type ConnectionClient,
  type ConnectionClients,
  connectionClientBuilder,
  createConnectionClients,
} from './connection-clients.js';
import { loadConnectionPollerConfig } from './connections-config.js';
import { lazyHandler } from './lazy-handler.js';
import type { LambdaContextLike } from './poll-changes.js';
import { createPowertoolsPollMetrics, type PollMetrics, pollMetricsOptionsFromEnv } from './poll-metrics.js';

export interface ConnectionPollerDeps {
  registry: Pick<ConnectionRegistry, 'get'>;
  clients: ConnectionClients;
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  objectStore?: ObjectStore;
  clock: Clock;
  logger: Logger;
  settings: ConnectionPollSettings;
  metrics?: PollMetrics;
  /** Per-connection metrics (one set of custom metrics per connection); default on. */
  perConnectionMetrics?: boolean;
  /** The shared limiter, told each connection's limit before its poll. */
  limiter?: { setLimit(connection: string, limit: ConnectionEntry['rateLimit']): void };
}

export type ConnectionPollStatus = 'polled' | 'credentials' | 'removed' | 'paused' | 'failed';

/** One connection's part of a batch: what the benchmark and the logs count. */
export interface ConnectionPollOutcome {
  connection: string;
  status: ConnectionPollStatus;
  messages: number;
  durationMs: number;
  published: number;
  requests: number;
  rateLimited: number;
  failedCollections: number;
  /** The worst watermark lag of its collections (ms). */
  lagMs?: number;
  healthy?: boolean;
  /** Events published per detail-type. */
  events: Record<string, number>;
  /** Watermark lag per collection (ms). */
  lagByCollection: Record<string, number>;
}

export interface BatchOutcome extends SQSBatchResponse {
  outcomes: ConnectionPollOutcome[];
}

/** Tokens the poller takes from a connection's bucket per write: one request per collection follows. */
export const RATE_LIMIT_PREFETCH = 4;

/** Time kept back at the end of an invocation to return the batch report. */
const ABORT_MARGIN_MS = 3_000;

/** Record ids by connection, in arrival order; records that are no poll request apart. */
function groupRecords(records: readonly SQSRecord[], logger: Logger) {
  const groups = new Map<string, string[]>();
  const invalid: string[] = [];
  for (const record of records) {
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      body = undefined;
    }
    const parsed = pollRequestSchema.safeParse(body);
    if (!parsed.success) {
      logger.error('poll request rejected', {
        messageId: record.messageId,
        issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      });
      invalid.push(record.messageId);
      continue;
    }
    const ids = groups.get(parsed.data.connection) ?? [];
    ids.push(record.messageId);
    groups.set(parsed.data.connection, ids);
  }
  return { groups, invalid };
}

/** Polls every connection of the batch side by side; the failed messages and what each connection did. */
export async function pollBatch(
  deps: ConnectionPollerDeps,
  event: SQSEvent,
  context?: LambdaContextLike,
): Promise<BatchOutcome> {
  const { groups, invalid } = groupRecords(event.Records, deps.logger);
  const signal = context
    ? (context.abortSignal ??
      AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - ABORT_MARGIN_MS)))
    : undefined;
  // Every request of the batch's polls listens to it: more than Node's default of 10 is expected.
  if (signal) setMaxListeners(0, signal);
  const polls = [...groups];
  const outcomes = await Promise.all(
    polls.map(([connection, ids]) => pollOne(deps, connection, ids.length, context, signal)),
  );
  // A connection's every message fails with it (FIFO: its later messages must not overtake).
  const failed = polls.flatMap(([, ids], i) => (outcomes[i]?.status === 'failed' ? ids : []));
  report(deps, outcomes);
  return {
    batchItemFailures: [...invalid, ...failed].map((itemIdentifier) => ({ itemIdentifier })),
    outcomes,
  };
}

async function pollOne(
  deps: ConnectionPollerDeps,
  connection: string,
  messages: number,
  context: LambdaContextLike | undefined,
  signal: AbortSignal | undefined,
): Promise<ConnectionPollOutcome> {
  const started = deps.clock.now().getTime();
  const outcome = (status: ConnectionPollStatus, rest: Partial<ConnectionPollOutcome> = {}) => ({
    connection,
    status,
    messages,
    durationMs: deps.clock.now().getTime() - started,
    published: 0,
    requests: 0,
    rateLimited: 0,
    failedCollections: 0,
    events: {},
    lagByCollection: {},
    ...rest,
  });
  try {
    const entry = await deps.registry.get(connection);
    if (!entry || entry.paused) {
      deps.logger.info('connection not polled', { connection, reason: entry ? 'paused' : 'removed' });
      return outcome(entry ? 'paused' : 'removed');
    }
    deps.limiter?.setLimit(entry.name, entry.rateLimit);
    let client: ConnectionClient | undefined;
    let before: { requests: number; rateLimited: number } | undefined;
    const result = await pollConnection(
      {
        ...deps,
        apiFor: async (e) => {
          client = await deps.clients.apiFor(e);
          before = client.stats?.();
          return client;
        },
        ...(context ? { remainingTimeMs: () => context.getRemainingTimeInMillis() } : {}),
        ...(signal ? { signal } : {}),
      },
      entry,
      deps.settings,
    );
    const after = client?.stats?.();
    return outcome(result.polled ? 'polled' : 'credentials', {
      ...countsOf(result, deps.clock.now().getTime()),
      ...(before && after
        ? { requests: after.requests - before.requests, rateLimited: after.rateLimited - before.rateLimited }
        : {}),
    });
  } catch (error) {
    deps.logger.error('connection poll failed', {
      connection,
      error: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
    });
    return outcome('failed');
  }
}

function countsOf(result: ConnectionPollResult, nowMs: number): Partial<ConnectionPollOutcome> {
  const collections = result.summary?.collections ?? [];
  const events: Record<string, number> = {};
  const lagByCollection: Record<string, number> = {};
  for (const c of collections) {
    for (const [type, n] of Object.entries(c.events)) events[type] = (events[type] ?? 0) + n;
    const lag = freshnessLagMs(c, nowMs);
    if (lag !== undefined) lagByCollection[c.collection] = lag;
  }
  const lags = Object.values(lagByCollection);
  return {
    published: result.summary?.published ?? 0,
    requests: result.summary?.requests ?? 0,
    failedCollections: result.summary ? result.summary.failed + result.summary.conflicts : 0,
    events,
    lagByCollection,
    ...(lags.length > 0 ? { lagMs: Math.max(...lags) } : {}),
    ...(result.health ? { healthy: result.health.ok } : {}),
  };
}

/** Pipeline-wide metrics as the single-connection poller reports them (the worst lag per collection). */
function reportTotals(m: PollMetrics, outcomes: readonly ConnectionPollOutcome[]): void {
  const total = (pick: (o: ConnectionPollOutcome) => number) => outcomes.reduce((n, o) => n + pick(o), 0);
  const perType = new Map<string, number>();
  const worstLag = new Map<string, number>();
  for (const o of outcomes) {
    for (const [type, n] of Object.entries(o.events)) perType.set(type, (perType.get(type) ?? 0) + n);
    for (const [c, lag] of Object.entries(o.lagByCollection))
      worstLag.set(c, Math.max(lag, worstLag.get(c) ?? lag));
  }
  for (const [detailType, n] of perType) m.count('EventsPublished', n, { detailType });
  for (const [collection, lag] of worstLag) m.milliseconds('WatermarkLagMs', lag, { collection });
  m.count(
    'ApiRequests',
    total((o) => o.requests),
  );
  m.count(
    'RateLimited',
    total((o) => o.rateLimited),
  );
  m.count(
    'CollectionsFailed',
    total((o) => o.failedCollections + (o.status === 'failed' ? 1 : 0)),
  );
}

function report(deps: ConnectionPollerDeps, outcomes: readonly ConnectionPollOutcome[]): void {
  const m = deps.metrics;
  if (m) {
    reportTotals(m, outcomes);
    if (deps.perConnectionMetrics !== false) {
      for (const o of outcomes.filter((x) => x.status === 'polled' || x.status === 'credentials')) {
        const connection = { connection: o.connection };
        m.count('ConnectionEventsPublished', o.published, connection);
        m.count('ConnectionCollectionsFailed', o.failedCollections, connection);
        if (o.lagMs !== undefined) m.milliseconds('ConnectionLagMs', o.lagMs, connection);
        if (o.healthy !== undefined) m.count('ConnectionUnhealthy', o.healthy ? 0 : 1, connection);
      }
    }
    m.flush();
  }
  deps.logger.info('connections polled', {
    outcomes: outcomes.map(({ events: _events, lagByCollection: _lags, ...o }) => o),
  });
}

export type ConnectionPollerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function createHandler(deps: ConnectionPollerDeps): ConnectionPollerHandler {
  return async (event, context) => {
    const { batchItemFailures } = await pollBatch(deps, event, context);
    return { batchItemFailures };
  };
}

/** Builds the handler's dependencies from the environment (once per container). */
export function createDepsFromEnv(env: Readonly<Record<string, string | undefined>>): ConnectionPollerDeps {
  const config = loadConnectionPollerConfig(env);
  const logger = new LambdaLogger({ level: config.logLevel, service: 'poll-connections' });
  const clock = systemClock;
  const aws = createAwsAdapters(config.adapters, { clock, logger, instrument: instrumentClient });
  const limiter = config.rateLimitTable
    ? createDynamoDbRateLimiter({
        client: aws.clients.dynamoDb,
        tableName: config.rateLimitTable,
        clock,
        prefetch: RATE_LIMIT_PREFETCH,
      })
    : undefined;
  const secrets = createConnectionSecretResolver({
    env,
    clock,
    ttlMs: config.adapters.credentialsCacheMs,
    secretsManager: aws.clients.secretsManager,
  });
  const build = connectionClientBuilder({ env, clock, logger, secrets, ...(limiter ? { limiter } : {}) });
  return {
    registry: createDynamoDbConnectionRegistry({
      client: aws.clients.dynamoDb,
      tableName: config.connectionsTable,
    }),
    clients: createConnectionClients({ build, max: config.maxClients }),
    checkpoints: aws.checkpoints(),
    publisher: aws.publisher(),
    objectStore: aws.claimCheckStore(),
    clock,
    logger,
    settings: config.settings,
    perConnectionMetrics: config.perConnectionMetrics,
    ...(limiter ? { limiter } : {}),
    metrics: createPowertoolsPollMetrics(
      new Metrics({
        namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'AccountingEvents',
        serviceName: 'poll-connections',
      }),
      pollMetricsOptionsFromEnv(env),
    ),
  };
}

/** The Lambda entry point (SQS event source, partial batch responses). */
export const handler = lazyHandler(async () => createHandler(createDepsFromEnv(process.env)));
