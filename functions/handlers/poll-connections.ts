/**
 * The poller, one handler for one company and for ten thousand: invoked every minute by the
 * schedule of its shard (`{"shard": i, "shards": n, "scheduledTime": …}`; none: shard 0 of 1), it
 * takes the shard's lease (a conditional write, and one more to give it back: a late or retried
 * tick that finds it held polls nothing), reads the shard's connections from the registry — the DynamoDB table's scan segment, or
 * the single-company deployment's registry of one built from its environment — and polls the due,
 * unpaused ones side by side through the core's `pollShard`: each with its own client (cached per
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
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SSMClient } from '@aws-sdk/client-ssm';
import * as z from 'zod';
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
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import type { HealthState } from '../core/connections/health.js';
import { pollShard, type ShardPollSettings } from '../core/connections/poll-shard.js';
import type { RegistryScanner } from '../core/connections/registry.js';
import {
  dueConnections,
  ONE_SHARD,
  type Shard,
  type ShardLease,
  shardSchema,
  slotOf,
} from '../core/connections/shard.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import {
  type ConnectionClient,
  type ConnectionClients,
  connectionClientBuilder,
  createConnectionClients,
} from '../wiring/connection-clients.js';
import { loadConnectionPollerConfig } from './connections-config.js';
import { lazyHandler } from './lazy-handler.js';
import { createPowertoolsPollMetrics, type PollMetrics, pollMetricsOptionsFromEnv } from './poll-metrics.js';
import { reportShardCycle, type ShardCycle } from './shard-report.js';

export { createPowertoolsPollMetrics, type PollMetrics } from './poll-metrics.js';

export interface ConnectionPollerDeps {
  registry: RegistryScanner;
  lease: ShardLease;
  clients: ConnectionClients;
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  objectStore?: ObjectStore;
  clock: Clock;
  logger: Logger;
  settings: ShardPollSettings;
  metrics?: PollMetrics;
  /** Per-connection metrics (one set of custom metrics per connection); default off. */
  perConnectionMetrics?: boolean;
  /** This container's name on the shards' leases; a random id per container when absent. */
  holder?: string;
  /** The checkpoints as this container last read or wrote them; dropped when another container polled the shard. */
  checkpointCache?: { clear(): void };
  /** Announced health states of the connections this container polled (skips the health read). */
  healthKnown?: Map<string, HealthState>;
  /** Per connection, the collections its service answered 404 (reported once, then skipped). */
  unavailableKnown?: Map<string, Set<string>>;
  /** The poller's token buckets, told each connection's limit before its poll. */
  limiter?: { setLimit(connection: string, limit: ConnectionEntry['rateLimit']): void };
}

export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
  /** Not Lambda's: a caller that stops the poll itself passes its signal (aborts the requests). */
  abortSignal?: AbortSignal;
}

export type { ConnectionPollOutcome, ShardCycle } from './shard-report.js';

const inputSchema = z.looseObject({
  shard: z.number({ error: 'expected a shard index' }).optional(),
  shards: z.number({ error: 'expected a shard count' }).optional(),
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected an ISO date-time' }).optional(),
});

/** This container's name on the shards' leases (a Lambda container lives as long as its module). */
const CONTAINER = randomUUID();

/** Time kept back at the end of an invocation for logs and metrics. */
const ABORT_MARGIN_MS = 3_000;

function parseInput(event: unknown, logger: Logger): { shard: Shard; scheduledTime?: string } {
  const input = inputSchema.safeParse(event ?? {});
  const shard = input.success
    ? shardSchema.safeParse(
        input.data.shard === undefined && input.data.shards === undefined
          ? ONE_SHARD
          : { index: input.data.shard ?? 0, count: input.data.shards ?? 1 },
      )
    : undefined;
  if (!input.success || !shard?.success) {
    const issues = (input.success ? (shard?.error?.issues ?? []) : input.error.issues).map(
      (i) => `${i.path.join('.')}: ${i.message}`,
    );
    logger.error('poll input rejected', { issues });
    throw new Error(`invalid poll input: ${issues.join('; ')}`);
  }
  return {
    shard: shard.data,
    ...(input.data.scheduledTime ? { scheduledTime: input.data.scheduledTime } : {}),
  };
}

