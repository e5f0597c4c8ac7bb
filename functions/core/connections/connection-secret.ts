/**
 * A connection's credentials are stored elsewhere; its registry entry names where
 * (`credentialsSecret`): `env:NAME`, an environment variable holding the credentials JSON, or a
 * Secrets Manager secret (ARN or name) holding the same JSON — `{"apiKey"}` or
 * `{"clientId","clientSecret","scope"?}`. This module reads such a reference and checks such a
 * JSON text; the adapters fetch it. No error here ever carries the secret's value.
 */
import * as z from 'zod';
import { type AccountingConfig, loadAccountingConfig } from '#functions/accounting/config.js';
import { ConfigError } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { type ConnectionEntry, ConnectionEntryError, DEPLOYMENT_CREDENTIALS } from './connection-entry.js';
import { parseSealedReference, SEALED_PREFIX, type SealedReference } from './sealed-credentials.js';

export type SecretReference =
  | { kind: 'deployment' }
  | { kind: 'sealed'; sealed: SealedReference | undefined }
  | { kind: 'env'; variable: string }
  | { kind: 'ssm'; parameter: string }
  | { kind: 'secretsManager'; secretId: string };

export function parseSecretReference(reference: string): SecretReference {
  const trimmed = reference.trim();
  if (trimmed === DEPLOYMENT_CREDENTIALS) return { kind: 'deployment' };
  if (trimmed.startsWith(SEALED_PREFIX)) return { kind: 'sealed', sealed: parseSealedReference(trimmed) };
  if (trimmed.startsWith('ssm:')) return { kind: 'ssm', parameter: trimmed.slice('ssm:'.length) };
  return trimmed.startsWith('env:')
    ? { kind: 'env', variable: trimmed.slice('env:'.length) }
    : { kind: 'secretsManager', secretId: trimmed };
}

const nonEmpty = z.string().trim().min(1);

/** The JSON shape of the credentials secret. */
export const credentialsSecretSchema = z.union([
  z.object({ apiKey: nonEmpty }),
  z.object({ clientId: nonEmpty, clientSecret: nonEmpty, scope: nonEmpty.optional() }),
]);
export type CredentialsSecret = z.infer<typeof credentialsSecretSchema>;

/** Maps parsed credentials to their environment names (what the client's config loader reads). */
export function credentialsToEnv(credentials: CredentialsSecret): Record<string, string> {
  if ('apiKey' in credentials) return { [ENV.apiKey]: credentials.apiKey };
  return {
    [ENV.clientId]: credentials.clientId,
    [ENV.clientSecret]: credentials.clientSecret,
    ...(credentials.scope !== undefined ? { [ENV.scope]: credentials.scope } : {}),
  };
}

/**
 * Parses the text of a credentials secret. Returns the credentials under their environment names,
 * or a problem that names what is wrong (the keys found, never a value).
 */
export function parseCredentialsJson(
  text: string,
): { ok: true; values: Record<string, string> } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message quotes the input: it is not kept.
    return { ok: false, problem: 'is not valid JSON' };
  }
  const parsed = credentialsSecretSchema.safeParse(json);
  if (parsed.success) return { ok: true, values: credentialsToEnv(parsed.data) };
  const fields =
    typeof json === 'object' && json !== null && !Array.isArray(json)
      ? Object.keys(json).sort().join(', ')
      : typeof json;
  return {
    ok: false,
    problem: `expected {"apiKey"} or {"clientId","clientSecret","scope"?} with non-empty strings; found keys: ${fields || 'none'}`,
  };
}

/**
 * A connection's credentials could not be had: the reference points nowhere, or what it points at
 * is not credentials. Names the connection and the reference, never the value.
 */
export class ConnectionSecretError extends Error {
  override readonly name = 'ConnectionSecretError';
  constructor(
    readonly connection: string,
    readonly reference: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`connection '${connection}': credentialsSecret '${reference}' ${problem}`, options);
  }
}

/** Settings that belong to a connection (its entry or its secret), never taken from the process's environment. */
const CONNECTION_OWN_SETTINGS: readonly string[] = [
  ENV.serviceVariant,
  ENV.baseUrl,
  ENV.authUrl,
  ENV.apiKey,
  ENV.clientId,
  ENV.clientSecret,
  ENV.scope,
  ENV.credentialsSecret,
  ENV.pathOverrides,
];

/** How a client setting is named in a connection's errors: its entry field, or the environment variable. */
const ENTRY_FIELD: Readonly<Record<string, string>> = {
  [ENV.serviceVariant]: 'variant',
  [ENV.baseUrl]: 'baseUrl',
  [ENV.authUrl]: 'authUrl',
  [ENV.apiKey]: 'credentialsSecret (apiKey)',
  [ENV.clientId]: 'credentialsSecret (clientId)',
  [ENV.clientSecret]: 'credentialsSecret (clientSecret)',
  [ENV.scope]: 'credentialsSecret (scope)',
};

/**
 * The client configuration of one connection: its variant and URLs from the entry, its
 * credentials from its secret (as the secret source returns them), and only the tuning settings
 * (timeouts, retries, page size) from `env`. A combination the client cannot use (OAuth
 * credentials without an authUrl on `sk`) is a `ConnectionEntryError` naming the connection and
 * the setting; a bad tuning variable stays the client's `ConfigError`.
 */
export function connectionAccountingConfig(
  entry: Pick<ConnectionEntry, 'name' | 'variant' | 'baseUrl' | 'authUrl'>,
  credentials: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>> = {},
): AccountingConfig {
  const tuning = Object.fromEntries(
    Object.entries(env).filter(([name]) => !CONNECTION_OWN_SETTINGS.includes(name)),
  );
  try {
    return loadAccountingConfig({
      ...tuning,
      [ENV.serviceVariant]: entry.variant,
      ...(entry.baseUrl !== undefined ? { [ENV.baseUrl]: entry.baseUrl } : {}),
      ...(entry.authUrl !== undefined ? { [ENV.authUrl]: entry.authUrl } : {}),
      ...credentials,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const own = error.issues.filter((i) => ENTRY_FIELD[i.field] !== undefined);
    if (own.length === 0) throw error;
    throw new ConnectionEntryError(
      entry.name,
      own.map((i) => `${ENTRY_FIELD[i.field]}: ${i.expected}`),
      { cause: error },
    );
  }
}

/**
 * How long a function serving many connections keeps a connection's secret (the stack sets
 * `ACCOUNTING_CREDENTIALS_CACHE_SECONDS` to it on the connection poller and the action functions):
 * 15 minutes, since a refused credential is read again at once anyway, and each read is billed.
 */
export const CONNECTION_SECRET_CACHE_SECONDS = 900;
