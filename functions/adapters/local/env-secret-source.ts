/**
 * `SecretSource` from an environment object (`process.env`, or a parsed `.env`): the API key,
 * or the OAuth client id and secret (and optional scope), under the names of `env-names.ts`.
 */
import * as z from 'zod';
import type { SecretSource } from '#functions/core/ports.js';
import { ENV } from '#functions/shared/env-names.js';

/** Neither an API key nor a client id and secret were set. Names the variables, never values. */
export class MissingCredentialsError extends Error {
  override readonly name = 'MissingCredentialsError';
  constructor(detail: string) {
    super(`accounting credentials: ${detail}`);
  }
}

const value = z.string().trim().min(1).optional();
const envSchema = z.object({
  [ENV.apiKey]: value,
  [ENV.clientId]: value,
  [ENV.clientSecret]: value,
  [ENV.scope]: value,
});

export function createEnvSecretSource(env: Readonly<Record<string, string | undefined>>): SecretSource {
  const source: SecretSource = {
    // The environment object is read on every call: `refresh` is `get`.
    refresh: () => source.get(),
    async get(): Promise<Record<string, string>> {
      // Empty strings count as unset; values themselves are never reported.
      const parsed = envSchema.parse(
        Object.fromEntries(
          Object.keys(envSchema.shape).map((name) => [name, env[name]?.trim() ? env[name] : undefined]),
        ),
      );
      const apiKey = parsed[ENV.apiKey];
      const clientId = parsed[ENV.clientId];
      const clientSecret = parsed[ENV.clientSecret];
      const scope = parsed[ENV.scope];
      if (apiKey !== undefined) return { [ENV.apiKey]: apiKey };
      if (clientId !== undefined && clientSecret !== undefined) {
        return {
          [ENV.clientId]: clientId,
          [ENV.clientSecret]: clientSecret,
          ...(scope !== undefined ? { [ENV.scope]: scope } : {}),
        };
      }
      if (clientId !== undefined || clientSecret !== undefined) {
        throw new MissingCredentialsError(
          `${clientId === undefined ? ENV.clientId : ENV.clientSecret} is not set (both ${ENV.clientId} and ${ENV.clientSecret} are needed)`,
        );
      }
      throw new MissingCredentialsError(`set ${ENV.apiKey}, or ${ENV.clientId} and ${ENV.clientSecret}`);
    },
  };
  return source;
}
