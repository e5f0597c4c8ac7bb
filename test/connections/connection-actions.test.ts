/**
 * One action function for every connection of the registry, end to end: the registry and the
 * token buckets in dynalite, the archive in s3rver, idempotency records through Powertools on
 * dynalite, a sandbox serving three companies with their own credentials; Secrets Manager (no
 * local server) through aws-sdk-client-mock. Each event runs on its own connection's client,
 * secret and bucket; outcomes, archive keys and idempotency records are its connection's; an
 * unknown, paused or switched-off connection's event does nothing; a 429 of one connection pauses
 * only its bucket.
 */

import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbConnectionRegistry } from '#functions/adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '#functions/adapters/aws/dynamodb-rate-limiter.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import type { EventActionDefinition } from '#functions/core/actions/action-definition.js';
import { actionSettingsOfRegistry } from '#functions/core/actions/actions-config.js';
import { archiveIsdocAction } from '#functions/core/actions/archive-isdoc/action.js';
import type { OpenSendings } from '#functions/core/actions/open-sendings.js';
import { transferDocumentsAction } from '#functions/core/actions/transfer-documents/action.js';
import { connectionActionEntry, connectionActionsConfig } from '#functions/core/connection-actions.js';
import { parseCheckedConnectionEntry } from '#functions/core/connections/checked-entry.js';
import {
  type ConnectionEntryInput,
  parseConnectionEntry,
} from '#functions/core/connections/connection-entry.js';
import { ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import type { ObjectStore } from '#functions/core/ports.js';
import { connectionActionClients, connectionActionDeps } from '#functions/handlers/connection-actions.js';
import { createInvocationDeadline } from '#functions/handlers/invocation-deadline.js';
import { systemClock } from '#functions/shared/clock.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { recordEventFixture } from '../support/event-fixtures.js';
import { SERVER_WAIT_MS } from '../support/wait.js';

const SECRET_PREFIX = 'accounting-events-test/connections/';
/** Tuning of every client: a long Retry-After fails at once instead of being waited for. */
const ENV = { ACCOUNTING_MAX_ATTEMPTS: '2', ACCOUNTING_RETRY_AFTER_MAX_MS: '1000' };

let sandbox: Sandbox;
let servers: TestServers;
const secretsMock = mockClient(SecretsManagerClient);

beforeAll(async () => {
  [sandbox, servers] = await Promise.all([
    startSandbox({
      companies: 3,
      sizes: { documents: 30, partners: 6, perCollection: { ReceivedOrders: 6, IssuedInvoices: 4 } },
    }),
    startTestServers(),
  ]);
  secretsMock.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => {
    const index = { alpha: 1, beta: 2, gamma: 3 }[input.SecretId.slice(SECRET_PREFIX.length)];
    if (!index) throw new Error(`no secret ${input.SecretId}`);
    return { SecretString: JSON.stringify({ apiKey: sandbox.credentialsOf(index).apiKey }) };
  });
});
afterAll(async () => {
  secretsMock.restore();
  await Promise.all([sandbox?.close(), servers?.close()]);
});

const companyState = (index: number) => sandbox.server.companies.get(index).state;

function entry(name: string, more: Partial<ConnectionEntryInput> = {}) {
  return parseConnectionEntry({
    name,
    baseUrl: sandbox.baseUrl,
    credentialsSecret: `${SECRET_PREFIX}${name}`,
    ...more,
  });
}

/** A record event of `connection`, as its poller publishes it. */
function eventOf(connection: string, recordType: string, record: ApiRecord, source?: string) {
  const modifiedDate = (record.ModificationInfo as { ModifiedDate?: string } | undefined)?.ModifiedDate;
  return {
    ...recordEventFixture(),
    id: randomUUID(),
    'detail-type': `${recordType}.Created`,
    source: source ?? `accounting.${connection}`,
    time: new Date().toISOString(),
    detail: {
      version: ENVELOPE_VERSION,
      connection,
      recordType,
      id: record.Id,
      change: 'Created',
      modifiedDate: modifiedDate ?? null,
      idempotencyKey: idempotencyKey(connection, recordType, record.Id, modifiedDate ?? 'none'),
      record,
    },
  };
}

