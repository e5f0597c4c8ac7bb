/**
 * The poller, one handler for one company and for ten thousand: invoked every minute by the
 * schedule of its shard (`{"shard": i, "shards": n, "scheduledTime": …}`; none: shard 0 of 1), it
 * takes the shard's lease (a conditional write, and one more to give it back: a late or retried
 * tick that finds it held polls nothing), reads the shard's connections from the registry — the DynamoDB table's scan segment, or
 * the single-company deployment's registry of one built from its environment — and polls the due,
 * unpaused ones side by side through the core's shard cycle (`runShardCycle`): each with its own client (cached per
 * container), checkpoints, event source, health, budget and errors.
 *
 * Polling writes nothing of its own per connection: the shard's poller owns its connections, so
 * its requests draw from a token bucket in memory, and only a 429's pause is written to the shared
 * rate-limit table (when there is one), where the actions see it.
 *
 * Metrics (EMF), pipeline-wide: `EventsPublished` per detail-type, `ApiRequests`, `RateLimited`,
 * `CollectionsFailed`, `WatermarkLagMs` per collection (the worst connection's), `CollectionsUnavailable`
 * and `CollectionUnavailable` per collection (lists answered 404: reported once, then skipped for the
 * container's life), `ConnectionsPolled`,
 * `ConnectionsUnhealthy`, `RegistryItemsMalformed` (only when an item is malformed); by default
 * (`POLLER_DETAILED_METRICS` unset) folded and trimmed to three series (`poll-metrics.ts`). Per connection (dimension `connection`) only
 * with `POLLER_CONNECTION_METRICS=true`: `ConnectionEventsPublished`, `ConnectionCollectionsFailed`,
 * `ConnectionLagMs`, `ConnectionUnhealthy`. Each connection's health and lag are in the log instead:
 * one line per connection that published, failed, changed health or has work left; none for an
 * idle one.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SSMClient } from '@aws-sdk/client-ssm';
import { createAwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '../adapters/aws/dynamodb-rate-limiter.js';
import { createDynamoDbShardLease } from '../adapters/aws/dynamodb-shard-lease.js';
import { addLambdaContext, LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createConnectionSecretResolver } from '../adapters/connection-secrets.js';
import { createEnvConnectionRegistry } from '../adapters/env-connection-registry.js';
import { createMemoryRateLimiter } from '../adapters/local/memory-rate-limiter.js';
import { createCheckpointCache } from '../core/connections/checkpoint-cache.js';
import {
  parseShardTick,
  runShardCycle,
  type ShardCycle,
  type ShardCycleDeps,
  type ShardTick,
  ShardTickError,
  ShardTimeBudgetError,
} from '../core/connections/shard-cycle.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { Clock } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import {
  connectionClientBuilder,
  createConnectionClients,
  pollerSharedReads,
} from '../wiring/connection-clients.js';
import { loadConnectionPollerConfig } from './connections-config.js';
import { lazyHandler } from './lazy-handler.js';
import { createPowertoolsPollMetrics, type PollMetrics, pollMetricsOptionsFromEnv } from './poll-metrics.js';
import { reportShardCycle } from './shard-report.js';

export { createPowertoolsPollMetrics, type PollMetrics } from './poll-metrics.js';

export interface ConnectionPollerDeps extends ShardCycleDeps {
  metrics?: PollMetrics;
  /** Per-connection metrics (one set of custom metrics per connection); default off. */
  perConnectionMetrics?: boolean;
}

export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
  /** Not Lambda's: a caller that stops the poll itself passes its signal (aborts the requests). */
  abortSignal?: AbortSignal;
}

export type { ConnectionPollOutcome, ShardCycle } from '../core/connections/shard-cycle.js';

/** One cycle of the tick's shard (core `runShardCycle`), reported as metrics and log lines. */
export async function pollShardCycle(
  deps: ConnectionPollerDeps,
  event: unknown,
  context?: LambdaContextLike,
): Promise<ShardCycle> {
  let tick: ShardTick;
  try {
    tick = parseShardTick(event);
  } catch (error) {
    if (error instanceof ShardTickError) deps.logger.error('poll input rejected', { issues: error.issues });
    throw error;
  }
  let cycle: ShardCycle;
  try {
    cycle = await runShardCycle(
      deps,
      tick,
      context
        ? {
            remainingTimeMs: () => context.getRemainingTimeInMillis(),
            ...(context.abortSignal ? { signal: context.abortSignal } : {}),
          }
        : {},
    );
  } catch (error) {
    if (error instanceof ShardTimeBudgetError) {
      deps.logger.error('poll refused: no time to poll', { remainingMs: error.remainingMs });
    }
    throw error;
  }
  if (cycle.leased) reportShardCycle(deps, cycle);
  return cycle;
}

