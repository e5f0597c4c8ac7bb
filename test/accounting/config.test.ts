import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  accountingConfigSchema,
  DEFAULT_SCOPE,
  loadAccountingConfig,
  parseAccountingConfig,
} from '#functions/accounting/config.js';
import { Secret } from '#functions/accounting/secret.js';
import { ConfigError } from '#functions/shared/config.js';

const KEY = 'ak_test_Zq8Wm3Rt7Yp2Lk5Nx9Bv4Cs1';
const SECRET = 'cs_test_Hj6Gf3Ds8Aq1Wz4Xe7Rc2Tv5';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('accounting config', () => {
  it('reads an API-key configuration with defaults', () => {
    const config = loadAccountingConfig({
      ACCOUNTING_BASE_URL: 'https://api.example.com/',
      ACCOUNTING_API_KEY: KEY,
    });
    expect(config).toMatchObject({
      baseUrl: 'https://api.example.com',
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      maxAttempts: 4,
      pageSize: 100,
      tokenRenewMarginSeconds: 60,
      pathOverrides: {},
    });
    expect(config.credentials.kind).toBe('apiKey');
    if (config.credentials.kind === 'apiKey') expect(config.credentials.apiKey.reveal()).toBe(KEY);
  });

  it('reads OAuth client credentials with the default scope', () => {
    const config = loadAccountingConfig({
      ACCOUNTING_BASE_URL: 'https://api.example.com',
      ACCOUNTING_AUTH_URL: 'https://auth.example.com',
      ACCOUNTING_CLIENT_ID: 'client-1',
      ACCOUNTING_CLIENT_SECRET: SECRET,
      ACCOUNTING_PAGE_SIZE: '250',
      ACCOUNTING_PATH_OVERRIDES: '{"EInvoicing.status":"/v1/Peppol/{sendingId}"}',
    });
    expect(config.credentials).toMatchObject({ kind: 'oauth', scope: DEFAULT_SCOPE });
    expect(config.pageSize).toBe(250);
    expect(config.pathOverrides).toEqual({ 'EInvoicing.status': '/v1/Peppol/{sendingId}' });
  });

  it('picks the Czech presets with ACCOUNTING_SERVICE_VARIANT=cz; explicit settings win', () => {
    const cz = loadAccountingConfig({
      ACCOUNTING_SERVICE_VARIANT: 'cz',
      ACCOUNTING_CLIENT_ID: 'client-1',
      ACCOUNTING_CLIENT_SECRET: SECRET,
    });
    expect(cz).toMatchObject({
      variant: 'cz',
      baseUrl: 'https://api.mpohoda.cz',
      authUrl: 'https://ucet.pohoda.cz',
      credentials: { kind: 'oauth', scope: 'Mph.OpenApi.Access.Cz' },
    });
    const own = loadAccountingConfig({
      ACCOUNTING_SERVICE_VARIANT: ' CZ ',
      ACCOUNTING_BASE_URL: 'https://proxy.example.com',
      ACCOUNTING_AUTH_URL: 'https://auth.example.com',
      ACCOUNTING_SCOPE: 'Custom.Scope',
      ACCOUNTING_CLIENT_ID: 'client-1',
      ACCOUNTING_CLIENT_SECRET: SECRET,
      ACCOUNTING_PATH_OVERRIDES: '{"ReceivedOrders.transferToIssuedInvoice":"/v1/X/{id}/Y"}',
    });
    expect(own).toMatchObject({
      variant: 'cz',
      baseUrl: 'https://proxy.example.com',
      authUrl: 'https://auth.example.com',
      credentials: { scope: 'Custom.Scope' },
      pathOverrides: { 'ReceivedOrders.transferToIssuedInvoice': '/v1/X/{id}/Y' },
    });
    // The default variant has no public addresses: the base URL is required.
    const sk = configError(() => loadAccountingConfig({ ACCOUNTING_API_KEY: KEY }));
    expect(sk.issues.map((i) => i.field)).toEqual(['ACCOUNTING_BASE_URL']);
  });

  it('checks the variant and path overrides against that variant’s catalog', () => {
    const bad = configError(() =>
      loadAccountingConfig({ ACCOUNTING_SERVICE_VARIANT: 'at', ACCOUNTING_API_KEY: KEY }),
    );
    expect(bad.issues).toContainEqual({
      field: 'ACCOUNTING_SERVICE_VARIANT',
      expected: 'expected one of sk, cz',
    });
    // An operation only the Slovak contract has is unknown in the Czech catalog.
    const unknown = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_SERVICE_VARIANT: 'cz',
        ACCOUNTING_API_KEY: KEY,
        ACCOUNTING_PATH_OVERRIDES: '{"EInvoicing.status":"/v1/Peppol/{sendingId}"}',
      }),
    );
    expect(unknown.issues[0]?.field).toBe('ACCOUNTING_PATH_OVERRIDES');
    expect(unknown.issues[0]?.expected).toContain("unknown operation id 'EInvoicing.status'");
    const placeholder = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_SERVICE_VARIANT: 'cz',
        ACCOUNTING_API_KEY: KEY,
        ACCOUNTING_PATH_OVERRIDES: '{"IssuedInvoices.liquidateStandaloneFully":"/v1/X/{id}"}',
      }),
    );
    expect(placeholder.issues[0]?.expected).toContain('allowed: {DocumentId}');
  });

  it('lists every bad field in one ConfigError, without echoing values', () => {
    const error = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_BASE_URL: 'not a url',
        ACCOUNTING_CLIENT_SECRET: SECRET,
        ACCOUNTING_REQUEST_TIMEOUT_MS: 'soon',
        ACCOUNTING_MAX_ATTEMPTS: '0',
        ACCOUNTING_PAGE_SIZE: '-5',
        ACCOUNTING_PATH_OVERRIDES: '{"Nope.list":"/x","EInvoicing.status":"/v1/{other}"}',
      }),
    );
    const fields = error.issues.map((i) => i.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'ACCOUNTING_BASE_URL',
        'ACCOUNTING_REQUEST_TIMEOUT_MS',
        'ACCOUNTING_MAX_ATTEMPTS',
        'ACCOUNTING_PAGE_SIZE',
        'ACCOUNTING_PATH_OVERRIDES',
        'ACCOUNTING_CLIENT_ID',
        'ACCOUNTING_AUTH_URL',
      ]),
    );
    expect(error.message).toContain("unknown operation id 'Nope.list'");
    expect(error.message).toContain("uses '{other}'");
    expect(error.message).toContain('ACCOUNTING_PAGE_SIZE: expected a page size: an integer from 1 to 10000');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('not a url');
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  });

  it('refuses a URL carrying a user or password, without echoing it', () => {
    const error = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_BASE_URL: `https://user:${SECRET}@api.example.com`,
        ACCOUNTING_API_KEY: 'k',
      }),
    );
    expect(error.issues.map((i) => i.field)).toEqual(['ACCOUNTING_BASE_URL']);
    expect(error.message).toContain('without user, password');
    expect(error.message).not.toContain(SECRET);
  });

  it('requires credentials, and only one kind', () => {
    expect(
      configError(() => loadAccountingConfig({ ACCOUNTING_BASE_URL: 'https://a.example' })).message,
    ).toContain('ACCOUNTING_API_KEY: expected an API key, or an OAuth client id and client secret');
    const both = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_BASE_URL: 'https://a.example',
        ACCOUNTING_API_KEY: KEY,
        ACCOUNTING_CLIENT_ID: 'x',
      }),
    );
    expect(both.message).toContain('not both');
    expect(both.message).not.toContain(KEY);
    expect(configError(() => loadAccountingConfig({})).issues.map((i) => i.field)).toContain(
      'ACCOUNTING_BASE_URL',
    );
  });

  it('rejects overrides that are not a JSON object', () => {
    const error = configError(() =>
      loadAccountingConfig({
        ACCOUNTING_BASE_URL: 'https://a.example',
        ACCOUNTING_API_KEY: KEY,
        ACCOUNTING_PATH_OVERRIDES: '[1,',
      }),
    );
    expect(error.issues).toEqual([
      { field: 'ACCOUNTING_PATH_OVERRIDES', expected: expect.stringContaining('JSON object') },
    ]);
  });

  it('parses a plain object (CLI flags) and names fields the caller’s way', () => {
    const config = parseAccountingConfig({
      baseUrl: 'http://127.0.0.1:8080',
      apiKey: KEY,
      pageSize: 20,
      maxAttempts: 2,
    });
    expect(config.pageSize).toBe(20);
    const error = configError(() =>
      parseAccountingConfig(
        { baseUrl: 'ftp://x', apiKey: KEY, pageSize: 0 },
        (k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
      ),
    );
    expect(error.issues.map((i) => i.field)).toEqual(['--base-url', '--page-size']);
    expect(accountingConfigSchema.safeParse({ baseUrl: 'https://x.example', apiKey: KEY }).success).toBe(
      true,
    );
  });

  it('keeps credentials where they cannot leak', () => {
    const config = parseAccountingConfig({
      baseUrl: 'https://a.example',
      authUrl: 'https://auth.example',
      clientId: 'client-id-123',
      clientSecret: SECRET,
    });
    for (const text of [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      String(config.credentials),
      `${(config.credentials as { clientSecret: Secret }).clientSecret}`,
    ]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('client-id-123');
    }
    expect(JSON.stringify(new Secret('abcdefgh'))).toBe('"[redacted]"');
  });
});