/** A deployment's action functions over a fresh registry, bucket table, idempotency table and bucket. */
async function deployment(entries: ReturnType<typeof entry>[]) {
  const [registryTable, rateLimitTable, idempotencyTable, stateTable, bucket] = await Promise.all([
    servers.connectionTable(),
    servers.checkpointTable('rate-limits'),
    servers.idempotencyTable(),
    servers.checkpointTable('state'),
    servers.bucket('archive'),
  ]);
  const registry = createDynamoDbConnectionRegistry({ client: servers.dynamoDb, tableName: registryTable });
  for (const e of entries) await registry.add(e);
  const clock = systemClock;
  const logger = recordingLogger();
  const publisher = recordingPublisher();
  const limiter = createDynamoDbRateLimiter({ client: servers.dynamoDb, tableName: rateLimitTable, clock });
  const secrets = createConnectionSecretResolver({
    env: {},
    clock,
    secretsManager: new SecretsManagerClient({ region: 'eu-central-1' }),
  });
  const clients = connectionActionClients({
    env: ENV,
    clock,
    logger,
    secrets,
    limiter,
    deadline: createInvocationDeadline(),
  });
  const archive = createS3ObjectStore({ client: servers.s3, bucket, listApiVersion: 1 });
  const stores = {
    idempotency: createPowertoolsGuard({
      client: servers.dynamoDb,
      tableName: idempotencyTable,
      expiresAfterSeconds: 3600,
    }),
    actionState: createDynamoDbCheckpointStore<OpenSendings>({
      client: servers.dynamoDb,
      tableName: stateTable,
    }),
    archive,
    sendingRecords: archive,
    reports: archive,
  };
  const capabilities = { isdocSchema: createXsdIsdocSchema() };
  const deps = { env: {}, registry, clients, limiter, publisher, stores, clock, logger, capabilities };
  // biome-ignore lint/suspicious/noExplicitAny: the registry holds entries of any dependencies
  const fn = (action: EventActionDefinition<any, any>) =>
    connectionActionEntry(action, connectionActionDeps(deps));
  const bucketOf = async (connection: string) => {
    const { Item } = await servers.dynamoDb.send(
      new GetItemCommand({ TableName: rateLimitTable, Key: { pk: { S: connection } }, ConsistentRead: true }),
    );
    return Item;
  };
  return {
    transfer: fn(transferDocumentsAction),
    archive: fn(archiveIsdocAction),
    registry,
    publisher,
    logger,
    archiveObjects: archive,
    bucketOf,
    rateLimitTable,
    close: () => clients.close(),
  };
}

/** An unfinished received order of company `index` (a fresh copy of one with no transfer history). */
function unfinishedOrder(index: number, id?: string): ApiRecord {
  const state = companyState(index);
  const [first] = state.list('ReceivedOrders', { pageSize: 100, pageNumber: 1 }).items;
  if (!first) throw new Error(`company ${index} has no received order`);
  const { Id: _id, ...rest } = structuredClone(first) as ApiRecord;
  return state.create('ReceivedOrders', { ...rest, ...(id ? { Id: id } : {}), Status: 'Unfinished' });
}

async function archived(objects: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of objects.list('isdoc/')) keys.push(o.key);
  return keys;
}

const slipsFrom = (index: number, order: ApiRecord) => {
  const itemIds = new Set(((order.Items as ApiRecord[]) ?? []).map((i) => i.Id));
  return companyState(index)
    .list('IssueSlips', { pageSize: 1000, pageNumber: 1 })
    .items.filter((s) =>
      ((s.Items as Array<Record<string, unknown>>) ?? []).some((i) =>
        itemIds.has(i.ReceivedOrderItemId as string),
      ),
    );
};

