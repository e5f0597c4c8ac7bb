/**
 * Every setting the local runtime reads, checked at once before anything starts: the accounting
 * client, the poller and the actions. One error lists every bad setting of every section, and no
 * server, directory or file has been created when it is thrown.
 */
import { Webhook } from 'standardwebhooks';
import { parseAccountingConfig } from '../accounting/config.js';
import { ConfigError } from '../accounting/errors.js';
import { ActionsConfigError, loadActionsConfig } from '../core/actions/config.js';
import { pollOptionsSchema } from '../core/sync/poll-options.js';
import { loadPollerSettings, RuntimeConfigError } from '../handlers/poller-config.js';
import { ENV } from '../shared/env-names.js';
import { accountingInputFromEnv, cliFieldName } from './environment.js';
import { LOCAL_RESOURCES } from './local-stores.js';

/** Thrown when the runtime cannot start with the given settings (exit code 2). */
export class LocalRuntimeConfigError extends Error {
  override readonly name = 'LocalRuntimeConfigError';
  readonly problems: readonly string[];
  constructor(message: string, options?: { cause?: unknown; problems?: readonly string[] }) {
    super(message, options);
    this.problems = options?.problems ?? [message];
  }
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
  startFrom?: string | undefined;
}

/** The connection name of a service URL: its host and port (two services on one host keep apart). */
export function connectionOfUrl(baseUrl: string): string {
  return new URL(baseUrl).host.replace(/[^A-Za-z0-9_.-]/g, '-');
}

/** Problems of one section, or none. */
function problemsOf(check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.field}: ${i.expected}`);
    if (error instanceof ActionsConfigError || error instanceof RuntimeConfigError)
      return [...error.problems];
    if (error instanceof Error) return [error.message];
    return [String(error)];
  }
}

/** Throws one `LocalRuntimeConfigError` naming every bad setting; returns nothing when all are good. */
export function checkRuntimeSettings(input: SettingsToCheck): void {
  const { env } = input;
  const fromEnv = accountingInputFromEnv(env);
  const problems: string[] = [];
  problems.push(
    ...problemsOf(() =>
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
      ),
    ),
  );
  const connection = env[ENV.connection]?.trim() || 'sandbox';
  problems.push(
    ...problemsOf(() => {
      const settings = loadPollerSettings({ ...env, [ENV.connection]: connection });
      pollOptionsSchema.parse({
        ...settings.options,
        ...(input.startFrom ? { startFrom: input.startFrom } : {}),
      });
    }),
  );
  if (input.actions) {
    problems.push(
      ...problemsOf(() =>
        loadActionsConfig({
          ...env,
          [ENV.connection]: connection,
          [ENV.actionsIdempotencyTable]: LOCAL_RESOURCES.idempotencyTable,
          [ENV.actionsArchiveBucket]: LOCAL_RESOURCES.archiveBucket,
          [ENV.actionsStateTable]: LOCAL_RESOURCES.stateTable,
        }),
      ),
    );
  }
  const secret = env.DELIVERY_SIGNING_SECRET?.trim();
  if (secret) {
    problems.push(
      ...problemsOf(() => {
        try {
          new Webhook(secret);
        } catch (error) {
          throw new Error('DELIVERY_SIGNING_SECRET: expected whsec_ followed by base64', { cause: error });
        }
      }),
    );
  }
  const unique = [...new Set(problems)];
  if (unique.length > 0) {
    throw new LocalRuntimeConfigError(`invalid settings:\n  ${unique.join('\n  ')}`, { problems: unique });
  }
}
