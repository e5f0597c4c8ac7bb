/**
 * A shop's "paid" closes the money loop on the local wire (cz sandbox): Shopify orders are posted
 * signed to the local intake (`orders/create`), imported, and transferred to issued invoices; then
 * `orders/paid` is posted (twice, as a shop retries), the intake publishes `EshopOrder.Paid`, and
 * each delivery of it runs through the shop payment action's entry (catalog parsing included). The
 * invoice is liquidated exactly once; a smaller payment liquidates partially, a larger one fully
 * with the surplus reported; a payment with no order waits, then is unmatched; an unknown outcome
 * is never repeated; a shop that is not switched on liquidates nothing.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createMemoryIdempotencyGuard } from '#functions/adapters/local/memory-idempotency-guard.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import { liquidateShopPaymentAction } from '#functions/core/actions/liquidate-shop-payment/action.js';
import { createActionEntry } from '#functions/core/actions/run-action.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { hmacBase64 } from '#functions/core/intake/signatures.js';
import type { BusEvent } from '#functions/core/ports.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import { recordingLogger, recordingPublisher, startSandboxClient } from '../actions/support.js';
import { startTestServers } from '../support/embedded.js';
import { type IntakeBed, ordersWithMarker, SECRETS, type StartedIntake, startIntake } from './support.js';

const bed = {} as IntakeBed;
let started: StartedIntake;
beforeAll(async () => {
  [bed.servers, bed.sb] = await Promise.all([
    startTestServers(),
    startSandboxClient({ variant: 'cz', sizes: { documents: 20, partners: 6, perCollection: {} } }),
  ]);
  started = await startIntake(bed, { env: { ACCOUNTING_SERVICE_VARIANT: 'cz' } });
}, 60_000);
afterAll(async () => {
  await started?.intake.close();
  await Promise.all([bed.servers?.close(), bed.sb?.close()]);
});

const base = 6_200_000_000_000 + (Math.floor(Date.now() / 1000) % 100_000) * 10;

/** A Shopify order (the Order resource, as `orders/create` and `orders/paid` carry it) of 1,210.00 CZK. */
function shopifyOrder(id: number, paid: boolean) {
  const address = {
    first_name: 'Jan',
    last_name: 'Novák',
    address1: 'Dlouhá 1',
    city: 'Praha',
    zip: '110 00',
    country_code: 'CZ',
  };
  const now = new Date().toISOString();
  return {
    id,
    name: `#P${id % 100_000}`,
    email: 'jan.novak@example.cz',
    created_at: now,
    updated_at: now,
    processed_at: now,
    currency: 'CZK',
    taxes_included: true,
    total_price: '1210.00',
    total_tax: '210.00',
    total_outstanding: paid ? '0.00' : '1210.00',
    financial_status: paid ? 'paid' : 'pending',
    payment_gateway_names: ['shopify_payments'],
    customer: { email: 'jan.novak@example.cz', first_name: 'Jan', last_name: 'Novák' },
    billing_address: address,
    shipping_address: address,
    line_items: [
      {
        id: 1,
        title: 'Kávovar',
        sku: 'CZ-KAVOVAR',
        quantity: 1,
        price: '1210.00',
        total_discount: '0.00',
        tax_lines: [{ title: 'DPH', rate: 0.21, price: '210.00' }],
      },
    ],
    shipping_lines: [],
  };
}

/** Posts `orders/paid` as Shopify signs it. */
async function postPaid(id: number) {
  const body = JSON.stringify(shopifyOrder(id, true));
  const res = await request(`${started.intake.url.replace(/\/$/, '')}/intake/shopify`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': 'orders/paid',
      'x-shopify-webhook-id': randomUUID(),
      'x-shopify-hmac-sha256': hmacBase64(SECRETS.INTAKE_SHOPIFY_SECRET, body),
    },
    body,
  });
  return { status: res.statusCode, body: await res.body.text() };
}