describe('actions for every connection of the registry', () => {
  it('one function acts for two connections, each with its own credentials, bucket, keys and outcomes', async () => {
    const d = await deployment([entry('alpha'), entry('beta')]);
    secretsMock.resetHistory();
    const before = sandbox.requestCounts().byCredential;
    // The same record id in both companies: the idempotency records must not collide.
    const alphaOrder = unfinishedOrder(1);
    const betaOrder = unfinishedOrder(2, alphaOrder.Id);

    const alpha = eventOf('alpha', 'ReceivedOrder', alphaOrder);
    const beta = eventOf('beta', 'ReceivedOrder', betaOrder);
    await expect(d.transfer(alpha)).resolves.toMatchObject({ status: 'done' });
    await expect(d.transfer(beta)).resolves.toMatchObject({ status: 'done' });
    await expect(d.transfer(eventOf('alpha', 'ReceivedOrder', alphaOrder))).resolves.toMatchObject({
      status: 'duplicate',
    });
    await expect(d.transfer(eventOf('beta', 'ReceivedOrder', betaOrder))).resolves.toMatchObject({
      status: 'duplicate',
    });

    // Each company got its own issue slip, made through its own credentials.
    expect(slipsFrom(1, alphaOrder)).toHaveLength(1);
    expect(slipsFrom(2, betaOrder)).toHaveLength(1);
    const after = sandbox.requestCounts().byCredential;
    const used = (credential: string) => (after[credential] ?? 0) - (before[credential] ?? 0);
    expect(used('api-key:sandbox')).toBeGreaterThan(0);
    expect(used('api-key:sandbox-2')).toBeGreaterThan(0);
    // Outcomes carry their own connection's source and name.
    const outcomes = d.publisher.ofType('ReceivedOrder.Transferred');
    expect(outcomes.map((e) => [e.source, (e.detail as { connection: string }).connection])).toEqual([
      ['accounting.alpha', 'alpha'],
      ['accounting.beta', 'beta'],
    ]);
    // One secret read per connection (cached since), and every request drawn from its own bucket.
    const reads = secretsMock.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.SecretId);
    expect(reads.sort()).toEqual([`${SECRET_PREFIX}alpha`, `${SECRET_PREFIX}beta`]);
    expect(await d.bucketOf('alpha')).toMatchObject({ version: { N: expect.any(String) } });
    expect(await d.bucketOf('beta')).toMatchObject({ version: { N: expect.any(String) } });
    // No credential in any log line.
    const logs = JSON.stringify(d.logger.lines);
    for (const i of [1, 2]) expect(logs).not.toContain(sandbox.credentialsOf(i).apiKey);
    await d.close();
  });
});

describe('archive keys per connection', () => {
  it("each connection's invoice lands under its own archive prefix, announced under its own source", async () => {
    const d = await deployment([entry('alpha'), entry('beta')]);
    const invoiceOf = (index: number) =>
      companyState(index).list('IssuedInvoices', { pageSize: 1, pageNumber: 1 }).items[0] as ApiRecord;
    await expect(d.archive(eventOf('alpha', 'IssuedInvoice', invoiceOf(1)))).resolves.toMatchObject({
      status: 'done',
    });
    await expect(d.archive(eventOf('beta', 'IssuedInvoice', invoiceOf(2)))).resolves.toMatchObject({
      status: 'done',
    });
    const keys = (await archived(d.archiveObjects)).sort();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^isdoc\/alpha\/IssuedInvoice\//);
    expect(keys[1]).toMatch(/^isdoc\/beta\/IssuedInvoice\//);
    expect(d.publisher.ofType('IssuedInvoice.IsdocArchived').map((e) => e.source)).toEqual([
      'accounting.alpha',
      'accounting.beta',
    ]);
    await d.close();
  });
});

describe('refused connections: nothing happens, and the outcome says why', () => {
  it('unknown, paused and switched-off connections, and a source naming another connection', async () => {
    const d = await deployment([
      entry('alpha', { actions: { ACTIONS_ISDOC_ARCHIVE: 'false' } }),
      entry('gamma', { paused: true }),
    ]);
    secretsMock.resetHistory();
    const before = sandbox.requestCounts().total;
    const invoice = companyState(3).list('IssuedInvoices', { pageSize: 1, pageNumber: 1 })
      .items[0] as ApiRecord;

    await expect(d.archive(eventOf('gamma', 'IssuedInvoice', invoice))).resolves.toEqual({
      status: 'skipped',
      reason: "connection 'gamma' is paused",
    });
    await expect(d.archive(eventOf('delta', 'IssuedInvoice', invoice))).resolves.toEqual({
      status: 'skipped',
      reason: "connection 'delta' is not in the connection registry",
    });
    await expect(d.archive(eventOf('alpha', 'IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining("connection 'alpha' has this action switched off"),
    });
    // The source must name the connection of the detail: an event of one connection cannot act for another.
    await expect(
      d.archive(eventOf('gamma', 'IssuedInvoice', invoice, 'accounting.alpha')),
    ).resolves.toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('source: not the source of the connection the event names'),
    });
    // So must an unknown connection's (a replay of alpha's event naming it): invalid, not a late event.
    await expect(
      d.archive(eventOf('delta', 'IssuedInvoice', invoice, 'accounting.alpha')),
    ).resolves.toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('source: not the source of the connection the event names'),
    });

    // No request to the service, no secret read, no object, no outcome.
    expect(sandbox.requestCounts().total).toBe(before);
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    expect(await archived(d.archiveObjects)).toEqual([]);
    expect(d.publisher.events).toEqual([]);
    expect(
      d.logger.lines.filter((l) => l.message === 'action refused for connection').map((l) => l.data?.refusal),
    ).toEqual(['paused', 'unknown']);
    // Switched off by the connection's own settings: what was asked for, not a warning.
    expect(d.logger.lines.filter((l) => l.data?.refusal === 'switched-off')).toEqual([
      expect.objectContaining({ level: 'info', message: 'action switched off for connection' }),
    ]);
    expect(d.logger.lines.filter((l) => l.level === 'warn').map((l) => l.data?.refusal)).toEqual([
      'paused',
      'unknown',
    ]);
    await d.close();
  });
});

