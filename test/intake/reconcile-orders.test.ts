/**
 * The reconciliation against the sandbox, on the platforms' own payloads (the mapping alone:
 * platform-payloads.test.ts): the reported discount-allocation order imports at the shop's total,
 * an order whose totals cannot be reproduced is refused with both figures and creates nothing, and
 * a service that computes other totals is flagged.
 */
import { describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { createDynamoDbImportAttempts } from '#functions/adapters/aws/dynamodb-import-attempts.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import type { ImportDeps } from '#functions/core/intake/import-order.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import type { IntakeMessage } from '#functions/core/intake/shop-order.js';
import { systemClock } from '#functions/shared/clock.js';
import { createImportEntry } from '#functions/wiring/connection-imports.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { importsOfOne } from './one-connection.js';
import { intakeFixture, shopOrderFrom } from './shop-payloads.js';
import { ordersWithMarker, receivedOrderCount, useIntakeBed } from './support.js';

const fixture = intakeFixture;
const shopOrder = shopOrderFrom;

const bed = useIntakeBed();

async function setup(api: AccountingApi = bed.sb.client) {
  const tableName = await bed.servers.idempotencyTable();
  const publisher = recordingPublisher();
  const deps: Omit<ImportDeps, 'references'> = {
    api,
    guard: createPowertoolsGuard({ client: bed.servers.dynamoDb, tableName, expiresAfterSeconds: 3600 }),
    attempts: createDynamoDbImportAttempts({
      client: bed.servers.dynamoDb,
      tableName,
      expiresAfterSeconds: 3600,
      clock: systemClock,
    }),
    publisher,
    clock: systemClock,
    logger: recordingLogger(),
    config: loadIntakeConfig({}),
  };
  return { publisher, entry: createImportEntry(importsOfOne(deps)) };
}

let n = Math.floor(Date.now() / 1000) % 1_000_000;
function message(payload: Record<string, unknown>): IntakeMessage {
  n += 1;
  const order = shopOrder('shopify', { ...payload, id: 6_100_000_000_000 + n });
  return {
    version: 1,
    connection: 'acme',
    source: 'shopify',
    deliveryId: `d-${n}`,
    receivedAt: new Date().toISOString(),
    order,
  };
}

describe('the import keeps the invariant (sandbox + dynalite)', () => {
  it("imports the reported discount-allocation order at the shop's 131.88, VAT 18.10 + 1.67", async () => {
    const { entry, publisher } = await setup();
    const m = message(fixture('shopify-discount-allocations.json'));
    await expect(entry(m)).resolves.toMatchObject({ status: 'done' });
    const [order] = ordersWithMarker(bed, orderMarker('shopify', m.order.id));
    expect(order?.DocumentRecapitulation).toMatchObject({
      TotalPrice: 131.88,
      VatRateSums: [
        { VatRateType: 'BasicVatRate', PriceWithoutVat: 78.69, Vat: 18.1 },
        { VatRateType: 'SecondReducedVatRate', PriceWithoutVat: 33.42, Vat: 1.67 },
      ],
    });
    expect(publisher.ofType('EshopOrder.Imported')).toHaveLength(1);
  });

  it('refuses an order whose totals it cannot reproduce, with both figures, and creates nothing', async () => {
    // The shop's VAT (18.11) is more than half a cent from the line's exact 18.101: no per-line rounding gives it.
    const payload = fixture('shopify-discount-allocations.json');
    const [line] = payload.line_items as { tax_lines: { price: string; price_set?: unknown }[] }[];
    if (!line?.tax_lines[0]) throw new Error('fixture without a tax line');
    line.tax_lines[0].price = '18.11';
    line.tax_lines[0].price_set = { shop_money: { amount: '18.11', currency_code: 'EUR' } };
    payload.total_price = '131.89';
    payload.total_price_set = { shop_money: { amount: '131.89', currency_code: 'EUR' } };
    const { entry, publisher } = await setup();
    const before = receivedOrderCount(bed);
    const m = message(payload);
    await expect(entry(m)).resolves.toEqual({ status: 'failed', reason: 'totals' });
    expect(receivedOrderCount(bed)).toBe(before);
    expect(publisher.ofType('EshopOrder.Imported')).toHaveLength(0);
    expect(publisher.ofType('EshopOrder.Rejected')[0]?.detail).toMatchObject({
      stage: 'mapping',
      reason: 'totals',
      reasons: [
        "total: the shop's 131.89, ours 131.88",
        "vat 23 %: the shop's 18.11, ours 18.10 (beyond the rounding of 1 line, ±0.005)",
      ],
      totals: {
        currency: 'EUR',
        shop: {
          total: 131.89,
          vatByRate: [
            { ratePercent: 23, vat: 18.11 },
            { ratePercent: 5, vat: 1.67 },
          ],
        },
        ours: {
          total: 131.88,
          vatByRate: [
            { ratePercent: 23, vat: 18.1 },
            { ratePercent: 5, vat: 1.67 },
          ],
        },
      },
    });
  });

  it('flags an order the service created with other totals than the shop, instead of announcing it imported', async () => {
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.create = (async (operationId: string, input?: Parameters<AccountingApi['create']>[1]) => {
      const created = await bed.sb.client.create(operationId, input);
      const recap = created.data?.DocumentRecapitulation as { TotalPrice: number } | undefined;
      if (created.data && recap)
        return {
          ...created,
          data: {
            ...created.data,
            DocumentRecapitulation: { ...recap, TotalPrice: recap.TotalPrice + 0.01 },
          },
        };
      return created;
    }) as AccountingApi['create'];
    const { entry, publisher } = await setup(api);
    const m = message(fixture('shopify-discount-allocations.json'));
    await expect(entry(m)).resolves.toEqual({ status: 'failed', reason: 'totals' });
    const [order] = ordersWithMarker(bed, orderMarker('shopify', m.order.id));
    expect(publisher.ofType('EshopOrder.Imported')).toHaveLength(0);
    expect(publisher.ofType('EshopOrder.Rejected')[0]?.detail).toMatchObject({
      stage: 'service',
      reason: 'totals',
      receivedOrderId: order?.Id,
      reasons: ["total: the shop's 131.88, the service's 131.89"],
      totals: { shop: { total: 131.88 }, ours: { total: 131.88 }, service: { total: 131.89 } },
    });
    // A later delivery of the same order creates nothing more.
    await expect(entry({ ...m, deliveryId: `${m.deliveryId}-again` })).resolves.toMatchObject({
      status: 'duplicate',
    });
    expect(ordersWithMarker(bed, orderMarker('shopify', m.order.id))).toHaveLength(1);
  });
});
