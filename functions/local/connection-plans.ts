/**
 * The connections one local runtime polls, each a plan: its name, whether it is paused, its poll
 * interval, collections and variant, its action settings, its rate limit, and how to open its
 * client. Three sources: the one connection of a plain `run` (as configured), the companies of an
 * in-process sandbox (`run --companies N`: `sandbox-1` … `sandbox-N`, credentials handed over in
 * process), and the registry file (`run --connections FILE`, read again every cycle).
 */
import type { Sandbox } from '../../sandbox/index.js';
import {
  type CollectionName,
  defaultPolledCollectionsFor,
  type ServiceVariant,
} from '../accounting/collections.js';
import type { AccountingConfig } from '../accounting/config.js';
import { parseAccountingConfig } from '../accounting/config.js';
import { createConnectionSecretResolver } from '../adapters/connection-secrets.js';
import { createFileConnectionRegistry } from '../adapters/local/file-connection-registry.js';
import type { RateLimit } from '../core/connections/connection-entry.js';
import { connectionAccountingConfig } from '../core/connections/connection-secret.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import type { Clock } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import { accountingInputFromEnv } from './environment.js';

export interface ConnectionPlan {
  readonly name: string;
  /** Changes when anything of the plan changes (its entry in the registry, say). */
  readonly revision: string;
  readonly paused: boolean;
  /** Time between the starts of two polls of this connection. */
  readonly intervalMs: number;
  readonly variant: ServiceVariant;
  readonly collections: readonly CollectionName[];
  /** Shared by its poller, actions and intake; absent: no limit. */
  readonly rateLimit?: RateLimit;
  /** The environment its actions read (ACTIONS_* of its entry over the process's). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The sandbox company it is, when it is one (the actions read its demo partners). */
  readonly sandbox?: Sandbox;
  /** Its client configuration; reads its credentials (throws when they cannot be had). */
  config(): Promise<AccountingConfig>;
}

export interface ConnectionSource {
  /** The connections now, paused ones included (a file is read again on every call). */
  list(): Promise<ConnectionPlan[]>;
}

/** The demo company `index` of an in-process sandbox, as the sandbox's own view of that company. */
export function companySandbox(sandbox: Sandbox, index: number): Sandbox {
  return index === 1 ? sandbox : { ...sandbox, state: sandbox.server.companies.get(index).state };
}

/** `sandbox-1` … `sandbox-N`: the sandbox's companies, each with its own API key. */
export function companiesSource(
  sandbox: Sandbox,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    intervalMs: number;
    collections: readonly CollectionName[] | undefined;
    rateLimit: RateLimit;
  },
): ConnectionSource {
  const variant = sandbox.server.options.variant;
  const env = { ...options.env, [ENV.serviceVariant]: variant };
  const plans = Array.from({ length: sandbox.companies }, (_, i): ConnectionPlan => {
    const index = i + 1;
    return {
      name: `sandbox-${index}`,
      revision: 'sandbox',
      paused: false,
      intervalMs: options.intervalMs,
      variant,
      collections: options.collections ?? defaultPolledCollectionsFor(variant),
      rateLimit: options.rateLimit,
      env,
      sandbox: companySandbox(sandbox, index),
      config: async () =>
        parseAccountingConfig({
          ...accountingInputFromEnv(env),
          baseUrl: sandbox.baseUrl,
          authUrl: sandbox.authUrl,
          apiKey: sandbox.credentialsOf(index).apiKey,
          clientId: undefined,
          clientSecret: undefined,
        }),
    };
  });
  return { list: async () => plans };
}

/**
 * The connections of a registry file, read again on every `list` (a changed, paused, resumed or
 * removed entry takes effect at the next cycle). Credentials come from each entry's
 * `credentialsSecret` (`env:<NAME>_CREDENTIALS` here), read when the connection's client opens.
 */
export function fileSource(options: {
  path: string;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** `run --interval`, when given, instead of each entry's `pollIntervalSeconds`. */
  intervalMs: number | undefined;
}): ConnectionSource {
  const registry = createFileConnectionRegistry({ path: options.path });
  const secrets = createConnectionSecretResolver({ env: options.env, clock: options.clock });
  return {
    async list() {
      return (await registry.list()).map(
        (entry): ConnectionPlan => ({
          name: entry.name,
          revision: JSON.stringify(entry),
          paused: entry.paused,
          intervalMs: options.intervalMs ?? entry.pollIntervalSeconds * 1000,
          variant: entry.variant,
          collections: collectionsOf(entry),
          rateLimit: entry.rateLimit,
          env: { ...options.env, ...entry.actions, [ENV.serviceVariant]: entry.variant },
          config: async () =>
            connectionAccountingConfig(entry, await secrets.sourceFor(entry).get(), options.env),
        }),
      );
    },
  };
}
