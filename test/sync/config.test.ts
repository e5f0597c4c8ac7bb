import { describe, expect, it } from 'vitest';
import { defaultPolledCollections } from '#functions/accounting/collections.js';
import { envConnectionEntry } from '#functions/adapters/env-connection-registry.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { ConfigError } from '#functions/shared/config.js';
import { loadPollerSettings } from '#functions/wiring/poller-config.js';

const AWS = {
  EVENT_BUS_NAME: 'bus',
  POLLER_CHECKPOINTS_TABLE: 'checkpoints',
  CLAIM_CHECK_BUCKET: 'claims',
  ACCOUNTING_BASE_URL: 'https://api.example.test',
  ACCOUNTING_API_KEY: 'key-that-must-not-leak-123',
};

describe('poller config', () => {
  it('has documented defaults', () => {
    const s = loadPollerSettings({});
    expect(s.collections).toEqual([...defaultPolledCollections]);
    expect(s.concurrency).toBe(4);
    expect(s.options).toMatchObject({
      connection: 'default',
      lookbackMs: 300_000,
      pageSize: 100,
      dedupeCapacity: 2000,
      reconcileIntervalMs: 86_400_000,
      maxEventBytes: 1_048_576,
    });
    expect(s.options.source).toBeUndefined();
  });

  it('reads every variable', () => {
    const s = loadPollerSettings({
      ACCOUNTING_CONNECTION: 'acme',
      EVENT_SOURCE: 'com.acme.accounting',
      POLLER_COLLECTIONS: 'ReceivedOrders, Banks',
      POLLER_LOOKBACK_SECONDS: '120',
      ACCOUNTING_PAGE_SIZE: '50',
      EVENT_MAX_ENTRY_SIZE_BYTES: '262144',
      POLLER_START_FROM: '2026-01-01T00:00:00Z',
    });
    expect(s.collections).toEqual(['ReceivedOrders', 'Banks']);
    expect(s.options).toMatchObject({
      connection: 'acme',
      source: 'com.acme.accounting',
      lookbackMs: 120_000,
      pageSize: 50,
      maxEventBytes: 262_144,
      startFrom: '2026-01-01T00:00:00Z',
    });
  });

  it('lists every problem of every section in one error, without secret values', () => {
    let error: unknown;
    try {
      loadConnectionPollerConfig({
        ACCOUNTING_API_KEY: AWS.ACCOUNTING_API_KEY,
        POLLER_COLLECTIONS: 'Nope',
        POLLER_LOOKBACK_SECONDS: '-1',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/POLLER_COLLECTIONS: unknown collection 'Nope'/);
    expect(message).toMatch(/POLLER_LOOKBACK_SECONDS/);
    expect(message).toMatch(/EVENT_BUS_NAME/);
    expect(message).not.toContain(AWS.ACCOUNTING_API_KEY);
    // The connection itself is the registry of one's: its service URL is checked there.
    expect(() => envConnectionEntry({ ACCOUNTING_API_KEY: AWS.ACCOUNTING_API_KEY })).toThrow(
      /ACCOUNTING_BASE_URL/,
    );
  });

  it('leaves the credentials to the connection: a deployment with its secret loads without a key', () => {
    const { ACCOUNTING_API_KEY: _key, ...env } = AWS;
    const withSecret = { ...env, ACCOUNTING_CREDENTIALS_SECRET: 'arn:secret' };
    expect(loadConnectionPollerConfig(withSecret).adapters.checkpointsTable).toBe('checkpoints');
    expect(envConnectionEntry(withSecret)).toMatchObject({
      baseUrl: AWS.ACCOUNTING_BASE_URL,
      credentialsSecret: 'deployment',
    });
  });
});
