/**
 * `SecretSource` from an AWS Secrets Manager secret holding the accounting credentials as JSON:
 * `{ "apiKey": "…" }` or `{ "clientId": "…", "clientSecret": "…", "scope": "…" }`. Returns them
 * under the environment names of `shared/env-names.ts`, so the same config loader reads both.
 * The parsed secret is cached for `ttlMs` (one fetch in flight at a time; `refresh` bypasses the
 * cache after the service refused the credentials); no error carries
 * the secret's value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseCredentialsJson } from '#functions/core/connections/connection-secret.js';
import type { Clock, SecretSource } from '#functions/core/ports.js';

export {
  type CredentialsSecret,
  credentialsSecretSchema,
  credentialsToEnv,
} from '#functions/core/connections/connection-secret.js';

/** The secret exists but does not hold credentials in the expected shape. Never includes the value. */
export class SecretFormatError extends Error {
  override readonly name = 'SecretFormatError';
  constructor(
    readonly secretId: string,
    readonly detail: string,
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

function parseSecret(secretId: string, text: string | undefined): Record<string, string> {
  if (text === undefined)
    throw new SecretFormatError(secretId, 'has no SecretString (binary secrets are not supported)');
  const parsed = parseCredentialsJson(text);
  if (!parsed.ok) throw new SecretFormatError(secretId, parsed.problem);
  return parsed.values;
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