/** Imports the order through the intake and makes its invoice; the invoice's id. */
async function orderWithInvoice(id: number): Promise<string> {
  const res = await postSignedOrder({
    baseUrl: started.intake.url,
    source: 'shopify',
    secret: SECRETS.INTAKE_SHOPIFY_SECRET,
    body: JSON.stringify(shopifyOrder(id, false)),
  });
  expect(res.status, res.body).toBe(202);
  await started.intake.queue.drain();
  const [order] = ordersWithMarker(bed, orderMarker('shopify', String(id)));
  if (!order) throw new Error(`order ${id} was not imported`);
  const created = await bed.sb.client.create('ReceivedOrders.transferToIssuedInvoice', {
    params: { id: order.Id },
  });
  const invoiceId = created.data?.Id;
  if (!invoiceId) throw new Error('no invoice made');
  return invoiceId;
}

/** An EventBridge event as the bus delivers it. */
const delivered = (e: BusEvent) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': e.detailType,
  source: e.source,
  account: '000000000000',
  time: (e.time ?? new Date()).toISOString(),
  region: 'eu-central-1',
  resources: [],
  detail: e.detail,
});

function actionFor(options: { shops?: string; api?: AccountingApi; now?: () => Date } = {}) {
  const config = loadActionsConfig({
    ACCOUNTING_CONNECTION: 'acme',
    ACCOUNTING_SERVICE_VARIANT: 'cz',
    ...(options.shops !== undefined ? { ACTIONS_SHOP_PAYMENTS: options.shops } : {}),
  });
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const clock = { now: options.now ?? (() => new Date()), sleep: async () => {} };
  const deps = liquidateShopPaymentAction.deps({
    config,
    api: options.api ?? bed.sb.client,
    publisher,
    clock,
    logger,
    idempotency: createMemoryIdempotencyGuard(),
  });
  const entry = createActionEntry(
    liquidateShopPaymentAction.name,
    logger,
    liquidateShopPaymentAction.run(deps),
    liquidateShopPaymentAction.triggers,
  );
  return { publisher, entry };
}

const rest = async (id: string) =>
  ((await bed.sb.client.call('IssuedInvoices.restToPay', { params: { id } })) as { RestToPay: number })
    .RestToPay;
const liquidationCount = () => bed.sb.sandbox.server.domain.liquidations.payments.length;

/** The `EshopOrder.Paid` events the intake published for the order. */
const paidEvents = (id: number) =>
  started.publisher
    .ofType('EshopOrder.Paid')
    .filter((e) => (e.detail as { shopOrderId: string }).shopOrderId === String(id));

/** A copy of a published `EshopOrder.Paid` with another amount (a gateway's partial or surplus payment). */
function withAmount(e: BusEvent, amount: number, paymentId: string): BusEvent {
  return { ...e, detail: { ...(e.detail as object), amount, paymentId } };
}