/** One cycle of one shard: lease, registry, due connections, their polls, one report. */
export async function pollShardCycle(
  deps: ConnectionPollerDeps,
  event: unknown,
  context?: LambdaContextLike,
): Promise<ShardCycle> {
  const { shard, scheduledTime } = parseInput(event, deps.logger);
  const nowMs = deps.clock.now().getTime();
  const slot = slotOf(scheduledTime ? Date.parse(scheduledTime) : nowMs);
  const cycle: ShardCycle = {
    shard,
    slot,
    leased: false,
    registered: 0,
    malformed: 0,
    paused: 0,
    due: 0,
    published: 0,
    requests: 0,
    failed: 0,
    outcomes: [],
  };
  const until = nowMs + (context ? context.getRemainingTimeInMillis() : 15 * 60_000);
  const lease = await deps.lease.acquire(shard, nowMs, until, deps.holder ?? CONTAINER);
  if (lease === undefined) {
    deps.logger.info('shard busy', { shard: `${shard.index}/${shard.count}`, slot });
    return cycle;
  }
  cycle.leased = true;
  const { token } = lease;
  // Another container polled the shard since this one did: what this one remembers may be old.
  if (lease.previousHolder !== (deps.holder ?? CONTAINER)) {
    deps.checkpointCache?.clear();
    deps.healthKnown?.clear();
  }
  try {
    await pollLeased(deps, cycle, slot, context);
  } finally {
    await deps.lease.release(shard, token).catch((error: unknown) =>
      // It ends at the invocation's end anyway: the next tick polls the shard then.
      deps.logger.warn('shard lease not released', { error: error instanceof Error ? error.name : 'Error' }),
    );
  }
  reportShardCycle(deps, cycle);
  return cycle;
}

/** The cycle of a shard whose lease is held: registry, due connections, their polls. */
async function pollLeased(
  deps: ConnectionPollerDeps,
  cycle: ShardCycle,
  slot: number,
  context: LambdaContextLike | undefined,
): Promise<void> {
  const { shard } = cycle;
  const { entries, malformed } = await deps.registry.scan(shard);
  for (const item of malformed) {
    deps.logger.error('registry item skipped', {
      key: item.key,
      fields: item.problems.map((p) => p.split(': ')[0]),
      problems: item.problems,
    });
  }
  const due = dueConnections(entries, slot);
  Object.assign(cycle, {
    registered: entries.length,
    malformed: malformed.length,
    paused: entries.filter((e) => e.paused).length,
    due: due.length,
  });
  const signal = context
    ? (context.abortSignal ??
      AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - ABORT_MARGIN_MS)))
    : undefined;
  // Every request of the shard's polls listens to it: more than Node's default of 10 is expected.
  if (signal) setMaxListeners(0, signal);
  const clients = new Map<string, { client: ConnectionClient; before?: { rateLimited: number } }>();
  const summary = await pollShard(
    {
      checkpoints: deps.checkpoints,
      publisher: deps.publisher,
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.objectStore ? { objectStore: deps.objectStore } : {}),
      ...(deps.healthKnown ? { healthKnown: deps.healthKnown } : {}),
      ...(deps.unavailableKnown ? { unavailableKnown: deps.unavailableKnown } : {}),
      ...(context ? { remainingTimeMs: () => context.getRemainingTimeInMillis() } : {}),
      ...(signal ? { signal } : {}),
      apiFor: async (entry) => {
        deps.limiter?.setLimit(entry.name, entry.rateLimit);
        const client = await deps.clients.apiFor(entry);
        const stats = client.stats?.();
        clients.set(entry.name, { client, ...(stats ? { before: stats } : {}) });
        return client;
      },
    },
    due,
    deps.settings,
  );
  cycle.outcomes = summary.outcomes.map((o) => {
    const held = clients.get(o.connection);
    const after = held?.client.stats?.();
    const rateLimited = held?.before && after ? after.rateLimited - held.before.rateLimited : 0;
    return { ...o, rateLimited };
  });
  Object.assign(cycle, { published: summary.published, requests: summary.requests, failed: summary.failed });
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
  const build = connectionClientBuilder({ env, clock, logger, secrets, limiter });
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
