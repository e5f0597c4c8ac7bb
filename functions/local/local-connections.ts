/**
 * The connection registry of the local runtime: registry entries (`ConnectionEntry`), as on AWS,
 * and their clients, built by the one client builder (`wiring/connection-clients.ts`) from each
 * entry and its credentials. Three registries:
 *
 * - the registry file (`run --connections FILE`), read again on every scan; credentials from each
 *   entry's `credentialsSecret` (`env:<NAME>_CREDENTIALS` here);
 * - the companies of an in-process sandbox (`run --companies N`: `sandbox-1` … `sandbox-N`), each
 *   with its own API key, handed over in process as its `env:` secret;
 * - the one connection of a plain `run`, a registry of one: as configured (or the sandbox), with
 *   the deployment's credentials, as a single-company deployment has them.
 *
 * Every connection's requests draw from its own token bucket (its entry's `rateLimit`), shared by
 * its poller, actions and intake.
 */
import { existsSync } from 'node:fs';
import type { Sandbox } from '#sandbox/index.js';
import {
  type CollectionName,
  defaultPolledCollectionsFor,
  isCollectionOf,
} from '../accounting/collections.js';
import type { AccountingConfig } from '../accounting/config.js';
import { createConnectionSecretResolver } from '../adapters/connection-secrets.js';
import { createFileConnectionRegistry } from '../adapters/local/file-connection-registry.js';
import { createMemoryRateLimiter } from '../adapters/local/memory-rate-limiter.js';
import {
  type ConnectionEntry,
  credentialsVariableOf,
  DEPLOYMENT_CREDENTIALS,
  type RateLimit,
} from '../core/connections/connection-entry.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import type { ConnectionRegistry, RegistryScanner } from '../core/connections/registry.js';
import type { Clock, Logger } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import {
  type ConnectionClients,
  connectionClientBuilder,
  createConnectionClients,
} from '../wiring/connection-clients.js';
import type { PollerSettings } from '../wiring/poller-config.js';
import { LocalRuntimeConfigError } from './runtime-settings.js';
import type { RuntimeUpdate } from './runtime-update.js';

/**
 * The rate limit of each sandbox company and of the configured connection: generous (the service
 * answers a 429 when it wants less), yet the poller, actions and intake of a connection still share
 * one bucket.
 */
export const LOCAL_RATE_LIMIT: RateLimit = { requestsPerSecond: 50, burst: 100 };

type Env = Readonly<Record<string, string | undefined>>;

/** The registry of the local runtime: entries read on every scan, their clients and their buckets. */
export interface LocalConnections {
  readonly registry: RegistryScanner & Pick<ConnectionRegistry, 'get'>;
  readonly clients: ConnectionClients;
  /** The buckets every client draws from, told each connection's limit when its client is used. */
  readonly limiter: ReturnType<typeof createMemoryRateLimiter>;
  /** What the view names as the service. */
  readonly service: string;
  /** A plain run's one connection, as configured: its client must open at the start. */
  readonly configured: boolean;
  /** Connections in the registry as last scanned, paused ones included. */
  size(): number;
  /** Time between the starts of two polls of a connection. */
  intervalMsOf(entry: ConnectionEntry): number;
  /** The sandbox company a connection is, when it is one (the actions read its demo partners). */
  sandboxOf(name: string): Sandbox | undefined;
  /** A connection's client, its bucket told its limit first. */
  apiFor(entry: ConnectionEntry): ReturnType<ConnectionClients['apiFor']>;
  close(): Promise<void>;
}

export interface LocalConnectionsInput {
  env: Env;
  clock: Clock;
  logger: Logger;
  emit: (update: RuntimeUpdate) => void;
  settings: PollerSettings;
  intervalMs: number;
  /** `run --interval` was given: with a registry file it wins over each entry's poll interval. */
  intervalFromFlag?: boolean | undefined;
  collections?: readonly CollectionName[] | undefined;
  /** `run --connections FILE`. */
  connectionsFile?: string | undefined;
  /** `run --companies N` (with the sandbox). */
  companies?: number | undefined;
  sandbox: Sandbox | undefined;
  /** The configured service's settings, checked (a plain run). */
  configured?: () => AccountingConfig;
  /** The configured connection's name when the environment names none. */
  configuredName?: (config: AccountingConfig) => string;
}

