/**
 * Configuration of the accounting client, validated with zod. `loadAccountingConfig(env)` reads the
 * environment (names from `shared/env-names.ts`); `parseAccountingConfig(input)` takes the same
 * settings as an object (the CLI passes its flags). Both throw one `ConfigError` listing every bad
 * field with what was expected — never a value, so no secret is echoed. Credentials end up in
 * `Secret` wrappers that print `[redacted]`.
 */
import * as z from 'zod';
import { ConfigError } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { DEFAULT_SERVICE_VARIANT, type ServiceVariant, serviceVariants } from './collections.js';
import { findOperation } from './endpoints.js';
import { Secret } from './secret.js';

export const DEFAULT_SCOPE = 'Service.OpenApi.Access.Sk';

export interface VariantPreset {
  /** Service base URL (paths start with `/v1`); `undefined`: not public, must be configured. */
  readonly baseUrl: string | undefined;
  /** OAuth authority (token endpoint `{authUrl}/connect/token`); `undefined`: must be configured. */
  readonly authUrl: string | undefined;
  readonly scope: string;
}

/**
 * What `ACCOUNTING_SERVICE_VARIANT` picks. The Czech addresses and scope are those of the vendor's
 * public OpenAPI description; the Slovak contract names only its scope. Explicit settings win.
 */
export const variantPresets: Readonly<Record<ServiceVariant, VariantPreset>> = {
  sk: { baseUrl: undefined, authUrl: undefined, scope: DEFAULT_SCOPE },
  cz: {
    baseUrl: 'https://api.mpohoda.cz',
    authUrl: 'https://ucet.pohoda.cz',
    scope: 'Mph.OpenApi.Access.Cz',
  },
};

export const configDefaults = {
  scope: DEFAULT_SCOPE,
  requestTimeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  maxAttempts: 4,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 20_000,
  retryAfterMaxMs: 60_000,
  pageSize: 100,
  tokenRenewMarginSeconds: 60,
} as const;

export type Credentials =
  | { kind: 'apiKey'; apiKey: Secret }
  | { kind: 'oauth'; clientId: Secret; clientSecret: Secret; scope: string };

export interface AccountingConfig {
  /** National variant of the service: picks the endpoint catalog, collections and presets. */
  variant: ServiceVariant;
  /** Without a trailing slash, e.g. `https://api.example.com`; paths start with `/v1`. */
  baseUrl: string;
  /** OAuth authority, without a trailing slash; the token endpoint is `{authUrl}/connect/token`. */
  authUrl: string | undefined;
  credentials: Credentials;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Attempts per call, the first included. */
  maxAttempts: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  retryAfterMaxMs: number;
  pageSize: number;
  tokenRenewMarginSeconds: number;
  /** Operation id → path template, replacing the catalog's path (validated against the catalog). */
  pathOverrides: Readonly<Record<string, string>>;
}

/** The settings as an object (keys of `ENV`); strings are accepted for numbers (env, CLI flags). */
export type AccountingConfigInput = Partial<
  Record<
    | 'variant'
    | 'baseUrl'
    | 'authUrl'
    | 'apiKey'
    | 'clientId'
    | 'clientSecret'
    | 'scope'
    | 'requestTimeoutMs'
    | 'connectTimeoutMs'
    | 'maxAttempts'
    | 'retryBaseDelayMs'
    | 'retryMaxDelayMs'
    | 'retryAfterMaxMs'
    | 'pageSize'
    | 'tokenRenewMarginSeconds',
    string | number | undefined
  > & { pathOverrides: string | Record<string, string> | undefined }
>;

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** `localhost`, 127.0.0.0/8 or ::1: the only hosts plain `http://` may name (a local sandbox or twin). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** `https:` anywhere, `http:` on a loopback host only: credentials never travel in clear text. */
export function isSecureServiceUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
  } catch {
    return false;
  }
}

const url = (what: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string({ error: `expected ${what} (an http or https URL)` })
      .trim()
      .refine(
        (s) => {
          try {
            const u = new URL(s);
            return (
              (u.protocol === 'http:' || u.protocol === 'https:') &&
              !u.search &&
              !u.hash &&
              !u.username &&
              !u.password
            );
          } catch {
            return false;
          }
        },
        {
          error: `expected ${what} (an http or https URL without user, password, query or fragment; credentials have their own settings)`,
        },
      )
      // Only for URLs the check above accepts: one issue per bad value.
      .refine((s) => !URL.canParse(s) || !/^https?:$/.test(new URL(s).protocol) || isSecureServiceUrl(s), {
        error: `expected ${what} with https (plain http only on localhost, 127.0.0.1 or ::1)`,
      })
      .transform((s) => s.replace(/\/+$/, '')),
  );

