/**
 * The payment each platform's documented "paid" payload reports (`EshopOrder.Paid`'s fields):
 * the fixtures follow the platforms' documentation (Shopify's Order resource as `orders/paid`
 * carries it; WooCommerce REST API v3's Order after `set_paid: true`, with its `date_paid_gmt`
 * in UTC without an offset; Shoptet's `data.order` with `paid`), and the generators draw what the
 * docs allow (WooCommerce's statuses, money as decimal strings), not what the mapping does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intakeEntry } from '#functions/core/events/intake-events.js';
import { shopifyPayment, shoptetPayment, wooPayment } from '#functions/core/intake/shop-payment.js';

/** Shopify's Order resource, the fields of a paid order (the `orders/paid` webhook's body). */
const shopifyPaid = {
  id: 450789469,
  name: '#1001',
  email: 'bob.norman@mail.example.com',
  created_at: '2026-03-04T11:00:00-05:00',
  updated_at: '2026-03-04T11:05:12-05:00',
  processed_at: '2026-03-04T11:00:00-05:00',
  currency: 'EUR',
  financial_status: 'paid',
  total_price: '598.94',
  total_outstanding: '0.00',
  total_tax: '11.94',
  taxes_included: false,
  payment_gateway_names: ['bogus'],
  line_items: [{ id: 466157049, title: 'IPod Nano - 8gb', quantity: 1, price: '199.00' }],
};

/** WooCommerce's Order (REST API v3) as its docs show it after `set_paid: true`. */
const wooPaid = {
  id: 727,
  parent_id: 0,
  number: '727',
  status: 'processing',
  currency: 'USD',
  date_created: '2017-03-22T16:28:02',
  date_created_gmt: '2017-03-22T19:28:02',
  date_paid: '2017-03-22T16:28:08',
  date_paid_gmt: '2017-03-22T19:28:08',
  total: '29.35',
  total_tax: '1.35',
  prices_include_tax: false,
  payment_method: 'bacs',
  payment_method_title: 'Direct Bank Transfer',
  transaction_id: '',
  set_paid: true,
};

describe('Shopify orders/paid', () => {
  it("is the order's payment: total less outstanding, at the change's time, keyed by the order", () => {
    const result = shopifyPayment(shopifyPaid);
    expect(result).toEqual({
      payment: {
        shopOrderId: '450789469',
        orderNumber: '#1001',
        paymentId: 'paid:450789469',
        amount: 598.94,
        currency: 'EUR',
        paidAt: '2026-03-04T16:05:12.000Z',
        orderCreatedAt: '2026-03-04T16:00:00.000Z',
        gateway: 'bogus',
      },
    });
  });

  it('announces nothing for an order not paid, and names the field of a payload that is not an order', () => {
    expect(shopifyPayment({ ...shopifyPaid, financial_status: 'partially_paid' })).toEqual({
      payment: undefined,
    });
    expect(shopifyPayment({ ...shopifyPaid, currency: 'euro' })).toMatchObject({
      problems: [expect.stringMatching(/^currency: /)],
    });
    expect(shopifyPayment({ ...shopifyPaid, total_price: 'free' })).toMatchObject({
      problems: [expect.stringMatching(/^total_price: /)],
    });
  });
});

describe('WooCommerce paid order', () => {
  it('is paid at date_paid_gmt (UTC) for the total; without a transaction id it is keyed by the order and that time', () => {
    expect(wooPayment(wooPaid)).toEqual({
      payment: {
        shopOrderId: '727',
        orderNumber: '727',
        paymentId: 'paid:727@2017-03-22T19:28:08.000Z',
        amount: 29.35,
        currency: 'USD',
        paidAt: '2017-03-22T19:28:08.000Z',
        orderCreatedAt: '2017-03-22T19:28:02.000Z',
        gateway: 'Direct Bank Transfer',
      },
    });
    const card = wooPayment({ ...wooPaid, transaction_id: 'ch_3PqK2LJ9abc', payment_method: 'stripe' });
    expect(card).toMatchObject({ payment: { paymentId: 'ch_3PqK2LJ9abc' } });
  });

  it('is paid only in processing or completed with date_paid_gmt set, whatever else the order says', () => {
    const statuses = [
      'pending',
      'processing',
      'on-hold',
      'completed',
      'cancelled',
      'refunded',
      'failed',
      'checkout-draft',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...statuses),
        fc.option(fc.constant('2026-11-20T08:15:00'), { nil: null }),
        fc.integer({ min: 1, max: 99_999_999 }),
        (status, datePaidGmt, cents) => {
          const total = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
          const result = wooPayment({ ...wooPaid, status, date_paid_gmt: datePaidGmt, total });
          const paid = (status === 'processing' || status === 'completed') && datePaidGmt !== null;
          if (!paid) {
            expect(result).toEqual({ payment: undefined });
            return;
          }
          expect(result).toMatchObject({
            payment: { amount: cents / 100, paidAt: '2026-11-20T08:15:00.000Z' },
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('names the field of a payload that is not an order', () => {
    expect(wooPayment({ ...wooPaid, id: 'seven' })).toMatchObject({
      problems: [expect.stringMatching(/^id: /)],
    });
    expect(wooPayment({ ...wooPaid, date_paid_gmt: 'yesterday' })).toMatchObject({
      problems: [expect.stringMatching(/^date_paid_gmt: /)],
    });
  });
});

describe('Shoptet order:paid', () => {
  const order = {
    code: '2026000123',
    paid: true,
    total: 1452.0,
    currency: 'CZK',
    creationTime: '2026-11-20T09:02:27+0100',
    paymentMethod: 'Platba kartou',
  };

  it("is the order's payment at the notification's time", () => {
    expect(shoptetPayment(order, '2026-11-20T10:15:00+0100')).toEqual({
      payment: {
        shopOrderId: '2026000123',
        orderNumber: '2026000123',
        paymentId: 'paid:2026000123',
        amount: 1452,
        currency: 'CZK',
        paidAt: '2026-11-20T09:15:00.000Z',
        orderCreatedAt: '2026-11-20T08:02:27.000Z',
        gateway: 'Platba kartou',
      },
    });
  });

  it('announces nothing when the fetched order is not (or no longer) paid', () => {
    expect(shoptetPayment({ ...order, paid: false }, '2026-11-20T10:15:00+0100')).toEqual({
      payment: undefined,
    });
    expect(shoptetPayment({ ...order, paid: null }, '2026-11-20T10:15:00+0100')).toEqual({
      payment: undefined,
    });
  });
});

describe('EshopOrder.Paid', () => {
  it("every platform's payment makes a detail its catalog schema accepts", () => {
    const entry = intakeEntry('Paid');
    const payments = [
      shopifyPayment(shopifyPaid),
      wooPayment(wooPaid),
      shoptetPayment({ code: 'X1', paid: true, total: 10, currency: 'EUR' }, '2026-11-20T10:15:00+0100'),
    ];
    for (const result of payments) {
      if (!('payment' in result) || !result.payment) throw new Error('expected a payment');
      const { shopOrderId, orderNumber, paymentId, ...fields } = result.payment;
      const detail = {
        ...(entry.example as object),
        shopOrderId,
        orderNumber,
        paymentId,
        ...fields,
        deliveryId: 'd-1',
      };
      expect(entry.schema.safeParse(detail).success).toBe(true);
    }
  });
});