/** The demo company `index` of an in-process sandbox, as the sandbox's own view of that company. */
export function companySandbox(sandbox: Sandbox, index: number): Sandbox {
  return index === 1 ? sandbox : { ...sandbox, state: sandbox.server.companies.get(index).state };
}

/** The `ACTIONS_*` settings of the environment: every local connection's defaults. */
function actionSettingsOf(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).flatMap(([key, value]) =>
      key.startsWith('ACTIONS_') && value !== undefined ? [[key, value]] : [],
    ),
  );
}

function checkCollections(entry: ConnectionEntry): void {
  const foreign = collectionsOf(entry).filter((c) => !isCollectionOf(entry.variant, c));
  if (foreign.length > 0) {
    throw new LocalRuntimeConfigError(
      `collections ${foreign.join(', ')} are not in service variant ${entry.variant} (${ENV.serviceVariant})`,
    );
  }
}

interface Source {
  scan(): Promise<ConnectionEntry[]>;
  configured: boolean;
  /** Where `env:` references are read, and whether the deployment's credentials resolve. */
  secretsEnv: Env;
  deploymentCredentials: boolean;
  service: string;
  intervalMsOf(entry: ConnectionEntry): number;
  sandboxOf(name: string): Sandbox | undefined;
}

/** `sandbox-1` … `sandbox-N`: the sandbox's companies, each with its own API key. */
function companiesSource(sandbox: Sandbox, input: LocalConnectionsInput, companies: number): Source {
  const variant = sandbox.server.options.variant;
  const secretsEnv: Record<string, string | undefined> = { ...input.env };
  const sandboxes = new Map<string, Sandbox>();
  const entries = Array.from({ length: companies }, (_, i): ConnectionEntry => {
    const index = i + 1;
    const name = `sandbox-${index}`;
    secretsEnv[credentialsVariableOf(name)] = JSON.stringify({ apiKey: sandbox.credentialsOf(index).apiKey });
    sandboxes.set(name, companySandbox(sandbox, index));
    return {
      name,
      variant,
      baseUrl: sandbox.baseUrl,
      authUrl: sandbox.authUrl,
      credentialsSecret: `env:${credentialsVariableOf(name)}`,
      collections: [...(input.collections ?? defaultPolledCollectionsFor(variant))],
      actions: actionSettingsOf(input.env),
      pollIntervalSeconds: 60,
      paused: false,
      rateLimit: LOCAL_RATE_LIMIT,
    };
  });
  return {
    scan: async () => entries.map((e) => structuredClone(e)),
    configured: false,
    secretsEnv,
    deploymentCredentials: false,
    service: sandbox.baseUrl,
    intervalMsOf: () => input.intervalMs,
    sandboxOf: (name) => sandboxes.get(name),
  };
}

/**
 * The connections of a registry file, read again on every scan (a changed, paused, resumed or
 * removed entry takes effect at the next cycle); a file that cannot be read keeps the entries read
 * last (a warning says why).
 */
function fileSource(path: string, input: LocalConnectionsInput): Source {
  const registry = createFileConnectionRegistry({ path });
  const defaults = actionSettingsOf(input.env);
  let last: ConnectionEntry[] | undefined;
  return {
    async scan() {
      try {
        last = (await registry.list()).map((e) => ({ ...e, actions: { ...defaults, ...e.actions } }));
      } catch (error) {
        if (last === undefined) throw error;
        // A file being edited or refused: the connections go on as they were.
        input.emit({ kind: 'warning', message: error instanceof Error ? error.message : String(error) });
      }
      return last;
    },
    configured: false,
    secretsEnv: input.env,
    deploymentCredentials: false,
    service: `registry ${path}`,
    intervalMsOf: (entry) => (input.intervalFromFlag ? input.intervalMs : entry.pollIntervalSeconds * 1000),
    sandboxOf: () => undefined,
  };
}

