/**
 * The multi-connection deployment of the connections benchmark: the sandbox serving N companies in
 * a process of its own (bench/sandbox-child.ts; TLS when asked) with an injected latency per
 * request (what billed time on AWS is mostly made of), dynalite for the registry, the checkpoints
 * (and the shards' leases) and the rate-limit table, SSM Parameter Store and EventBridge answered
 * in process and metered (connections-meters.ts), and poller containers made on demand
 * (`newContainer`), each with what a Lambda container keeps between invocations: its clients (the
 * deployed pool size), its cached credentials, checkpoints and token buckets. The connections'
 * credentials are sealed in their entries under one data key (`credentials: 'ssm'`: a SecureString
 * parameter each, to compare); every SecureString the SSM twin returns is one KMS decryption.
 */

import { randomBytes } from 'node:crypto';
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
import { sealCredentials } from '../functions/core/connections/sealed-credentials.js';
import type { BusEvent, Clock } from '../functions/core/ports.js';
import { SHARD_DEFAULTS } from '../functions/handlers/connections-config.js';
import { type ConnectionPollerDeps, pollerLimiter } from '../functions/handlers/poll-connections.js';
import { ENV } from '../functions/shared/env-names.js';
import { silentLogger } from '../functions/shared/logger.js';
import {
  connectionClientBuilder,
  createConnectionClients,
  pollerSharedReads,
} from '../functions/wiring/connection-clients.js';
import { loadPollerSettings } from '../functions/wiring/poller-config.js';
import { companyCredentials } from '../sandbox/company.js';
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
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.js';

/** The name of company k's connection, as `run --companies` names them. */
export const connectionName = (k: number) => `sandbox-${k}`;
/** The sandbox's request-count key of company k's API key. */
export const credentialOf = (k: number) => (k === 1 ? 'api-key:sandbox' : `api-key:sandbox-${k}`);
const parameterOf = (k: number) => `/accounting-events/connections/${connectionName(k)}`;
/** Where the data key of sealed credentials is (`ACCOUNTING_SEALING_KEYS_PATH`), and its id. */
const SEALING_KEYS_PATH = '/accounting-events/sealing-keys';
const SEALING_KEY_ID = 'k1';

/**
 * How the connections' credentials are stored: `sealed` in each registry entry under one data key
 * (read once per container: one SecureString, one KMS decryption), or `ssm`, a SecureString
 * parameter per connection (one KMS decryption per connection and container).
 */
export type CredentialsForm = 'sealed' | 'ssm';

/**
 * The system clock set to a moment, then running in real time: each invocation of a cycle starts
 * at the cycle's minute (on AWS they run side by side; here one after another), each change at
 * its own moment of the minute before.
 */
export interface WarpClock extends Clock {
  setTo(ms: number): void;
  /** How far it runs ahead of the system clock (ms). */
  offset(): number;
}

export function createWarpClock(): WarpClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    offset: () => offset,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(resolve, Math.max(0, ms));
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
    setTo(ms) {
      offset = ms - Date.now();
    },
  };
}

export interface Container {
  /** Its name on the shards' leases. */
  name: string;
  deps: ConnectionPollerDeps;
  close(): Promise<void>;
}

