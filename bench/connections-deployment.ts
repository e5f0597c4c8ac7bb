/**
 * The multi-connection deployment of the connections benchmark, in one process: the sandbox
 * serving N companies with an injected latency per request (what billed time on AWS is mostly
 * made of), dynalite for the registry, the checkpoints (and the shards' leases) and the rate-limit
 * table, SSM Parameter Store and EventBridge answered in process and metered
 * (connections-meters.ts), and one poller "container" per shard of the registry (each invoked by
 * its own schedule), with what a Lambda container keeps between invocations: its clients, its
 * cached credentials and its token buckets.
 */
import { createRequire } from 'node:module';
import { type DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { createDynamoDbCheckpointStore } from '../functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbConnectionRegistry } from '../functions/adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '../functions/adapters/aws/dynamodb-rate-limiter.js';
import { createDynamoDbShardLease } from '../functions/adapters/aws/dynamodb-shard-lease.js';
import { createConnectionSecretResolver } from '../functions/adapters/connection-secrets.js';
import {
  createCheckpointTable,
  createConnectionRegistryTable,
  createDynaliteClient,
} from '../functions/adapters/local/embedded-servers.js';
import { createMemoryObjectStore } from '../functions/adapters/local/memory-object-store.js';
import { createCheckpointCache } from '../functions/core/connections/checkpoint-cache.js';
import { parseConnectionEntry } from '../functions/core/connections/connection-entry.js';
import { CONNECTION_SECRET_CACHE_SECONDS } from '../functions/core/connections/connection-secret.js';
import type { ConnectionRegistry } from '../functions/core/connections/registry.js';
import type { Clock } from '../functions/core/ports.js';
import { SHARD_DEFAULTS } from '../functions/handlers/connections-config.js';
import { type ConnectionPollerDeps, pollerLimiter } from '../functions/handlers/poll-connections.js';
import { silentLogger } from '../functions/shared/logger.js';
import { connectionClientBuilder, createConnectionClients } from '../functions/wiring/connection-clients.js';
import { loadPollerSettings } from '../functions/wiring/poller-config.js';
import { type Sandbox, startSandbox } from '../sandbox/index.js';
import {
  type CountingPublisher,
  createCountingPublisher,
  createMeteredLogger,
  createMeteredMetrics,
  createSsmTwin,
  type DynamoDbMeter,
  type MeteredLogger,
  type MeteredMetrics,
  meterDynamoDb,
  type SsmTwin,
} from './connections-meters.js';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process.js';

/** The name of company k's connection, as `run --companies` names them. */
export const connectionName = (k: number) => `sandbox-${k}`;
/** The sandbox's request-count key of company k's API key. */
export const credentialOf = (k: number) => (k === 1 ? 'api-key:sandbox' : `api-key:sandbox-${k}`);
const parameterOf = (k: number) => `/accounting-events/connections/${connectionName(k)}`;

/** The system clock moved forward in jumps: each cycle starts at its minute, then runs in real time. */
export interface WarpClock extends Clock {
  jumpTo(ms: number): void;
}

export function createWarpClock(): WarpClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(resolve, Math.max(0, ms));
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
    jumpTo(ms) {
      offset = Math.max(offset, ms - Date.now());
    },
  };
}

export interface Container {
  deps: ConnectionPollerDeps;
  close(): Promise<void>;
}

export interface Deployment {
  sandbox: Sandbox;
  clock: WarpClock;
  registry: ConnectionRegistry;
  /** One per shard. */
  containers: Container[];
  dynamoDb: DynamoDbMeter;
  publisher: CountingPublisher;
  ssm: SsmTwin;
  metrics: MeteredMetrics;
  logger: MeteredLogger;
  /** Bytes the tables hold now, as DynamoDB bills storage (item size + 100 bytes each). */
  storedBytes(): Promise<number>;
  close(): Promise<void>;
}

/** The service's answer time injected per request: 150 ms plus up to 100 ms, uniform. */
export const INJECTED_LATENCY = { baseMs: 150, jitterMs: 100, distribution: 'uniform' } as const;

export interface DeploymentOptions {
  count: number;
  shards: number;
  perConnectionMetrics: boolean;
  latency: { baseMs: number; jitterMs: number; distribution: 'uniform' | 'exponential' } | null;
}

const itemSize = (
  createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: unknown): number }
).itemSize;

async function tableBytes(client: DynamoDBClient, tableName: string): Promise<number> {
  let bytes = 0;
  for await (const page of paginateScan({ client }, { TableName: tableName })) {
    for (const item of page.Items ?? []) bytes += itemSize(item) + 100;
  }
  return bytes;
}

