/**
 * Where the CLI's settings come from: the process environment, plus a `.env` file in the working
 * directory when there is one (values already in the environment win, as with `process.loadEnvFile`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import type { AccountingConfigInput } from '../accounting/config.js';
import { ENV } from '../shared/env-names.js';

/** Loads `<cwd>/.env` into `env` (never overriding what is set); returns whether a file was read. */
export function loadDotEnv(env: Record<string, string | undefined>, cwd: string): boolean {
  const path = join(cwd, '.env');
  if (!existsSync(path)) return false;
  if (env === process.env) {
    process.loadEnvFile(path);
    return true;
  }
  const parsed = parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
  for (const [key, value] of Object.entries(parsed)) if (env[key] === undefined) env[key] = value;
  return true;
}

/** The accounting client settings from the environment (names in shared/env-names.ts). */
export function accountingInputFromEnv(env: Record<string, string | undefined>): AccountingConfigInput {
  return {
    variant: env[ENV.serviceVariant],
    baseUrl: env[ENV.baseUrl],
    authUrl: env[ENV.authUrl],
    apiKey: env[ENV.apiKey],
    clientId: env[ENV.clientId],
    clientSecret: env[ENV.clientSecret],
    scope: env[ENV.scope],
    requestTimeoutMs: env[ENV.requestTimeoutMs],
    connectTimeoutMs: env[ENV.connectTimeoutMs],
    maxAttempts: env[ENV.maxAttempts],
    retryBaseDelayMs: env[ENV.retryBaseDelayMs],
    retryMaxDelayMs: env[ENV.retryMaxDelayMs],
    retryAfterMaxMs: env[ENV.retryAfterMaxMs],
    pageSize: env[ENV.pageSize],
    tokenRenewMarginSeconds: env[ENV.tokenRenewMarginSeconds],
    pathOverrides: env[ENV.pathOverrides],
  };
}

/** How a config field is named in CLI errors: the flag when there is one, and the env var. */
export function cliFieldName(key: string): string {
  const envName = (ENV as Record<string, string>)[key];
  if (key === 'baseUrl') return `--base-url / ${ENV.baseUrl}`;
  if (key === 'authUrl') return `--auth-url / ${ENV.authUrl}`;
  if (key === 'variant') return ENV.serviceVariant;
  return envName ?? key;
}
