/**
 * Refused credentials, said once: when the service answers 401 or 403 to every collection of a
 * connection, the local runtime says so in one line naming the setting to check, marks the
 * connection unhealthy, and keeps the per-collection repeats of that refusal out of the output
 * (they would come on every poll). A poll that is answered again clears it.
 */
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { DEPLOYMENT_CREDENTIALS } from '../core/connections/connection-entry.js';
import type { ConnectionPollResult } from '../core/connections/poll-connection.js';
import type { Logger } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';

type Env = Readonly<Record<string, string | undefined>>;

/** HTTP statuses by which a service refuses credentials. */
const REFUSED = new Set([401, 403]);

/**
 * The setting that holds a connection's credentials: the environment's API key, OAuth client or
 * credentials secret for the configured connection; the entry's secret reference for a registry's.
 */
export function credentialsSettingOf(entry: ConnectionEntry, env: Env): string {
  const ref = entry.credentialsSecret;
  if (ref !== DEPLOYMENT_CREDENTIALS) return ref.startsWith('env:') ? ref.slice(4) : ref;
  if (env[ENV.apiKey]?.trim()) return ENV.apiKey;
  if (env[ENV.clientId]?.trim()) return `${ENV.clientId}, ${ENV.clientSecret}, ${ENV.scope}`;
  if (env[ENV.credentialsSecret]?.trim()) return ENV.credentialsSecret;
  return ENV.apiKey;
}

/** The status the service refused a poll's credentials with, when it refused them (every collection). */
export function refusedStatusOf(result: ConnectionPollResult | undefined): number | undefined {
  const health = result?.health;
  if (!health || health.ok || health.reason !== 'authentication') return undefined;
  return health.error.status ?? 401;
}

/** The one line (after the connection's name): what happened, which setting to check. */
export function refusedCredentialsText(status: number, setting: string): string {
  return `credentials refused (${status}): check ${setting}`;
}

function refusalLogged(data: Record<string, unknown> | undefined): boolean {
  if (!data) return false;
  const error = data.error as { status?: unknown } | undefined;
  if (typeof error?.status === 'number' && REFUSED.has(error.status)) return true;
  return data.state === 'unhealthy' && data.reason === 'authentication';
}

/**
 * The logger without what a refusal logs per collection and per health change (the runtime's one
 * line says it); every other entry passes.
 */
export function withoutRefusals(logger: Logger): Logger {
  return {
    debug: (message, data) => logger.debug(message, data),
    info: (message, data) => logger.info(message, data),
    warn: (message, data) => {
      if (!refusalLogged(data)) logger.warn(message, data);
    },
    error: (message, data) => {
      if (!refusalLogged(data)) logger.error(message, data);
    },
  };
}