const secretText = (what: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string({ error: `expected ${what} (a non-empty string)` })
      .trim()
      .min(1),
  );

const int = (what: string, min: number, max: number, fallback: number) =>
  z.preprocess(
    (v) => {
      const e = emptyToUndefined(v);
      return typeof e === 'string' && /^\s*-?\d+\s*$/.test(e) ? Number(e) : e;
    },
    z
      .number({ error: `expected ${what}: an integer from ${min} to ${max}` })
      .int({ error: `expected ${what}: an integer from ${min} to ${max}` })
      .min(min, { error: `expected ${what}: an integer from ${min} to ${max}` })
      .max(max, { error: `expected ${what}: an integer from ${min} to ${max}` })
      .default(fallback),
  );

const placeholders = (template: string) => new Set([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));

const pathOverrides = z.preprocess(
  (v) => {
    const e = emptyToUndefined(v);
    if (typeof e !== 'string') return e;
    try {
      return JSON.parse(e);
    } catch {
      return Symbol('invalid-json');
    }
  },
  z
    .record(z.string(), z.string(), {
      error:
        'expected a JSON object of operation id → path template, e.g. {"EInvoicing.status":"/v1/X/{sendingId}"}',
    })
    .default({}),
);

/** Problems of path overrides against the variant's catalog (ids, path shape, placeholders). */
function overrideProblems(variant: ServiceVariant, map: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const [id, path] of Object.entries(map)) {
    const op = findOperation(id, variant);
    if (!op) {
      problems.push(`unknown operation id '${id}' (see the endpoint catalog of variant ${variant})`);
      continue;
    }
    if (!path.startsWith('/') || /[?#\s]/.test(path)) {
      problems.push(`path for '${id}' must start with '/' and have no query, fragment or spaces`);
      continue;
    }
    const allowed = placeholders(op.path);
    for (const name of placeholders(path)) {
      if (!allowed.has(name)) {
        problems.push(
          `path for '${id}' uses '{${name}}'; allowed: ${[...allowed].map((a) => `{${a}}`).join(', ') || 'none'}`,
        );
      }
    }
  }
  return problems;
}

const variantSchema = z.preprocess(
  (v) => {
    const e = emptyToUndefined(v);
    return typeof e === 'string' ? e.trim().toLowerCase() : e;
  },
  z
    .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
    .default(DEFAULT_SERVICE_VARIANT),
);

