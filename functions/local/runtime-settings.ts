/**
 * Every setting the local runtime reads, checked at once before anything starts: the accounting
 * client, the poller, the actions, the intake and the delivery signing secret, each section with
 * its own schema, gathered by `loadSections` (`shared/config.ts`, as the Lambda functions' loaders).
 * One `ConfigError` lists every bad setting of every section, and no server, directory or file has
 * been created when it is thrown.
 */
import { parseAccountingConfig } from '../accounting/config.js';
import { loadActionsConfig } from '../core/actions/actions-config.js';
import { SigningSecretError, signingSecretOf } from '../core/delivery/delivery-signature.js';
import { loadIntakeConfig } from '../core/intake/intake-config.js';
import { pollOptionsSchema } from '../core/sync/poll-options.js';
import { ConfigError, issuesOf, loadSections } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { loadPollerSettings } from '../wiring/poller-config.js';
import { accountingInputFromEnv, cliFieldName } from './environment.js';
import { LOCAL_RESOURCES } from './local-stores.js';

/**
 * Thrown when the runtime cannot start for a reason found while starting (a collection outside the
 * variant, credentials that cannot be had, a registry file that cannot be read): exit code 2, as
 * for a `ConfigError` of the settings.
 */
export class LocalRuntimeConfigError extends Error {
  override readonly name = 'LocalRuntimeConfigError';
}

export interface SettingsToCheck {
  env: Record<string, string | undefined>;
  /** The sandbox will be started (its URL and demo key replace the service settings). */
  sandbox: boolean;
  /** The connections come from a registry file (its entries and secrets replace the service settings). */
  connections?: boolean;
  baseUrl?: string | undefined;
  authUrl?: string | undefined;
  actions: boolean;
  /** The e-shop intake will be served: its `INTAKE_*` settings are checked too. */
  intake?: boolean;
  startFrom?: string | undefined;
}

/** The connection name of a service URL: its host and port (two services on one host keep apart). */
export function connectionOfUrl(baseUrl: string): string {
  // A connection name (core/connection.ts): lower-case letters, digits and `-`, at most 40.
  const name = new URL(baseUrl).host
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return name || 'service';
}

/** The accounting client's section: the service's settings, or the sandbox's (or registry's) in their place. */
function checkAccounting(input: SettingsToCheck): void {
  const fromEnv = accountingInputFromEnv(input.env);
  parseAccountingConfig(
    input.sandbox || input.connections
      ? // The sandbox's own URL and demo key (or the registry's entries) take the place of the service settings.
        {
          ...fromEnv,
          baseUrl: 'http://127.0.0.1:1',
          authUrl: undefined,
          apiKey: 'sandbox',
          clientId: undefined,
          clientSecret: undefined,
        }
      : {
          ...fromEnv,
          ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
          ...(input.authUrl ? { authUrl: input.authUrl } : {}),
        },
    cliFieldName,
  );
}

/** The poller's section, with `--start-from` as the poll options take it. */
function checkPoller(input: SettingsToCheck, connection: string): void {
  const settings = loadPollerSettings({ ...input.env, [ENV.connection]: connection });
  const parsed = pollOptionsSchema.safeParse({
    ...settings.options,
    ...(input.startFrom ? { startFrom: input.startFrom } : {}),
  });
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error), { cause: parsed.error });
}

/** The signing secret of HTTP deliveries, when one is set. */
function checkSigningSecret(env: SettingsToCheck['env']): void {
  const secret = env.DELIVERY_SIGNING_SECRET?.trim();
  if (!secret) return;
  try {
    // Checked as the delivery function on AWS checks its targets' secrets.
    signingSecretOf(secret);
  } catch (error) {
    if (!(error instanceof SigningSecretError)) throw error;
    throw new ConfigError(
      [
        {
          field: 'DELIVERY_SIGNING_SECRET',
          expected: error.message.replace(/^the signing secret: /, ''),
        },
      ],
      { cause: error },
    );
  }
}

/** Throws one `ConfigError` naming every bad setting of every section; returns nothing when all are good. */
export function checkRuntimeSettings(input: SettingsToCheck): void {
  const { env } = input;
  const connection = env[ENV.connection]?.trim() || 'sandbox';
  loadSections({
    accounting: () => checkAccounting(input),
    poller: () => checkPoller(input, connection),
    actions: () =>
      input.actions &&
      loadActionsConfig({
        ...env,
        [ENV.connection]: connection,
        [ENV.actionsIdempotencyTable]: LOCAL_RESOURCES.idempotencyTable,
        [ENV.actionsArchiveBucket]: LOCAL_RESOURCES.archiveBucket,
        [ENV.actionsStateTable]: LOCAL_RESOURCES.stateTable,
      }),
    intake: () => input.intake && loadIntakeConfig(env),
    deliveries: () => checkSigningSecret(env),
  });
}
