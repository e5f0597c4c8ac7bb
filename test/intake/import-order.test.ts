/** The import's exactly-once rules against the sandbox and dynalite: crash, unknown outcome, rejections. */
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createDynamoDbImportAttempts } from '#functions/adapters/aws/dynamodb-import-attempts.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import type { ImportDeps } from '#functions/core/intake/import-order.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { type IntakeMessage, shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { PARTNER_FROM_CHECKOUT_MARK } from '#functions/core/partner-from-checkout.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { systemClock } from '#functions/shared/clock.js';
import { createImportEntry } from '#functions/wiring/connection-imports.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { importsOfOne } from './one-connection.js';
import { ordersWithMarker, receivedOrderCount, useIntakeBed } from './support.js';

const bed = useIntakeBed();
afterEach(() => {
  vi.restoreAllMocks();
});

let n = 50_000 + (Math.floor(Date.now() / 1000) % 10_000);
function message(overrides: Partial<IntakeMessage['order']> = {}): IntakeMessage {
  n += 1;
  const order = shopOrderSchema.parse({ ...sampleOrder('generic', n), ...overrides });
  return {
    version: 1,
    connection: 'acme',
    source: 'generic',
    deliveryId: `d-${n}`,
    receivedAt: new Date().toISOString(),
    order,
  };
}

async function setup(
  options: {
    api?: AccountingApi;
    persistenceStore?: DynamoDBPersistenceLayer;
    tableName?: string;
    env?: Record<string, string>;
  } = {},
) {
  const api = options.api ?? bed.sb.client;
  const tableName = options.tableName ?? (await bed.servers.idempotencyTable());
  const guard = createPowertoolsGuard({
    client: bed.servers.dynamoDb,
    tableName,
    expiresAfterSeconds: 3600,
    ...(options.persistenceStore ? { persistenceStore: options.persistenceStore } : {}),
  });
  const publisher = recordingPublisher();
  const config = loadIntakeConfig(options.env ?? {});
  const deps: Omit<ImportDeps, 'references'> = {
    api,
    guard,
    attempts: createDynamoDbImportAttempts({
      client: bed.servers.dynamoDb,
      tableName,
      expiresAfterSeconds: 3600,
      clock: systemClock,
    }),
    publisher,
    clock: systemClock,
    logger: recordingLogger(),
    config,
  };
  return { deps, publisher, entry: createImportEntry(importsOfOne(deps)) };
}

