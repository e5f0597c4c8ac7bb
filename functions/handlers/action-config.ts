/**
 * The configuration of an action function (SQS or scheduled), read once at cold start. It
 * composes one schema per section — the action settings (`core/actions/config.ts`), the AWS
 * resource names (`adapters/aws/adapter-config.ts`), the accounting client (`accounting/config.ts`;
 * with `ACCOUNTING_CREDENTIALS_SECRET` set, the credentials come later from the secret), the
 * stores the action `uses`, `LOG_LEVEL` and the route's dead-letter queue — with `loadSections`
 * (`shared/config.ts`, as the poller's loader), and throws one `ConfigError` listing every problem
 * of every section.
 */
import * as z from 'zod';
import { loadAccountingConfig } from '../accounting/config.js';
import { type AdapterConfig, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import type { ActionResource } from '../core/actions/action-definition.js';
import type { ActionSettings } from '../core/actions/action-settings.js';
import { type ActionsConfig, loadActionsConfigOf } from '../core/actions/config.js';
import { ConfigError, type Env, loadLogLevel, loadSections, parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import type { LogLevel } from '../shared/logger.js';

/** The variable naming each store's table or bucket. */
export const RESOURCE_VARIABLE: Record<ActionResource, string> = {
  idempotency: ENV.actionsIdempotencyTable,
  actionState: ENV.actionsStateTable,
  archive: ENV.actionsArchiveBucket,
  sendingRecords: ENV.actionsArchiveBucket,
  reports: ENV.actionsArchiveBucket,
};

/** The SQS action function's own section: the route's dead-letter queue. */
const queueSchema = z.object({
  [ENV.actionsDeadLetterQueueUrl]: z
    .url({ protocol: /^https?$/, error: 'expected the http(s) URL of an SQS queue' })
    .optional(),
});

export interface ActionFunctionConfig {
  actions: ActionsConfig;
  adapters: AdapterConfig;
  logLevel: LogLevel;
  /** The route's DLQ for invalid events (SQS actions; infra sets it on every route function). */
  deadLetterQueueUrl?: string;
  /**
   * Every connection of the registry (`POLLER_CONNECTIONS_TABLE` set): each event's connection is
   * read from this table, its credentials from its own secret, and its requests draw from its
   * bucket in the rate-limit table (`POLLER_RATE_LIMIT_TABLE`, when set).
   */
  registry?: { connectionsTable: string; rateLimitTable?: string };
}

/** The route's dead-letter queue URL (`undefined` when unset); throws `ConfigError` when malformed. */
export function deadLetterQueueUrlOf(env: Env): string | undefined {
  return parseEnvSection(queueSchema, env)[ENV.actionsDeadLetterQueueUrl];
}

/** The stores section: a table or bucket name for each store the action `uses`. */
function requireStores(env: Env, uses: readonly ActionResource[]): void {
  const unset = uses.map((use) => RESOURCE_VARIABLE[use]).filter((variable) => !env[variable]?.trim());
  if (unset.length > 0) {
    throw new ConfigError(
      unset.map((field) => ({ field, expected: 'required by this function, expected a resource name' })),
    );
  }
}

/**
 * Everything an action function needs, checked at once: the sections, and a table or bucket name
 * for each store in `uses`. Throws one `ConfigError` naming every bad variable of every section.
 */
export function loadActionFunctionConfig(
  env: Env,
  uses: readonly ActionResource[],
  settings: readonly ActionSettings[] = [],
): ActionFunctionConfig {
  const credentialsFromSecret = Boolean(env[ENV.credentialsSecret]?.trim());
  const connectionsTable = env[ENV.connectionsTable]?.trim();
  const rateLimitTable = env[ENV.rateLimitTable]?.trim();
  const { actions, adapters, logLevel, deadLetterQueueUrl } = loadSections({
    actions: () => loadActionsConfigOf(env, settings),
    adapters: () => loadAdapterConfig(env, ['eventBus']),
    logLevel: () => loadLogLevel(env),
    deadLetterQueueUrl: () => deadLetterQueueUrlOf(env),
    // Without a secret or a registry the credentials are in the environment: validate them now.
    accounting: () =>
      credentialsFromSecret || connectionsTable ? undefined : loadAccountingConfig({ ...env }),
    stores: () => requireStores(env, uses),
  });
  return {
    actions,
    adapters,
    logLevel,
    ...(deadLetterQueueUrl ? { deadLetterQueueUrl } : {}),
    ...(connectionsTable
      ? { registry: { connectionsTable, ...(rateLimitTable ? { rateLimitTable } : {}) } }
      : {}),
  };
}
