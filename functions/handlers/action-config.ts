/**
 * The configuration of an action function (SQS or scheduled), read once at cold start. It
 * composes one schema per section — the action settings (`core/actions/config.ts`), the AWS
 * resource names (`adapters/aws/adapter-config.ts`), the accounting client (`accounting/config.ts`;
 * with `ACCOUNTING_CREDENTIALS_SECRET` set, the credentials come later from the secret), the
 * stores the action `uses`, and the function's own (`LOG_LEVEL`, the route's dead-letter queue) —
 * and throws one `ActionsConfigError` listing every problem of every section.
 */
import * as z from 'zod';
import type { AccountingConfig } from '../accounting/config.js';
import { loadAccountingConfig } from '../accounting/config.js';
import { ConfigError } from '../accounting/errors.js';
import { type AdapterConfig, AdapterConfigError, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import type { ActionResource } from '../core/actions/action-definition.js';
import { type ActionsConfig, ActionsConfigError, loadActionsConfig } from '../core/actions/config.js';
import { ENV } from '../shared/env-names.js';
import { type LogLevel, logLevels } from '../shared/logger.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The variable naming each store's table or bucket. */
export const RESOURCE_VARIABLE: Record<ActionResource, string> = {
  idempotency: ENV.actionsIdempotencyTable,
  actionState: ENV.actionsStateTable,
  archive: ENV.actionsArchiveBucket,
};

const functionSchema = z.object({
  [ENV.logLevel]: z
    .string()
    .optional()
    .transform((v) => {
      const level = v?.trim().toLowerCase() || undefined;
      return level === 'warning' ? 'warn' : level;
    })
    .pipe(z.enum(logLevels, { error: `expected one of ${logLevels.join(', ')}` }).default('info')),
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
  /** The credentials live in Secrets Manager (read after this, at cold start). */
  credentialsFromSecret: boolean;
  /**
   * Every connection of the registry (`POLLER_CONNECTIONS_TABLE` set): each event's connection is
   * read from this table, its credentials from its own secret, and its requests draw from its
   * bucket in the rate-limit table (`POLLER_RATE_LIMIT_TABLE`, when set).
   */
  registry?: { connectionsTable: string; rateLimitTable?: string };
  /** The accounting client's config, with the secret's values when the credentials live there. */
  accounting(secretValues?: Record<string, string>): AccountingConfig;
}

/** The problems of one section, or none. */
function problemsOf(load: () => unknown): string[] {
  try {
    load();
    return [];
  } catch (error) {
    if (error instanceof ActionsConfigError || error instanceof AdapterConfigError)
      return [...error.problems];
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.field}: ${i.expected}`);
    throw error;
  }
}

function loadFunctionSection(env: Env) {
  const input = Object.fromEntries(Object.keys(functionSchema.shape).map((k) => [k, env[k] || undefined]));
  const parsed = functionSchema.safeParse(input);
  if (!parsed.success) {
    throw new ActionsConfigError(
      parsed.error.issues.map((i) => `${String(i.path[0] ?? '(function)')}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** The route's dead-letter queue URL (`undefined` when unset); throws `ActionsConfigError` when malformed. */
export function deadLetterQueueUrlOf(env: Env): string | undefined {
  return loadFunctionSection(env)[ENV.actionsDeadLetterQueueUrl];
}

/**
 * Everything an action function needs, checked at once: the sections, and a table or bucket name
 * for each store in `uses`. Throws one `ActionsConfigError` naming every bad variable.
 */
export function loadActionFunctionConfig(env: Env, uses: readonly ActionResource[]): ActionFunctionConfig {
  let actions: ActionsConfig | undefined;
  let adapters: AdapterConfig | undefined;
  let own: ReturnType<typeof loadFunctionSection> | undefined;
  const credentialsFromSecret = Boolean(env[ENV.credentialsSecret]?.trim());
  const connectionsTable = env[ENV.connectionsTable]?.trim();
  const rateLimitTable = env[ENV.rateLimitTable]?.trim();
  const problems = [
    ...problemsOf(() => {
      actions = loadActionsConfig(env);
    }),
    ...problemsOf(() => {
      adapters = loadAdapterConfig(env, ['eventBus']);
    }),
    ...problemsOf(() => {
      own = loadFunctionSection(env);
    }),
    // Without a secret or a registry the credentials are in the environment: validate them now.
    ...(credentialsFromSecret || connectionsTable ? [] : problemsOf(() => loadAccountingConfig({ ...env }))),
    ...uses
      .map((use) => RESOURCE_VARIABLE[use])
      .filter((variable) => !env[variable]?.trim())
      .map((variable) => `${variable}: required by this function, expected a resource name`),
  ];
  if (problems.length > 0 || !actions || !adapters || !own) throw new ActionsConfigError(problems);
  const url = own[ENV.actionsDeadLetterQueueUrl];
  return {
    actions,
    adapters,
    logLevel: own[ENV.logLevel],
    ...(url ? { deadLetterQueueUrl: url } : {}),
    credentialsFromSecret,
    ...(connectionsTable
      ? { registry: { connectionsTable, ...(rateLimitTable ? { rateLimitTable } : {}) } }
      : {}),
    accounting: (secretValues = {}) => loadAccountingConfig({ ...env, ...secretValues }),
  };
}