export interface Deployment {
  sandbox: SandboxProcess;
  clock: WarpClock;
  /** Sets the clock of the poller and of the sandbox. */
  setClock(ms: number): Promise<void>;
  registry: ConnectionRegistry;
  /** A new poller container, as Lambda starts one (its module loaded, nothing cached). */
  newContainer(): Container;
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
  /** The sandbox served over TLS with this key and certificate (the process trusts it). */
  tls?: { key: string; cert: string };
  /** Clients kept per container (the deployed `POLLER_MAX_CLIENTS`). */
  maxClients: number;
  /** The poller's settings as the function's environment gives them (none: the deployed defaults). */
  pollerEnv?: Readonly<Record<string, string>>;
  /** How the connections' credentials are stored (default `sealed`). */
  credentials?: CredentialsForm;
  /** Called with each batch of events published and the clock's time then. */
  onPublished?: (events: readonly BusEvent[], atMs: number) => void;
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

async function registerConnections(
  registry: ConnectionRegistry,
  baseUrl: string,
  count: number,
  credentialsOf: (k: number) => string,
) {
  const ks = Array.from({ length: count }, (_, i) => i + 1);
  const worker = async () => {
    for (let k = ks.shift(); k !== undefined; k = ks.shift()) {
      await registry.add(
        parseConnectionEntry({
          name: connectionName(k),
          variant: 'sk',
          baseUrl,
          credentialsSecret: credentialsOf(k),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const clock = createWarpClock();
  const [sandbox, dynalite] = await Promise.all([
    startSandboxProcess({ companies: options.count, ...(options.tls ? { tls: options.tls } : {}) }),
    startDynaliteProcess(),
  ]);
  const setClock = async (ms: number) => {
    clock.setTo(ms);
    await sandbox.setOffset(clock.offset());
  };
  const tables = { registry: 'connections', checkpoints: 'checkpoints', rateLimits: 'rate-limits' };
  await createConnectionRegistryTable(dynalite.client, tables.registry);
  await createCheckpointTable(dynalite.client, tables.checkpoints);
  await createCheckpointTable(dynalite.client, tables.rateLimits);
  const dynamoDb = meterDynamoDb(dynalite.client);
  const registry = createDynamoDbConnectionRegistry({ client: dynalite.client, tableName: tables.registry });
  const form = options.credentials ?? 'sealed';
  const dataKey = randomBytes(32);
  const plaintext = (k: number) => JSON.stringify({ apiKey: companyCredentials(k).apiKey });
  await registerConnections(registry, sandbox.baseUrl, options.count, (k) =>
    form === 'ssm'
      ? `ssm:${parameterOf(k)}`
      : sealCredentials({
          connection: connectionName(k),
          keyId: SEALING_KEY_ID,
          dataKey,
          plaintext: plaintext(k),
        }),
  );
  // The latency is set once the registry is filled: every request of the cycles waits it out.
  if (options.latency) await sandbox.setFaults({ latency: options.latency });

  const ssm = createSsmTwin((name) => {
    if (name === `${SEALING_KEYS_PATH}/${SEALING_KEY_ID}`) return dataKey.toString('base64');
    const k = Number(/-(\d+)$/.exec(name)?.[1]);
    return k >= 1 && k <= options.count && name === parameterOf(k) ? plaintext(k) : undefined;
  });
  const publisher = createCountingPublisher(
    options.onPublished ? (events) => options.onPublished?.(events, clock.now().getTime()) : undefined,
  );
  const metrics = createMeteredMetrics();
  const logger = createMeteredLogger();
  const lease = createDynamoDbShardLease({ client: dynalite.client, tableName: tables.checkpoints });
  // The poller's composition (`createDepsFromEnv` of poll-connections.ts) on the twins.
  const { options: pollOptions, concurrency } = loadPollerSettings({ ...options.pollerEnv });
  const { connection: _c, variant: _v, source: _s, ...shared } = pollOptions;
  const objectStore = createMemoryObjectStore();
  let started = 0;
  const live = new Set<Container>();
  const newContainer = (): Container => {
    const name = `container-${started++}`;
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
      env: { [ENV.sealingKeysPath]: SEALING_KEYS_PATH },
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
      sharedReads: pollerSharedReads(SHARD_DEFAULTS.parallel, concurrency),
    });
    const clients = createConnectionClients({ build, max: options.maxClients });
    const deps: ConnectionPollerDeps = {
      registry,
      lease,
      clients,
      checkpoints,
      checkpointCache: checkpoints,
      holder: name,
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
    const c: Container = {
      name,
      deps,
      close: async () => {
        live.delete(c);
        await clients.close();
      },
    };
    live.add(c);
    return c;
  };
  return {
    sandbox,
    clock,
    setClock,
    registry,
    newContainer,
    dynamoDb,
    publisher,
    ssm,
    metrics,
    logger,
    storedBytes: () => storedBytes(dynalite, Object.values(tables)),
    async close() {
      await Promise.all([...live].map((c) => c.close()));
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
