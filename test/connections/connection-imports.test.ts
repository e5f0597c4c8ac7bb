/**
 * The order import with the connection registry: each queued order goes into the connection its
 * message names, through that connection's client — its own credentials (sandbox company), its
 * token bucket (dynalite) — and an order of a connection that is not registered or is paused is
 * retried (never imported elsewhere). Secrets Manager through aws-sdk-client-mock.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbConnectionRegistry } from '#functions/adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbImportAttempts } from '#functions/adapters/aws/dynamodb-import-attempts.js';
import { createDynamoDbRateLimiter } from '#functions/adapters/aws/dynamodb-rate-limiter.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { type IntakeMessage, shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { connectionActionClients } from '#functions/handlers/connection-actions.js';
import { createInvocationDeadline } from '#functions/handlers/invocation-deadline.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { systemClock } from '#functions/shared/clock.js';
import { connectionImports, createImportEntry } from '#functions/wiring/connection-imports.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { startTestServers, type TestServers } from '../support/embedded.js';

const PREFIX = 'accounting-events-test/connections/';
let sandbox: Sandbox;
let servers: TestServers;
const secretsMock = mockClient(SecretsManagerClient);

beforeAll(async () => {
  [sandbox, servers] = await Promise.all([
    startSandbox({ companies: 2, sizes: { documents: 20, partners: 6, perCollection: {} } }),
    startTestServers(),
  ]);
  secretsMock.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => {
    const index = { one: 1, two: 2 }[input.SecretId.slice(PREFIX.length)];
    if (!index) throw new Error(`no secret ${input.SecretId}`);
    return { SecretString: JSON.stringify({ apiKey: sandbox.credentialsOf(index).apiKey }) };
  });
});
afterAll(async () => {
  secretsMock.restore();
  await Promise.all([sandbox?.close(), servers?.close()]);
});

let n = 70_000;
function message(connection: string): IntakeMessage {
  n += 1;
  return {
    version: 1,
    connection,
    source: 'generic',
    deliveryId: `d-${n}`,
    receivedAt: new Date().toISOString(),
    order: shopOrderSchema.parse(sampleOrder('generic', n)),
  };
}

const ordersIn = (company: number, m: IntakeMessage) =>
  sandbox.server.companies
    .get(company)
    .state.list('ReceivedOrders', { pageSize: 100_000, pageNumber: 1 })
    .items.filter(
      (o) =>
        typeof o.InternalNote === 'string' && o.InternalNote.includes(orderMarker('generic', m.order.id)),
    );

describe('order import for every connection', () => {
  it("imports into the message's connection with its credentials and bucket; refuses unknown and paused ones", async () => {
    const [registryTable, rateLimitTable, idempotencyTable] = await Promise.all([
      servers.connectionTable(),
      servers.checkpointTable('rate-limits'),
      servers.idempotencyTable(),
    ]);
    const registry = createDynamoDbConnectionRegistry({ client: servers.dynamoDb, tableName: registryTable });
    for (const [name, paused] of [
      ['one', true],
      ['two', false],
    ] as const) {
      await registry.add(
        parseConnectionEntry({
          name,
          baseUrl: sandbox.baseUrl,
          credentialsSecret: `${PREFIX}${name}`,
          paused,
        }),
      );
    }
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
      env: {},
      clock,
      logger,
      secrets,
      limiter,
      deadline: createInvocationDeadline(),
    });
    const config = loadIntakeConfig({});
    const entry = createImportEntry(
      connectionImports(
        {
          guard: createPowertoolsGuard({
            client: servers.dynamoDb,
            tableName: idempotencyTable,
            expiresAfterSeconds: 3600,
          }),
          attempts: createDynamoDbImportAttempts({
            client: servers.dynamoDb,
            tableName: idempotencyTable,
            expiresAfterSeconds: 3600,
            clock,
          }),
          publisher,
          clock,
          logger,
          config,
        },
        { registry, clients, limiter, clock, referenceCacheSeconds: 300 },
      ),
    );

    const two = message('two');
    await expect(entry(two, { remainingTimeMs: 30_000 })).resolves.toMatchObject({ status: 'done' });
    expect(ordersIn(2, two)).toHaveLength(1);
    expect(ordersIn(1, two)).toHaveLength(0);
    const { Item } = await servers.dynamoDb.send(
      new GetItemCommand({ TableName: rateLimitTable, Key: { pk: { S: 'two' } }, ConsistentRead: true }),
    );
    expect(Number(Item?.version?.N)).toBeGreaterThan(0);
    expect(publisher.ofType('EshopOrder.Imported')).toHaveLength(1);

    const before = sandbox.requestCounts().total;
    for (const m of [message('one'), message('nobody')]) {
      await expect(entry(m, { remainingTimeMs: 30_000 })).rejects.toBeInstanceOf(RetryLaterError);
      expect(ordersIn(1, m)).toHaveLength(0);
      expect(ordersIn(2, m)).toHaveLength(0);
    }
    expect(sandbox.requestCounts().total).toBe(before);
    await clients.close();
  });
});