describe('shop paid → the invoice made from the order is liquidated once', () => {
  it('orders/paid, delivered twice, liquidates the invoice fully once', async () => {
    const id = base + 1;
    const invoiceId = await orderWithInvoice(id);
    expect(await rest(invoiceId)).toBe(1210);
    for (let i = 0; i < 2; i += 1) expect((await postPaid(id)).status).toBe(202);
    const events = paidEvents(id);
    expect(events).toHaveLength(2);
    expect(new Set(events.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey)).size).toBe(1);
    expect(events[0]?.detail).toMatchObject({ paymentId: `paid:${id}`, amount: 1210, currency: 'CZK' });

    const off = actionFor();
    expect(await off.entry(delivered(events[0] as BusEvent))).toMatchObject({ status: 'skipped' });

    const before = liquidationCount();
    const { entry, publisher } = actionFor({ shops: 'shopify' });
    const outcomes = [];
    for (const e of [...events, ...events]) outcomes.push((await entry(delivered(e))).status);
    expect(outcomes).toEqual(['done', 'duplicate', 'duplicate', 'duplicate']);
    expect(liquidationCount()).toBe(before + 1);
    expect(await rest(invoiceId)).toBe(0);
    const [recorded] = publisher.ofType('IssuedInvoice.ShopPaymentRecorded');
    expect(recorded?.detail).toMatchObject({
      id: invoiceId,
      kind: 'fully',
      liquidated: 1210,
      overpayment: 0,
    });
    expect(publisher.ofType('EshopOrder.PaymentUnmatched')).toEqual([]);
  });

  it('less liquidates partially, more liquidates fully and reports the surplus', async () => {
    const [partId, overId] = [base + 2, base + 3];
    const [partInvoice, overInvoice] = [await orderWithInvoice(partId), await orderWithInvoice(overId)];
    await postPaid(partId);
    await postPaid(overId);
    const { entry, publisher } = actionFor({ shops: 'shopify' });
    const part = withAmount(paidEvents(partId)[0] as BusEvent, 1000.01, 'tx-part');
    const over = withAmount(paidEvents(overId)[0] as BusEvent, 1300.5, 'tx-over');
    expect(await entry(delivered(part))).toMatchObject({ status: 'done' });
    expect(await entry(delivered(over))).toMatchObject({ status: 'done' });
    expect(await rest(partInvoice)).toBeCloseTo(209.99, 2);
    expect(await rest(overInvoice)).toBe(0);
    const kinds = publisher.ofType('IssuedInvoice.ShopPaymentRecorded').map((e) => {
      const d = e.detail as { kind: string; liquidated: number; overpayment: number };
      return [d.kind, d.liquidated, d.overpayment];
    });
    expect(kinds).toEqual([
      ['partially', 1000.01, 0],
      ['fully', 1210, 90.5],
    ]);
    const unmatched = publisher.ofType('EshopOrder.PaymentUnmatched').map((e) => e.detail);
    expect(unmatched).toMatchObject([{ reason: 'overpaid', left: 90.5, shopOrderId: String(overId) }]);
  });

  it('with its guard records lost, a partial payment is found by its mark and not liquidated again', async () => {
    const id = base + 6;
    const invoiceId = await orderWithInvoice(id);
    await postPaid(id);
    const event = withAmount(paidEvents(id)[0] as BusEvent, 500, 'tx-lost');
    expect(await actionFor({ shops: 'shopify' }).entry(delivered(event))).toMatchObject({ status: 'done' });
    const before = liquidationCount();
    // A fresh guard: the store of the first run is gone.
    const again = actionFor({ shops: 'shopify' });
    expect(await again.entry(delivered(event))).toMatchObject({ status: 'duplicate' });
    expect(liquidationCount()).toBe(before);
    expect(await rest(invoiceId)).toBe(710);
    expect(again.publisher.events).toEqual([]);
  });

  it('a payment with no order waits for it, then is unmatched; nothing is liquidated', async () => {
    const id = base + 4;
    expect((await postPaid(id)).status).toBe(202);
    const event = paidEvents(id)[0] as BusEvent;
    const before = liquidationCount();
    const early = actionFor({ shops: 'shopify' });
    await expect(early.entry(delivered(event))).rejects.toBeInstanceOf(RetryLaterError);
    const late = actionFor({ shops: 'shopify', now: () => new Date(Date.now() + 31 * 60_000) });
    expect(await late.entry(delivered(event))).toMatchObject({ status: 'failed', reason: 'noOrder' });
    expect(late.publisher.ofType('EshopOrder.PaymentUnmatched').map((e) => e.detail)).toMatchObject([
      { reason: 'noOrder', left: 1210, receivedOrderId: null },
    ]);
    expect(liquidationCount()).toBe(before);
  });

  it('an outcome unknown is Action.Failed (outcomeUnknown) and never repeated', async () => {
    const id = base + 5;
    const invoiceId = await orderWithInvoice(id);
    await postPaid(id);
    const event = paidEvents(id)[0] as BusEvent;
    let calls = 0;
    const flaky: AccountingApi = Object.create(bed.sb.client);
    flaky.create = async (operation, input) => {
      if (!operation.includes('liquidate')) return bed.sb.client.create(operation, input);
      calls += 1;
      await bed.sb.client.create(operation, input);
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/IssuedInvoices' }, operation);
    };
    const { entry, publisher } = actionFor({ shops: 'shopify', api: flaky });
    expect(await entry(delivered(event))).toMatchObject({ status: 'failed', reason: 'outcomeUnknown' });
    expect(await entry(delivered(event))).toMatchObject({ status: 'duplicate' });
    expect(calls).toBe(1);
    expect(await rest(invoiceId)).toBe(0);
    expect(
      publisher.ofType('Action.Failed').map((e) => (e.detail as { problem: { kind: string } }).problem.kind),
    ).toEqual(['outcomeUnknown']);
  });
});