describe('import of a queued shop order (sandbox + dynalite + Powertools idempotency)', () => {
  it('creates one order after a crash between the create and the intake record', async () => {
    const tableName = await bed.servers.idempotencyTable();
    class CrashingLayer extends DynamoDBPersistenceLayer {
      crashes = 1;
      override async saveSuccess(data: unknown, result: unknown): Promise<void> {
        if (this.crashes-- > 0) throw new Error('process crashed');
        return super.saveSuccess(data as never, result as never);
      }
    }
    const layer = new CrashingLayer({ tableName, awsSdkV3Client: bed.servers.dynamoDb });
    const { entry, publisher } = await setup({ persistenceStore: layer, tableName });
    const m = message();
    await expect(entry(m, { remainingTimeMs: 30_000 })).rejects.toThrow();
    expect(ordersWithMarker(bed, orderMarker('generic', m.order.id))).toHaveLength(1);
    // The in-progress record blocks a redelivery until the crashed invocation's time has passed.
    await expect(entry(m, { remainingTimeMs: 30_000 })).rejects.toBeInstanceOf(RetryLaterError);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now + 60_000);
    await expect(entry(m, { remainingTimeMs: 30_000 })).resolves.toMatchObject({ status: 'done' });
    await expect(entry(m, { remainingTimeMs: 30_000 })).resolves.toMatchObject({ status: 'duplicate' });
    expect(ordersWithMarker(bed, orderMarker('generic', m.order.id))).toHaveLength(1);
    const imported = publisher.ofType('EshopOrder.Imported');
    expect(imported.at(-1)?.detail).toMatchObject({ recovered: true });
    expect(new Set(imported.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey)).size).toBe(
      1,
    );
  });

  it('reads the received orders back only when an attempt was recorded before', async () => {
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    let readBacks = 0;
    api.listItems = ((
      collection: Parameters<AccountingApi['listItems']>[0],
      options?: Parameters<AccountingApi['listItems']>[1],
    ) => {
      if (collection === 'ReceivedOrders') readBacks += 1;
      return bed.sb.client.listItems(collection, options);
    }) as AccountingApi['listItems'];
    const { entry } = await setup({ api });
    await expect(entry(message())).resolves.toMatchObject({ status: 'done' });
    expect(readBacks).toBe(0);
  });

  it('reads back by the marker after an unknown outcome instead of creating again', async () => {
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.create = async (operationId, input) => {
      await bed.sb.client.create(operationId, input);
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/ReceivedOrders' }, operationId, {
        cause: new Error('socket hang up'),
      });
    };
    const { entry, publisher } = await setup({ api });
    const m = message();
    await expect(entry(m)).resolves.toMatchObject({ status: 'done' });
    expect(ordersWithMarker(bed, orderMarker('generic', m.order.id))).toHaveLength(1);
    expect(publisher.ofType('EshopOrder.Imported')[0]?.detail).toMatchObject({ recovered: true });
  });

  it('retries later when an unknown outcome left no order behind', async () => {
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.create = async (operationId) => {
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/ReceivedOrders' }, operationId);
    };
    const { entry } = await setup({ api });
    const before = receivedOrderCount(bed);
    await expect(entry(message())).rejects.toBeInstanceOf(RetryLaterError);
    expect(receivedOrderCount(bed)).toBe(before);
  });

  it('rejects an order with a VAT rate the connection lacks, naming the line, and creates nothing', async () => {
    const { entry, publisher } = await setup();
    const before = receivedOrderCount(bed);
    const m = message({ lines: [{ name: 'Víno', quantity: 1, unitPrice: 10, vatRatePercent: 21 }] });
    await expect(entry(m)).resolves.toMatchObject({ status: 'failed', reason: 'mapping' });
    expect(receivedOrderCount(bed)).toBe(before);
    expect(publisher.ofType('EshopOrder.Rejected')[0]?.detail).toMatchObject({
      stage: 'mapping',
      reasons: [expect.stringContaining('lines[0]: VAT rate 21 %')],
    });
  });

  it('links the address book partner by registration number only when matching is switched on, and marks the order', async () => {
    const { items } = bed.sb.sandbox.state.list('BusinessPartners', { pageSize: 100, pageNumber: 1 });
    const partner = items.find((p) => typeof p.IdentificationNumber === 'string' && p.IdentificationNumber);
    expect(partner).toBeDefined();
    const { entry } = await setup({ env: { INTAKE_PARTNER_MATCH: 'registration-number,email' } });
    const m = message({
      customer: { name: 'Someone', registrationNumber: String(partner?.IdentificationNumber), country: 'SK' },
    });
    await expect(entry(m)).resolves.toMatchObject({ status: 'done' });
    const [order] = ordersWithMarker(bed, orderMarker('generic', m.order.id));
    expect(
      (order?.BusinessPartnerAddress as { BusinessPartnerId?: string } | undefined)?.BusinessPartnerId,
    ).toBe(partner?.Id);
    expect(order?.InternalNote).toContain(PARTNER_FROM_CHECKOUT_MARK);
  });

  it('puts the order number in the note where the variant lacks Doklad', async () => {
    const { entry } = await setup({ env: { INTAKE_ORDER_NUMBER_FIELD: 'Note' } });
    const m = message();
    await entry(m);
    const [order] = ordersWithMarker(bed, orderMarker('generic', m.order.id));
    expect(order?.Doklad).toBeUndefined();
    expect(String(order?.Note)).toContain(m.order.number);
  });

  it('dead-letters a message that is not an intake message without touching the service', async () => {
    const { entry } = await setup();
    await expect(entry({ version: 1, order: {} })).resolves.toMatchObject({ status: 'invalid' });
  });
});