describe('rate limits per connection', () => {
  it("a 429 for one connection pauses its bucket only: the other's action runs at once", async () => {
    const d = await deployment([entry('alpha'), entry('beta')]);
    // The service's own limit, per credential: alpha's is spent, beta's is full.
    sandbox.setFaults({ rateLimit: { capacity: 10, refillPerSecond: 0.01 } });
    try {
      const alphaKey = sandbox.credentialsOf(1).apiKey;
      for (let i = 0; i < 10; i++) {
        await fetch(`${sandbox.baseUrl}/v1/Banks?PageSize=1`, { headers: { 'Api-Key': alphaKey } });
      }
      const invoiceOf = (index: number) =>
        companyState(index).list('IssuedInvoices', { pageSize: 2, pageNumber: 1 }).items[1] as ApiRecord;
      // alpha: 429 with a Retry-After longer than the client waits → retry later (SQS redelivers).
      await expect(d.archive(eventOf('alpha', 'IssuedInvoice', invoiceOf(1)))).rejects.toMatchObject({
        name: 'RateLimitedError',
      });
      const paused = Number((await d.bucketOf('alpha'))?.pausedUntilMs?.N);
      expect(paused).toBeGreaterThan(Date.now() + 30_000);
      // beta is not held back, in this container or in any other drawing from the table.
      await expect(d.archive(eventOf('beta', 'IssuedInvoice', invoiceOf(2)))).resolves.toMatchObject({
        status: 'done',
      });
      expect(Number((await d.bucketOf('beta'))?.pausedUntilMs?.N)).toBe(0);
      const other = createDynamoDbRateLimiter({
        client: servers.dynamoDb,
        tableName: d.rateLimitTable,
        clock: systemClock,
      });
      await expect(
        other.take('beta', { signal: AbortSignal.timeout(SERVER_WAIT_MS) }),
      ).resolves.toBeUndefined();
      await expect(other.take('alpha', { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    } finally {
      sandbox.setFaults({ rateLimit: null });
      await d.close();
    }
  });
});

describe("a connection's action settings", () => {
  const withActions = (actions: Record<string, string>) => () =>
    parseCheckedConnectionEntry({
      name: 'x',
      variant: 'cz',
      credentialsSecret: 'env:X_CREDENTIALS',
      actions,
    });

  it('are refused when they name a deployment setting, an unknown setting or a bad value', () => {
    expect(withActions({ ACTIONS_ARCHIVE_BUCKET: 'other', ACTIONS_NOPE: '1' })).toThrow(
      "connection 'x': actions.ACTIONS_ARCHIVE_BUCKET: a setting of the deployment, not of one connection; actions.ACTIONS_NOPE: not an action setting (docs/actions.md)",
    );
    expect(withActions({ ACTIONS_ISDOC_PDF: 'maybe' })).toThrow(
      /actions\.ACTIONS_ISDOC_PDF: expected one of true, false/,
    );
  });

  it("override the deployment's, and name the connection's source", () => {
    const entry = withActions({ ACTIONS_ISDOC_ARCHIVE: 'false' })();
    const config = connectionActionsConfig(
      { ACTIONS_ISDOC_ARCHIVE: 'true', ACTIONS_ISDOC_PDF: 'true', EVENT_SOURCE: 'accounting.fixed' },
      entry,
      actionSettingsOfRegistry,
    );
    expect(config).toMatchObject({
      connection: 'x',
      variant: 'cz',
      eventSource: 'accounting.x',
      isdoc: { enabled: false, pdf: true },
    });
  });
});