/** The zod schema over the settings object (keys of `ENV`); the result holds secrets in `Secret`. */
export const accountingConfigSchema = z
  .object({
    variant: variantSchema,
    baseUrl: url('the service base URL').optional(),
    authUrl: url('the OAuth authority URL').optional(),
    apiKey: secretText('an API key').optional(),
    clientId: secretText('an OAuth client id').optional(),
    clientSecret: secretText('an OAuth client secret').optional(),
    scope: z.preprocess(
      emptyToUndefined,
      z.string({ error: 'expected an OAuth scope' }).trim().min(1).optional(),
    ),
    requestTimeoutMs: int('milliseconds', 100, 900_000, configDefaults.requestTimeoutMs),
    connectTimeoutMs: int('milliseconds', 100, 120_000, configDefaults.connectTimeoutMs),
    maxAttempts: int('attempts', 1, 10, configDefaults.maxAttempts),
    retryBaseDelayMs: int('milliseconds', 1, 60_000, configDefaults.retryBaseDelayMs),
    retryMaxDelayMs: int('milliseconds', 1, 600_000, configDefaults.retryMaxDelayMs),
    retryAfterMaxMs: int('milliseconds', 0, 3_600_000, configDefaults.retryAfterMaxMs),
    pageSize: int('a page size', 1, 10_000, configDefaults.pageSize),
    tokenRenewMarginSeconds: int('seconds', 0, 3_600, configDefaults.tokenRenewMarginSeconds),
    pathOverrides,
  })
  .superRefine(
    (c, ctx) => {
      if (typeof c !== 'object' || c === null) return;
      const preset = serviceVariants.includes(c.variant) ? variantPresets[c.variant] : undefined;
      if (preset && c.baseUrl === undefined && preset.baseUrl === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['baseUrl'],
          message: `expected the service base URL (an http or https URL; variant ${c.variant} has no preset)`,
        });
      }
      if (preset && c.pathOverrides && typeof c.pathOverrides === 'object') {
        for (const message of overrideProblems(c.variant, c.pathOverrides)) {
          ctx.addIssue({ code: 'custom', path: ['pathOverrides'], message });
        }
      }
      const oauthGiven = c.clientId !== undefined || c.clientSecret !== undefined;
      if (c.apiKey !== undefined && oauthGiven) {
        ctx.addIssue({
          code: 'custom',
          path: ['apiKey'],
          message: 'expected either an API key or OAuth client credentials, not both',
        });
        return;
      }
      if (c.apiKey === undefined && !oauthGiven) {
        ctx.addIssue({
          code: 'custom',
          path: ['apiKey'],
          message: 'expected an API key, or an OAuth client id and client secret',
        });
        return;
      }
      if (oauthGiven) {
        if (c.clientId === undefined)
          ctx.addIssue({ code: 'custom', path: ['clientId'], message: 'expected an OAuth client id' });
        if (c.clientSecret === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['clientSecret'],
            message: 'expected an OAuth client secret',
          });
        if (c.authUrl === undefined && preset?.authUrl === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['authUrl'],
            message: 'expected the OAuth authority URL (required with client credentials)',
          });
      }
      if (
        typeof c.retryMaxDelayMs === 'number' &&
        typeof c.retryBaseDelayMs === 'number' &&
        c.retryMaxDelayMs < c.retryBaseDelayMs
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['retryMaxDelayMs'],
          message: 'expected milliseconds not below the base delay',
        });
      }
      // Runs even when single fields failed, so one error lists every problem.
    },
    { when: () => true },
  )
  .transform((c): AccountingConfig => {
    const preset = variantPresets[c.variant];
    const credentials: Credentials =
      c.apiKey !== undefined
        ? { kind: 'apiKey', apiKey: new Secret(c.apiKey) }
        : {
            kind: 'oauth',
            clientId: new Secret(c.clientId ?? ''),
            clientSecret: new Secret(c.clientSecret ?? ''),
            scope: c.scope ?? preset.scope,
          };
    return {
      variant: c.variant,
      baseUrl: c.baseUrl ?? preset.baseUrl ?? '',
      authUrl: c.authUrl ?? preset.authUrl,
      credentials,
      requestTimeoutMs: c.requestTimeoutMs,
      connectTimeoutMs: c.connectTimeoutMs,
      maxAttempts: c.maxAttempts,
      retryBaseDelayMs: c.retryBaseDelayMs,
      retryMaxDelayMs: c.retryMaxDelayMs,
      retryAfterMaxMs: c.retryAfterMaxMs,
      pageSize: c.pageSize,
      tokenRenewMarginSeconds: c.tokenRenewMarginSeconds,
      pathOverrides: c.pathOverrides,
    };
  });

type Key = keyof AccountingConfigInput;

const envNameOf: Record<Key, string> = {
  variant: ENV.serviceVariant,
  baseUrl: ENV.baseUrl,
  authUrl: ENV.authUrl,
  apiKey: ENV.apiKey,
  clientId: ENV.clientId,
  clientSecret: ENV.clientSecret,
  scope: ENV.scope,
  requestTimeoutMs: ENV.requestTimeoutMs,
  connectTimeoutMs: ENV.connectTimeoutMs,
  maxAttempts: ENV.maxAttempts,
  retryBaseDelayMs: ENV.retryBaseDelayMs,
  retryMaxDelayMs: ENV.retryMaxDelayMs,
  retryAfterMaxMs: ENV.retryAfterMaxMs,
  pageSize: ENV.pageSize,
  tokenRenewMarginSeconds: ENV.tokenRenewMarginSeconds,
  pathOverrides: ENV.pathOverrides,
};

/**
 * Parses settings given as an object. `fieldName` names fields in the error (default: the key);
 * the CLI passes its flag names.
 */
export function parseAccountingConfig(
  input: AccountingConfigInput,
  fieldName: (key: Key) => string = (k) => k,
): AccountingConfig {
  const result = accountingConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const seen = new Set<string>();
  const issues: { field: string; expected: string }[] = [];
  for (const issue of result.error.issues) {
    const key = issue.path[0];
    const field =
      typeof key === 'string' && key in envNameOf ? fieldName(key as Key) : String(key ?? '(config)');
    // zod's own messages never contain the input value; ours never do either.
    const expected = issue.message;
    const id = `${field}|${expected}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push({ field, expected });
  }
  throw new ConfigError(issues);
}

/** Reads and validates the client configuration from the environment (e.g. `process.env`). */
export function loadAccountingConfig(env: Record<string, string | undefined>): AccountingConfig {
  const input: AccountingConfigInput = {};
  for (const [key, name] of Object.entries(envNameOf) as [Key, string][]) {
    const value = env[name];
    if (value !== undefined) (input as Record<string, unknown>)[key] = value;
  }
  return parseAccountingConfig(input, (k) => envNameOf[k]);
}