/** The one connection of a plain run: as configured (its settings checked now), a registry of one. */
function configuredSource(input: LocalConnectionsInput, config: AccountingConfig): Source {
  const { env, sandbox, settings } = input;
  const name = env[ENV.connection]?.trim() || (input.configuredName?.(config) ?? 'sandbox');
  const entry: ConnectionEntry = {
    name,
    variant: settings.options.variant,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    credentialsSecret: DEPLOYMENT_CREDENTIALS,
    collections: [...(input.collections ?? settings.collections)],
    actions: actionSettingsOf(env),
    pollIntervalSeconds: 60,
    paused: false,
    rateLimit: LOCAL_RATE_LIMIT,
    ...(settings.options.source ? { source: settings.options.source } : {}),
  };
  // The sandbox's own demo key; credentials in the environment are for the real service.
  const secretsEnv: Record<string, string | undefined> = { ...env, [ENV.credentialsSecret]: undefined };
  if (sandbox) {
    Object.assign(secretsEnv, {
      [ENV.apiKey]: sandbox.credentials.apiKey,
      [ENV.clientId]: undefined,
      [ENV.clientSecret]: undefined,
      [ENV.scope]: undefined,
    });
  }
  return {
    scan: async () => [structuredClone(entry)],
    configured: true,
    secretsEnv,
    deploymentCredentials: true,
    service: sandbox ? sandbox.baseUrl : config.baseUrl,
    intervalMsOf: () => input.intervalMs,
    sandboxOf: (n) => (n === name ? sandbox : undefined),
  };
}

function sourceOf(input: LocalConnectionsInput): Source {
  if (input.connectionsFile !== undefined) return fileSource(input.connectionsFile, input);
  if (input.sandbox && input.companies !== undefined)
    return companiesSource(input.sandbox, input, input.companies);
  if (!input.configured) throw new Error('local connections: no configured service');
  return configuredSource(input, input.configured());
}

/** Why a registry file cannot be run, and the command that fixes it. */
function noConnectionsMessage(path: string): string {
  const what = existsSync(path) ? 'holds no connections' : 'does not exist';
  return `--connections ${path}: ${what}; add one first: accounting-events connections add --connections ${path} --name NAME --credentials-secret env:NAME_CREDENTIALS (docs/connections.md)`;
}

/** The registry of the local runtime; its entries are read (and their collections checked) once now. */
export async function openLocalConnections(input: LocalConnectionsInput): Promise<LocalConnections> {
  const source = sourceOf(input);
  let initial: ConnectionEntry[];
  try {
    initial = await source.scan();
  } catch (error) {
    throw new LocalRuntimeConfigError(error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
  if (input.connectionsFile !== undefined && initial.length === 0)
    throw new LocalRuntimeConfigError(noConnectionsMessage(input.connectionsFile));
  for (const entry of initial) checkCollections(entry);
  const { clock, logger } = input;
  const limiter = createMemoryRateLimiter({ clock });
  const secrets = createConnectionSecretResolver({
    env: source.secretsEnv,
    clock,
    deploymentCredentials: source.deploymentCredentials,
  });
  // Tuning settings of every client (timeouts, retries, page size) from the process's environment.
  const clients = createConnectionClients({
    build: connectionClientBuilder({ env: input.env, clock, logger, secrets, limiter }),
  });
  // The entries as last scanned (every poll cycle scans): what the actions and the intake read.
  let current = initial;
  const registry = {
    scan: async () => {
      current = await source.scan();
      return { entries: current.map((e) => structuredClone(e)), malformed: [] };
    },
    get: async (name: string) => {
      const entry = current.find((e) => e.name === name);
      return entry ? structuredClone(entry) : undefined;
    },
  };
  return {
    registry,
    clients,
    limiter,
    service: source.service,
    configured: source.configured,
    size: () => current.length,
    intervalMsOf: source.intervalMsOf,
    sandboxOf: source.sandboxOf,
    apiFor(entry) {
      limiter.setLimit(entry.name, entry.rateLimit);
      return clients.apiFor(entry);
    },
    async close() {
      limiter.halt();
      await clients.close();
    },
  };
}
