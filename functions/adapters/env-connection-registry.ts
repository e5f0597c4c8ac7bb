/**
 * The single-company deployment as a connection registry of one: its one entry comes from the
 * environment (`ACCOUNTING_CONNECTION`, `ACCOUNTING_SERVICE_VARIANT`, `EVENT_SOURCE`; the
 * `ACTIONS_*` settings are the deployment's own, so the entry adds none). Read-only: the deployment
 * is changed by its configuration, not by `connections add|pause|remove`. The entry's
 * `credentialsSecret` is the connection's own `env:` reference; the client of a single-company
 * deployment takes its credentials from `ACCOUNTING_*` or `ACCOUNTING_CREDENTIALS_SECRET` as before.
 */
import * as z from 'zod';
import { DEFAULT_SERVICE_VARIANT, serviceVariants } from '../accounting/collections.js';
import { connectionSchema, DEFAULT_CONNECTION } from '../core/connection.js';
import {
  CONNECTION_DEFAULTS,
  type ConnectionEntry,
  credentialsVariableOf,
} from '../core/connections/connection-entry.js';
import {
  type ConnectionRegistry,
  ConnectionRegistryError,
  type RegistryScanner,
} from '../core/connections/registry.js';
import { type Env, parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';

const envSchema = z.object({
  [ENV.connection]: connectionSchema.default(DEFAULT_CONNECTION),
  [ENV.serviceVariant]: z
    .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
    .default(DEFAULT_SERVICE_VARIANT),
  [ENV.eventSource]: z.string().trim().min(1, { error: 'expected an event source' }).optional(),
});

/** The one entry, with the custom event source of the deployment when `EVENT_SOURCE` is set. */
export type EnvConnectionEntry = ConnectionEntry & { readonly eventSource?: string };

/** Thrown by the write operations: the registry of one is the deployment's environment. */
export class ReadOnlyConnectionRegistryError extends ConnectionRegistryError {
  override readonly name = 'ReadOnlyConnectionRegistryError';
}

/** The registry of one connection described by `env`; throws `ConfigError` naming a bad variable. */
export function createEnvConnectionRegistry(env: Env): ConnectionRegistry & RegistryScanner {
  const e = parseEnvSection(envSchema, env);
  const name = e[ENV.connection];
  const entry: EnvConnectionEntry = {
    name,
    variant: e[ENV.serviceVariant],
    credentialsSecret: `env:${credentialsVariableOf(name)}`,
    actions: {},
    pollIntervalSeconds: CONNECTION_DEFAULTS.pollIntervalSeconds,
    paused: false,
    rateLimit: { ...CONNECTION_DEFAULTS.rateLimit },
    ...(e[ENV.eventSource] ? { eventSource: e[ENV.eventSource] } : {}),
  };
  const readOnly = (): never => {
    throw new ReadOnlyConnectionRegistryError(
      `the connection '${name}' is the deployment's own (its environment); change its settings there`,
    );
  };
  return {
    list: async () => [entry],
    get: async (wanted) => (wanted === name ? entry : undefined),
    scan: async () => ({ entries: [entry], malformed: [] }),
    add: async () => readOnly(),
    setPaused: async () => readOnly(),
    remove: async () => readOnly(),
  };
}
