/**
 * The registry of a single-company deployment: one entry, read from the environment the deployment
 * has always been configured with — `ACCOUNTING_CONNECTION` (its name), `ACCOUNTING_SERVICE_VARIANT`,
 * `ACCOUNTING_BASE_URL`/`ACCOUNTING_AUTH_URL`, `POLLER_COLLECTIONS`, `EVENT_SOURCE` (the entry's
 * `source`) and its `ACTIONS_*` settings — validated by `connectionEntrySchema` once, when the
 * registry is made. Its credentials are the deployment's own (`credentialsSecret: deployment`):
 * `ACCOUNTING_API_KEY` or the OAuth client in the environment, or the secret
 * `ACCOUNTING_CREDENTIALS_SECRET` names. The entry is fixed: adding, pausing or removing a
 * connection is a change of the deployment's settings, so those calls are refused.
 */
import { DEFAULT_CONNECTION } from '../core/connection.js';
import {
  type ConnectionEntry,
  connectionEntrySchema,
  DEPLOYMENT_ACTION_SETTINGS,
  DEPLOYMENT_CREDENTIALS,
  eventSourceSchema,
} from '../core/connections/connection-entry.js';
import {
  type ConnectionRegistry,
  ConnectionRegistryError,
  type RegistryScanner,
  UnknownConnectionError,
} from '../core/connections/registry.js';
import { ConfigError, type Env } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';

/** The environment variable behind each field of the entry (how a problem is named). */
const VARIABLE_OF: Readonly<Record<string, string>> = {
  name: ENV.connection,
  variant: ENV.serviceVariant,
  baseUrl: ENV.baseUrl,
  authUrl: ENV.authUrl,
  collections: ENV.pollerCollections,
  source: ENV.eventSource,
  credentialsSecret: ENV.credentialsSecret,
};

/** A change asked of the environment-backed registry, which only reads the deployment's settings. */
export class ReadOnlyRegistryError extends ConnectionRegistryError {
  override readonly name = 'ReadOnlyRegistryError';
  constructor(readonly operation: string) {
    super(
      `cannot ${operation}: this single-company deployment's one connection is read from its environment (${ENV.connection}, ${ENV.serviceVariant}, …); change the deployment's settings, or deploy with the connection registry`,
    );
  }
}

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** The entry's input as the environment gives it (unset variables leave the schema's defaults). */
function entryInputOf(env: Env): Record<string, unknown> {
  const collections = set(env, ENV.pollerCollections)
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  // Every `ACTIONS_*` variable but the deployment's: each action checks its own section's values.
  const actions = Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) =>
      name.startsWith('ACTIONS_') &&
      value !== undefined &&
      value.trim() !== '' &&
      !DEPLOYMENT_ACTION_SETTINGS.includes(name)
        ? [[name, value]]
        : [],
    ),
  );
  const optional = (field: string, variable: string, map: (v: string) => string = (v) => v) => {
    const value = set(env, variable);
    return value === undefined ? {} : { [field]: map(value) };
  };
  return {
    name: set(env, ENV.connection) ?? DEFAULT_CONNECTION,
    ...optional('variant', ENV.serviceVariant, (v) => v.toLowerCase()),
    ...optional('baseUrl', ENV.baseUrl),
    ...optional('authUrl', ENV.authUrl),
    ...optional('source', ENV.eventSource),
    ...(collections ? { collections } : {}),
    credentialsSecret: DEPLOYMENT_CREDENTIALS,
    actions,
  };
}

/**
 * The deployment's one entry; throws `ConfigError` naming each bad variable (never a value). Its
 * `EVENT_SOURCE` may be a source of its own choosing (a registry entry's may not): the deployment
 * polls one company, so no other connection's deliveries share its bus.
 */
export function envConnectionEntry(env: Env): ConnectionEntry {
  const { source, ...input } = entryInputOf(env) as Record<string, unknown> & { source?: string };
  const parsed = connectionEntrySchema.safeParse(input);
  const custom = source === undefined ? undefined : eventSourceSchema.safeParse(source);
  if (parsed.success && (custom === undefined || custom.success)) {
    return { ...(parsed.data as ConnectionEntry), ...(custom?.success ? { source: custom.data } : {}) };
  }
  const issues = [...(parsed.success ? [] : parsed.error.issues)];
  if (custom && !custom.success) issues.push(...custom.error.issues.map((i) => ({ ...i, path: ['source'] })));
  throw new ConfigError(
    issues.map((issue) => {
      const [field, key] = issue.path.map(String);
      const variable =
        field === 'actions' && key ? key : (VARIABLE_OF[field ?? ''] ?? field ?? '(connection)');
      return { field: variable, expected: issue.message };
    }),
    { cause: parsed.success ? custom?.error : parsed.error },
  );
}

/** The single-company deployment's registry: one entry, from `env`, read-only. */
export function createEnvConnectionRegistry(env: Env): ConnectionRegistry & RegistryScanner {
  const entry = envConnectionEntry(env);
  const copy = (): ConnectionEntry => structuredClone(entry);
  return {
    list: async () => [copy()],
    get: async (name) => (name === entry.name ? copy() : undefined),
    // The one connection is shard 0's (of any count: a registry of one is one shard).
    scan: async (shard) => ({ entries: shard && shard.index !== 0 ? [] : [copy()], malformed: [] }),
    add: async () => {
      throw new ReadOnlyRegistryError('add a connection');
    },
    setPaused: async (name) => {
      if (name !== entry.name) throw new UnknownConnectionError(name);
      throw new ReadOnlyRegistryError('pause or resume a connection');
    },
    remove: async (name) => {
      if (name !== entry.name) throw new UnknownConnectionError(name);
      throw new ReadOnlyRegistryError('remove a connection');
    },
  };
}
