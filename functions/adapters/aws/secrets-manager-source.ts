/**
 * `SecretSource` from an AWS Secrets Manager secret holding the accounting credentials as JSON:
 * `{ "apiKey": "…" }` or `{ "clientId": "…", "clientSecret": "…", "scope": "…" }`. Returns them
 * under the environment names of `shared/env-names.ts`, so the same config loader reads both.
 * The parsed secret is cached for `ttlMs` (one fetch in flight at a time; `refresh` bypasses the
 * cache after the service refused the credentials); no error carries
 * the secret's value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import type { Clock, SecretSource } from '../../core/ports.js';
import { ENV } from '../../shared/env-names.js';

const nonEmpty = z.string().trim().min(1);

/** The JSON shape of the credentials secret. */
export const credentialsSecretSchema = z.union([
  z.object({ apiKey: nonEmpty }),
  z.object({ clientId: nonEmpty, clientSecret: nonEmpty, scope: nonEmpty.optional() }),
]);
export type CredentialsSecret = z.infer<typeof credentialsSecretSchema>;

/** The secret exists but does not hold credentials in the expected shape. Never includes the value. */
export class SecretFormatError extends Error {
  override readonly name = 'SecretFormatError';
  constructor(
    readonly secretId: string,
    detail: string,
  ) {
    super(`secret '${secretId}' ${detail}`);
  }
}

export interface SecretsManagerSourceOptions {
  client: SecretsManagerClient;
  /** ARN or name of the secret. */
  secretId: string;
  /** How long a fetched secret is reused; 0 fetches on every `get`. */
  ttlMs: number;
  clock: Clock;
}

/** Maps parsed credentials to their environment names. */
export function credentialsToEnv(credentials: CredentialsSecret): Record<string, string> {
  if ('apiKey' in credentials) return { [ENV.apiKey]: credentials.apiKey };
  return {
    [ENV.clientId]: credentials.clientId,
    [ENV.clientSecret]: credentials.clientSecret,
    ...(credentials.scope !== undefined ? { [ENV.scope]: credentials.scope } : {}),
  };
}

function parseSecret(secretId: string, text: string | undefined): Record<string, string> {
  if (text === undefined)
    throw new SecretFormatError(secretId, 'has no SecretString (binary secrets are not supported)');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message quotes the input: do not keep it as the cause.
    throw new SecretFormatError(secretId, 'is not valid JSON');
  }
  const parsed = credentialsSecretSchema.safeParse(json);
  if (!parsed.success) {
    const fields =
      typeof json === 'object' && json !== null && !Array.isArray(json)
        ? Object.keys(json).sort().join(', ')
        : typeof json;
    throw new SecretFormatError(
      secretId,
      `expected {"apiKey"} or {"clientId","clientSecret","scope"?} with non-empty strings; found keys: ${fields || 'none'}`,
    );
  }
  return credentialsToEnv(parsed.data);
}

export function createSecretsManagerSource(options: SecretsManagerSourceOptions): SecretSource {
  const { client, secretId, ttlMs, clock } = options;
  let cached: { value: Record<string, string>; expiresAt: number } | undefined;
  let inFlight: Promise<Record<string, string>> | undefined;

  const fetchSecret = async (): Promise<Record<string, string>> => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    const value = parseSecret(secretId, out.SecretString);
    cached = { value, expiresAt: clock.now().getTime() + ttlMs };
    return value;
  };

  const fetchShared = async (): Promise<Record<string, string>> => {
    inFlight ??= fetchSecret().finally(() => {
      inFlight = undefined;
    });
    return { ...(await inFlight) };
  };

  return {
    async get(): Promise<Record<string, string>> {
      if (cached !== undefined && clock.now().getTime() < cached.expiresAt) return { ...cached.value };
      return fetchShared();
    },
    // A replaced secret is picked up at once, not after the cache's ttl.
    refresh: fetchShared,
  };
}
