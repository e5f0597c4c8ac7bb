/**
 * The one per-connection action path outside the DynamoDB registry: the local runtime's actions
 * refuse an unknown, paused or foreign-source event as the Lambda functions do (before anything is
 * read from the service), and a single-company deployment is the environment-backed registry of one.
 */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import {
  createEnvConnectionRegistry,
  ReadOnlyRegistryError,
} from '#functions/adapters/env-connection-registry.js';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import { actionSettingsOfRegistry } from '#functions/core/actions/actions-config.js';
import { connectionActionsConfig } from '#functions/core/connection-actions.js';
import { type ConnectionEntry, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import type { BusEvent } from '#functions/core/ports.js';
import { startLocalActions } from '#functions/local/local-actions.js';
import { type LocalStores, startLocalStores } from '#functions/local/local-stores.js';
import { systemClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';
import { recordingLogger } from '../actions/support.js';

const INVOICE = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c03';

/** A service that must not be called: every refusal happens before anything is read. */
function untouchableApi(calls: string[]): AccountingApi {
  return new Proxy({} as AccountingApi, {
    get: (_target, property) => () => {
      calls.push(String(property));
      throw new Error(`the service was called (${String(property)})`);
    },
  });
}

function invoiceEvent(connection: string, source = `accounting.${connection}`): EventBridgeEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'IssuedInvoice.Created',
    source,
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'eu-central-1',
    resources: [],
    detail: {
      version: ENVELOPE_VERSION,
      connection,
      recordType: 'IssuedInvoice',
      id: INVOICE,
      change: 'Created',
      modifiedDate: '2026-03-04T16:40:12Z',
      idempotencyKey: idempotencyKey(connection, 'IssuedInvoice', INVOICE, '2026-03-04T16:40:12Z'),
      record: {
        Id: INVOICE,
        ModificationInfo: { CreatedDate: '2026-03-04T16:40:12Z', ModifiedDate: '2026-03-04T16:40:12Z' },
      },
    },
  } as EventBridgeEvent;
}

let dataDir: string;
let stores: LocalStores;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'one-action-path-'));
  stores = await startLocalStores(dataDir);
});

afterAll(async () => {
  await stores?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the local runtime acts through the per-connection path', () => {
  it('refuses unknown, paused and foreign-source events before reading anything', async () => {
    const calls: string[] = [];
    const logger = recordingLogger();
    const entry = (name: string) =>
      parseConnectionEntry({
        name,
        variant: 'sk',
        baseUrl: 'https://api.example.sk',
        credentialsSecret: `env:${name.toUpperCase()}_CREDENTIALS`,
        actions: { ACTIONS_ISDOC_ARCHIVE: 'true' },
      });
    const connections = new Map<string, ConnectionEntry>([
      ['alpha', entry('alpha')],
      ['beta', entry('beta')],
    ]);
    const actions = await startLocalActions({
      connections: {
        registry: {
          get: async (name) => connections.get(name),
          scan: async () => ({ entries: [...connections.values()], malformed: [] }),
        },
        apiFor: async () => untouchableApi(calls),
        sandboxOf: () => undefined,
      },
      stores,
      logger,
      clock: systemClock,
    });
    const published: BusEvent[] = [];
    const deadLettered: string[] = [];
    actions.bindPublisher({
      publish: async (events) => {
        published.push(...events);
      },
      deadLetterSink: (routeId) => ({
        send: async () => {
          deadLettered.push(routeId);
        },
      }),
    });
    const route = actions.routes.find((r) => r.handler === 'archive-isdoc');
    if (!route) throw new Error('no archive route');

    // Paused while running (the registry file changed): refused, as on AWS.
    connections.set('beta', { ...(connections.get('beta') as ConnectionEntry), paused: true });
    await actions.deliver(route, invoiceEvent('beta'));
    await actions.deliver(route, invoiceEvent('gamma'));
    // The source must be the connection's own: an event of one connection cannot act for another.
    await actions.deliver(route, invoiceEvent('alpha', 'accounting.beta'));

    const refusals = logger.lines
      .filter((l) => l.message === 'action refused for connection')
      .map((l) => [l.data?.connection, l.data?.refusal]);
    expect(refusals).toEqual([
      ['beta', 'paused'],
      ['gamma', 'unknown'],
    ]);
    expect(deadLettered).toEqual([route.id]);
    expect(calls).toEqual([]);
    expect(published).toEqual([]);
    await actions.close();
  });
});

describe('a single-company deployment is a registry of one', () => {
  it('holds the connection of the environment, with its custom event source', async () => {
    const registry = createEnvConnectionRegistry({
      ACCOUNTING_CONNECTION: 'acme',
      ACCOUNTING_SERVICE_VARIANT: 'cz',
      EVENT_SOURCE: 'com.example.accounting',
    });
    const [entry] = await registry.list();
    expect(entry).toMatchObject({ name: 'acme', variant: 'cz', paused: false, actions: {} });
    // Its custom source is one of its fields: the single-company deployment's alone (a registry
    // entry may not carry one: it would publish as another connection).
    expect(entry?.source).toBe('com.example.accounting');
    expect(() => parseConnectionEntry(entry)).toThrow(/source: expected accounting\.acme/);
    expect(() => parseConnectionEntry({ ...entry, source: undefined })).not.toThrow();
    expect(await registry.get('acme')).toEqual(entry);
    expect(await registry.get('other')).toBeUndefined();
    expect((await registry.scan()).entries).toEqual([entry]);
    // The path reads the deployment's source from the entry: routes and the source check agree.
    const config = connectionActionsConfig({}, entry as NonNullable<typeof entry>, actionSettingsOfRegistry);
    expect(config.eventSource).toBe('com.example.accounting');
    expect(config.connection).toBe('acme');
    await expect(registry.setPaused('acme', true)).rejects.toBeInstanceOf(ReadOnlyRegistryError);
  });

  it('defaults to the connection "default" under accounting.default, and names a bad variable', async () => {
    const [entry] = await createEnvConnectionRegistry({
      ACCOUNTING_BASE_URL: 'https://api.example.sk',
    }).list();
    expect(
      connectionActionsConfig({}, entry as NonNullable<typeof entry>, actionSettingsOfRegistry).eventSource,
    ).toBe('accounting.default');
    let error: unknown;
    try {
      createEnvConnectionRegistry({ ACCOUNTING_CONNECTION: 'Not A Name', ACCOUNTING_SERVICE_VARIANT: 'de' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const fields = (error as ConfigError).issues.map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['ACCOUNTING_CONNECTION', 'ACCOUNTING_SERVICE_VARIANT']));
  });
});
