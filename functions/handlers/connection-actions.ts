/**
 * The adapters of the per-connection action path, for a deployment with the connection registry
 * (`POLLER_CONNECTIONS_TABLE` set: one action function serves the events of every registered
 * connection) and for a single-company deployment (its registry of one, from the environment). Per event the core (`core/connection-actions.ts`) reads the connection's entry and
 * refuses an unknown, paused or switched-off one; the action then runs on that connection's ports,
 * built here: its
 * client — credentials from its own secret (cached, read again after a refusal), every request
 * drawn from its token bucket in the rate-limit table, the same bucket its poller draws from — and
 * its settings, with the bus and the stores shared by all (their keys name the connection).
 * Clients are kept per connection, at most `DEFAULT_MAX_CLIENTS` (64) per container (least recently
 * used closed). The scheduled e-invoice tracker and the order import build their connections' ports
 * here too (`connectionPortsFromConfig`).
 */
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '../adapters/aws/dynamodb-rate-limiter.js';
import { createConnectionSecretResolver } from '../adapters/connection-secrets.js';
import { createEnvConnectionRegistry } from '../adapters/env-connection-registry.js';
import {
  type ActionCapabilities,
  type ActionResource,
  type ActionStores,
  actionPorts,
} from '../core/actions/action-definition.js';
import type { ActionsConfig } from '../core/actions/config.js';
import type { EachConnectionDeps } from '../core/connection-actions.js';
import type { ConnectionEntry, RateLimit } from '../core/connections/connection-entry.js';
import type { ConnectionRegistry, RegistryScanner } from '../core/connections/registry.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { Clock, EventPublisher, Logger } from '../core/ports.js';
import type { AppLogger } from '../shared/logger.js';
import {
  type ConnectionClients,
  connectionClientBuilder,
  createConnectionClients,
} from '../wiring/connection-clients.js';
import type { ActionFunctionConfig } from './action-config.js';
import { awsStores } from './action-stores.js';
import type { InvocationDeadline } from './invocation-deadline.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface EachConnectionActionDeps {
  /** The deployment's environment: every connection's default action settings. */
  env: Env;
  registry: Pick<ConnectionRegistry, 'get'>;
  clients: ConnectionClients;
  /** The rate limiter the clients draw from, told each connection's limit before its client is used. */
  limiter?: { setLimit(connection: string, limit: RateLimit): void };
  publisher: EventPublisher;
  stores: ActionStores;
  clock: Clock;
  logger: Logger;
  /** What only this function loads (the archive's schema check). */
  capabilities?: ActionCapabilities;
}

/** One connection's ports: its client (its limit set first), its settings, the shared bus and stores. */
function portsOf(deps: EachConnectionActionDeps) {
  return async (entry: ConnectionEntry, config: ActionsConfig) => {
    deps.limiter?.setLimit(entry.name, entry.rateLimit);
    const api = await deps.clients.apiFor(entry);
    const { publisher, clock, logger } = deps;
    return actionPorts({ ...deps.capabilities, config, api, publisher, clock, logger }, deps.stores);
  };
}

/**
 * What the per-connection path of core needs: the registry (read per event, scanned by the
 * scheduled actions), the deployment's settings, and each connection's ports.
 */
export type ConnectionActionDeps = EachConnectionDeps<ActionResource, ConnectionEntry> & {
  registry: Pick<ConnectionRegistry, 'get'> & RegistryScanner;
};

/** The deps of the per-connection path: each connection runs on its own client and the shared bus and stores. */
export function connectionActionDeps(
  deps: EachConnectionActionDeps & { registry: Pick<ConnectionRegistry, 'get'> & RegistryScanner },
): ConnectionActionDeps {
  return { registry: deps.registry, env: deps.env, logger: deps.logger, portsFor: portsOf(deps) };
}

/** The client cache of a container: clients built from the connections' secrets and buckets. */
export function connectionActionClients(options: {
  env: Env;
  clock: Clock;
  logger: Logger;
  secrets: ReturnType<typeof createConnectionSecretResolver>;
  limiter?: RateLimiter;
  deadline: InvocationDeadline;
}): ConnectionClients {
  const { deadline, ...rest } = options;
  return createConnectionClients({
    build: connectionClientBuilder({ ...rest, remainingMs: deadline.remainingMs }),
  });
}

/**
 * What an action function builds from its configuration (AWS clients from `aws`): with
 * `POLLER_CONNECTIONS_TABLE`, the DynamoDB registry, each connection's own secret and, with the
 * rate-limit table, its token bucket; without, a single-company deployment: its registry of one from
 * the environment, whose entry alone may use the deployment's credentials (the environment's, or
 * the secret `ACCOUNTING_CREDENTIALS_SECRET` names). Either way each connection's client comes from
 * the one client builder.
 */
export function connectionPortsFromConfig(
  env: Env,
  parts: {
    config: ActionFunctionConfig;
    aws: AwsAdapters;
    clock: Clock;
    logger: AppLogger;
    deadline: InvocationDeadline;
  },
) {
  const { config, aws, clock, logger, deadline } = parts;
  const connectionsTable = config.registry?.connectionsTable;
  const rateLimitTable = config.registry?.rateLimitTable;
  const limiter = rateLimitTable
    ? createDynamoDbRateLimiter({ client: aws.clients.dynamoDb, tableName: rateLimitTable, clock })
    : undefined;
  const secrets = createConnectionSecretResolver({
    env,
    clock,
    ttlMs: config.adapters.credentialsCacheMs,
    secretsManager: aws.clients.secretsManager,
    deploymentCredentials: !connectionsTable,
  });
  return {
    env,
    registry: connectionsTable
      ? createDynamoDbConnectionRegistry({ client: aws.clients.dynamoDb, tableName: connectionsTable })
      : createEnvConnectionRegistry(env),
    clients: connectionActionClients({
      env,
      clock,
      logger,
      secrets,
      deadline,
      ...(limiter ? { limiter } : {}),
    }),
    ...(limiter ? { limiter } : {}),
    publisher: aws.publisher(),
    stores: awsStores(config.actions, aws),
    clock,
    logger,
  };
}

type FromConfigParts = Parameters<typeof connectionPortsFromConfig>[1];

/** The deps of the per-connection path from the function's configuration (the registry deployment). */
export function connectionActionDepsFromConfig(
  env: Env,
  parts: FromConfigParts,
  capabilities: ActionCapabilities = {},
): ConnectionActionDeps & { logger: AppLogger } {
  const c = connectionPortsFromConfig(env, parts);
  return { ...connectionActionDeps({ ...c, capabilities }), logger: parts.logger };
}