async function registerConnections(registry: ConnectionRegistry, baseUrl: string, count: number) {
  const ks = Array.from({ length: count }, (_, i) => i + 1);
  const worker = async () => {
    for (let k = ks.shift(); k !== undefined; k = ks.shift()) {
      await registry.add(
        parseConnectionEntry({
          name: connectionName(k),
          variant: 'sk',
          baseUrl,
          credentialsSecret: `ssm:${parameterOf(k)}`,
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const clock = createWarpClock();
  const [sandbox, dynalite] = await Promise.all([
    startSandbox({ companies: options.count, clock }),
    startDynaliteProcess(),
  ]);
  const tables = { registry: 'connections', checkpoints: 'checkpoints', rateLimits: 'rate-limits' };
  await createConnectionRegistryTable(dynalite.client, tables.registry);
  await createCheckpointTable(dynalite.client, tables.checkpoints);
  await createCheckpointTable(dynalite.client, tables.rateLimits);
  const dynamoDb = meterDynamoDb(dynalite.client);
  const registry = createDynamoDbConnectionRegistry({ client: dynalite.client, tableName: tables.registry });
  await registerConnections(registry, sandbox.baseUrl, options.count);
  // The latency is set once the registry is filled: every request of the cycles waits it out.
  if (options.latency) sandbox.setFaults({ latency: options.latency });

  const ssm = createSsmTwin((name) => {
    const k = Number(/-(\d+)$/.exec(name)?.[1]);
    return k >= 1 && k <= options.count && name === parameterOf(k)
      ? JSON.stringify({ apiKey: sandbox.credentialsOf(k).apiKey })
      : undefined;
  });
  const publisher = createCountingPublisher();
  const metrics = createMeteredMetrics();
  const logger = createMeteredLogger();
  const lease = createDynamoDbShardLease({ client: dynalite.client, tableName: tables.checkpoints });
  // The poller's composition (`createDepsFromEnv` of poll-connections.ts) on the twins.
  const { options: pollOptions, concurrency } = loadPollerSettings({});
  const { connection: _c, variant: _v, source: _s, ...shared } = pollOptions;
  const objectStore = createMemoryObjectStore();
  const container = (_: unknown, index: number): Container => {
    // Each container its checkpoints as it last read or wrote them (the poller's composition).
    const checkpoints = createCheckpointCache(
      createDynamoDbCheckpointStore({
        client: dynalite.client,
        tableName: tables.checkpoints,
        consistentRead: false,
      }),
    );
    const limiter = pollerLimiter(
      clock,
      createDynamoDbRateLimiter({ client: dynalite.client, tableName: tables.rateLimits, clock }),
    );
    // Each container its own credential cache, as each Lambda container has (the deployed ttl).
    const resolver = createConnectionSecretResolver({
      env: {},
      clock,
      ttlMs: CONNECTION_SECRET_CACHE_SECONDS * 1000,
      ssm: ssm.client,
    });
    const build = connectionClientBuilder({
      env: {},
      clock,
      logger: silentLogger,
      secrets: resolver,
      limiter,
    });
    const clients = createConnectionClients({ build, max: Math.ceil(options.count / options.shards) + 16 });
    const deps: ConnectionPollerDeps = {
      registry,
      lease,
      clients,
      checkpoints,
      checkpointCache: checkpoints,
      holder: `container-${index}`,
      healthKnown: new Map(),
      publisher,
      objectStore,
      clock,
      logger,
      metrics,
      perConnectionMetrics: options.perConnectionMetrics,
      limiter,
      settings: {
        options: shared,
        concurrency,
        parallel: SHARD_DEFAULTS.parallel,
        budgetMs: SHARD_DEFAULTS.connectionBudgetSeconds * 1000,
      },
    };
    return { deps, close: () => clients.close() };
  };
  const containers = Array.from({ length: options.shards }, container);
  return {
    sandbox,
    clock,
    registry,
    containers,
    dynamoDb,
    publisher,
    ssm,
    metrics,
    logger,
    storedBytes: () => storedBytes(dynalite, Object.values(tables)),
    async close() {
      await Promise.all(containers.map((c) => c.close()));
      await Promise.all([sandbox.close(), dynalite.close()]);
    },
  };
}

async function storedBytes(dynalite: DynaliteProcess, tables: readonly string[]): Promise<number> {
  const client = createDynaliteClient(dynalite.endpoint); // unmetered: not part of the workload
  try {
    let total = 0;
    for (const t of tables) total += await tableBytes(client, t);
    return total;
  } finally {
    client.destroy();
  }
}
