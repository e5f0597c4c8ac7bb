/**
 * Issue 33: a registry entry's `source` was not bound to its name. An entry `mallory` with
 * `source: accounting.acme` published as acme, and so reached acme's delivery target, signed with
 * acme's secret. Now a registry entry publishes under `accounting.<its name>` only, and a target
 * scoped to connections also matches on `detail.connection`.
 */
import { describe, expect, it } from 'vitest';
import { createEnvConnectionRegistry } from '#functions/adapters/env-connection-registry.js';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import {
  ConnectionsFileError,
  parseConnectionsDocument,
} from '#functions/core/connections/connections-file.js';
import { buildTestApp } from '../infra/support.js';

const entry = (name: string, source?: string) => ({
  name,
  baseUrl: 'https://api.example.com',
  credentialsSecret: `env:${name.toUpperCase()}_CREDENTIALS`,
  ...(source !== undefined ? { source } : {}),
});

describe('a registry entry publishes under its own name only', () => {
  it.each(['accounting.acme', 'accounting.mallory2', 'shop.acme', 'accounting.', 'accounting.acme/x'])(
    'refuses mallory with source %s, naming the field',
    (source) => {
      const error = (() => {
        try {
          parseConnectionEntry(entry('mallory', source));
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConnectionEntryError);
      expect(String((error as Error).message)).toMatch(/source.*accounting\.mallory/);
    },
  );

  it('refuses the impersonation in a connections file, next to its victim', () => {
    expect(() =>
      parseConnectionsDocument(
        { connections: [entry('acme'), entry('mallory', 'accounting.acme')] },
        'c.json',
      ),
    ).toThrow(ConnectionsFileError);
  });

  it('keeps an entry without source or with its own', () => {
    expect(parseConnectionEntry(entry('acme')).source).toBeUndefined();
    expect(parseConnectionEntry(entry('acme', 'accounting.acme')).source).toBe('accounting.acme');
  });

  it("keeps a single-company deployment's own EVENT_SOURCE (no other connection shares its bus)", async () => {
    const registry = createEnvConnectionRegistry({
      ACCOUNTING_CONNECTION: 'acme',
      ACCOUNTING_BASE_URL: 'https://api.example.com',
      EVENT_SOURCE: 'shop.acme',
    });
    expect((await registry.list())[0]?.source).toBe('shop.acme');
  });

  it("a target scoped to acme matches acme's source and detail.connection, with both delivery modes", () => {
    for (const deliveryVia of ['function', 'api-destination'] as const) {
      const t = buildTestApp({
        connectionRegistry: true,
        deliveryVia,
        deliveries: JSON.stringify([{ url: 'https://hooks.example.com/acme', connections: ['acme'] }]),
      });
      const rules = t.statelessTemplate.findResources('AWS::Events::Rule') as Record<
        string,
        { Properties: { EventPattern?: unknown } }
      >;
      const patterns = Object.values(rules)
        .map((r) => r.Properties.EventPattern)
        .filter((p) => JSON.stringify(p ?? {}).includes('accounting.acme'));
      expect(patterns, deliveryVia).toEqual([
        { source: ['accounting.acme'], detail: { connection: ['acme'] } },
      ]);
    }
  });
});