export type ConnectionPollerHandler = (event: unknown, context?: LambdaContextLike) => Promise<ShardCycle>;

export function createHandler(deps: ConnectionPollerDeps): ConnectionPollerHandler {
  return async (event, context) => {
    addLambdaContext(deps.logger, context);
    return pollShardCycle(deps, event, context);
  };
}

/**
 * The poller's token buckets: in memory (the shard's poller owns its connections, so polling
 * writes nothing per request), with a 429's pause also written to the shared table, where the
 * actions of that connection see it.
 */
export function pollerLimiter(clock: Clock, shared: RateLimiter | undefined) {
  const memory = createMemoryRateLimiter({ clock });
  const limiter: RateLimiter & { setLimit: typeof memory.setLimit } = {
    take: (connection, options) => memory.take(connection, options),
    pause: async (connection, untilMs) => {
      await memory.pause(connection, untilMs);
      await shared?.pause(connection, untilMs);
    },
    setLimit: (connection, limit) => memory.setLimit(connection, limit),
  };
  return limiter;
}

/** Builds the handler's dependencies from the environment (once per container). */
export function createDepsFromEnv(env: Readonly<Record<string, string | undefined>>): ConnectionPollerDeps {
  const config = loadConnectionPollerConfig(env);
  const serviceName = env.POWERTOOLS_SERVICE_NAME ?? 'poll-connections';
  const logger = new LambdaLogger({ level: config.logLevel, service: serviceName });
  const clock = systemClock;
  const aws = createAwsAdapters(config.adapters, { clock, logger, instrument: instrumentClient });
  const shared = config.rateLimitTable
    ? createDynamoDbRateLimiter({ client: aws.clients.dynamoDb, tableName: config.rateLimitTable, clock })
    : undefined;
  const limiter = pollerLimiter(clock, shared);
  // Without a registry table: a single-company deployment, its registry of one from the environment.
  const registry = config.connectionsTable
    ? createDynamoDbConnectionRegistry({ client: aws.clients.dynamoDb, tableName: config.connectionsTable })
    : createEnvConnectionRegistry(env);
  const secrets = createConnectionSecretResolver({
    env,
    clock,
    ttlMs: config.adapters.credentialsCacheMs,
    secretsManager: aws.clients.secretsManager,
    ssm: instrumentClient(new SSMClient({})),
    deploymentCredentials: !config.connectionsTable,
  });
  const build = connectionClientBuilder({
    env,
    clock,
    logger,
    secrets,
    limiter,
    sharedReads: pollerSharedReads(config.settings.parallel, config.settings.concurrency),
  });
  // The shard's checkpoints as this container last read or wrote them (the lease says when another
  // container polled the shard since), over eventually consistent reads: a read that missed a
  // write makes the next versioned write conflict, never a lost change.
  const checkpoints = createCheckpointCache(
    createDynamoDbCheckpointStore({
      client: aws.clients.dynamoDb,
      tableName: config.adapters.checkpointsTable as string,
      consistentRead: false,
    }),
  );
  return {
    registry,
    lease: createDynamoDbShardLease({
      client: aws.clients.dynamoDb,
      tableName: config.adapters.checkpointsTable as string,
    }),
    clients: createConnectionClients({ build, max: config.maxClients }),
    checkpoints,
    checkpointCache: checkpoints,
    healthKnown: new Map(),
    unavailableKnown: new Map(),
    publisher: aws.publisher(),
    objectStore: aws.claimCheckStore(),
    clock,
    logger,
    settings: config.settings,
    perConnectionMetrics: config.perConnectionMetrics,
    limiter,
    metrics: createPowertoolsPollMetrics(
      new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'AccountingEvents', serviceName }),
      pollMetricsOptionsFromEnv(env),
    ),
  };
}

/** The Lambda entry point, invoked by the shard's schedule. A failed build is retried next time. */
export const handler = lazyHandler(async () => createHandler(createDepsFromEnv(process.env)));
