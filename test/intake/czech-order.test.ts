/**
 * A Czech shop order in the cz variant, end to end on the local wire: a signed Shopify webhook in
 * CZK with lines at 21 % and 12 % is posted to the local intake endpoint, queued and imported into
 * the cz sandbox (a Czech company: VAT 21/12/0 %, CZK) as one received order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import { isValidIco } from '#sandbox/czech-data.js';
import { startSandboxClient } from '../actions/support.js';
import { startTestServers } from '../support/embedded.js';
import { type IntakeBed, ordersWithMarker, SECRETS, type StartedIntake, startIntake } from './support.js';

const bed = {} as IntakeBed;
let started: StartedIntake | undefined;
beforeAll(async () => {
  [bed.servers, bed.sb] = await Promise.all([
    startTestServers(),
    startSandboxClient({ variant: 'cz', sizes: { documents: 20, partners: 6, perCollection: {} } }),
  ]);
  started = await startIntake(bed, { env: { ACCOUNTING_SERVICE_VARIANT: 'cz' } });
});
afterAll(async () => {
  await started?.intake.close();
  await Promise.all([bed.servers?.close(), bed.sb?.close()]);
});

const orderId = 6_100_000_000_000 + (Math.floor(Date.now() / 1000) % 100_000);

/** A Shopify `orders/create` payload of a Czech shop: prices with VAT, in CZK. */
function czechShopifyOrder() {
  const address = {
    first_name: 'Tereza',
    last_name: 'Dvořáková',
    company: 'Dvořák Design s.r.o.',
    address1: 'Husova 12',
    address2: null,
    city: 'Brno',
    zip: '602 00',
    country: 'Czech Republic',
    country_code: 'CZ',
    phone: '+420 601 123 456',
    name: 'Tereza Dvořáková',
  };
  return {
    id: orderId,
    name: `#CZ${orderId % 100_000}`,
    order_number: orderId % 100_000,
    email: 'tereza.dvorakova@example.cz',
    created_at: new Date().toISOString(),
    currency: 'CZK',
    presentment_currency: 'CZK',
    taxes_included: true,
    // 2 × 112 + 3 × 121 + 121 shipping, VAT 24 + 63 + 21.
    total_price: '708.00',
    total_tax: '108.00',
    financial_status: 'paid',
    note: 'Doručit po 16:00.',
    note_attributes: [{ name: 'ico', value: '27074358' }],
    customer: { email: 'tereza.dvorakova@example.cz', first_name: 'Tereza', last_name: 'Dvořáková' },
    billing_address: address,
    shipping_address: address,
    line_items: [
      {
        id: 1,
        title: 'Káva zrnková 1 kg',
        sku: 'CZ-KAVA-1KG',
        quantity: 2,
        price: '112.00',
        total_discount: '0.00',
        tax_lines: [{ title: 'DPH', rate: 0.12, price: '24.00' }],
      },
      {
        id: 2,
        title: 'Hrnek keramický',
        sku: 'CZ-HRNEK',
        quantity: 3,
        price: '121.00',
        total_discount: '0.00',
        tax_lines: [{ title: 'DPH', rate: 0.21, price: '63.00' }],
      },
    ],
    shipping_lines: [
      { title: 'PPL', price: '121.00', tax_lines: [{ title: 'DPH', rate: 0.21, price: '21.00' }] },
    ],
  };
}

describe('a Czech shop order in the cz variant', () => {
  it('imports lines at 12 % and 21 % in CZK as one received order with the Czech rates and totals', async () => {
    if (!started) throw new Error('no intake');
    const order = czechShopifyOrder();
    expect(isValidIco('27074358')).toBe(true);
    const res = await postSignedOrder({
      baseUrl: started.intake.url,
      source: 'shopify',
      secret: SECRETS.INTAKE_SHOPIFY_SECRET,
      body: JSON.stringify(order),
    });
    expect(res.status, res.body).toBe(202);
    await started.intake.queue.drain();

    const created = ordersWithMarker(bed, orderMarker('shopify', String(order.id)));
    expect(created).toHaveLength(1);
    const record = created[0] as ApiRecord;
    const state = bed.sb.sandbox.state;
    const rateOf = (type: string) =>
      state.list('VatRates', { pageSize: 10, pageNumber: 1 }).items.find((v) => v.VatRateType === type);
    const currencies = state.list('Currencies', { pageSize: 10, pageNumber: 1 }).items;
    expect(currencies.find((c) => c.Id === record.CurrencyId)?.Code).toBe('CZK');
    // The cz create DTO has no Doklad: the order number is in the note.
    expect(String(record.Note)).toContain(order.name);

    const items = record.Items as {
      Text: string;
      VatRateType: string;
      VatRateId: string;
      UnitPriceVatType: string;
      PriceWithoutVat: number;
      Vat: number;
      PriceWithVat: number;
    }[];
    expect(items.map((i) => [i.Text, i.VatRateType, i.UnitPriceVatType, i.PriceWithoutVat, i.Vat])).toEqual([
      ['Káva zrnková 1 kg', 'FirstReducedVatRate', 'WithVat', 200, 24],
      ['Hrnek keramický', 'BasicVatRate', 'WithVat', 300, 63],
      ['PPL', 'BasicVatRate', 'WithVat', 100, 21],
    ]);
    expect(rateOf('FirstReducedVatRate')?.VatPercent).toBe(12);
    expect(rateOf('BasicVatRate')?.VatPercent).toBe(21);
    for (const item of items) expect(item.VatRateId).toBe(rateOf(item.VatRateType)?.Id);

    const recap = record.DocumentRecapitulation as {
      TotalPrice: number;
      VatRateSums: { VatRateType: string; PriceWithoutVat: number; Vat: number; TotalPrice: number }[];
    };
    // The shop's total: 2 × 112 + 3 × 121 + 121 shipping.
    expect(recap.TotalPrice).toBe(708);
    expect(recap.VatRateSums).toEqual(
      expect.arrayContaining([
        { VatRateType: 'FirstReducedVatRate', PriceWithoutVat: 200, Vat: 24, TotalPrice: 224 },
        { VatRateType: 'BasicVatRate', PriceWithoutVat: 400, Vat: 84, TotalPrice: 484 },
      ]),
    );
    expect(recap.VatRateSums).toHaveLength(2);
    expect(record.BusinessPartnerAddress).toMatchObject({
      IdentificationNumber: '27074358',
      CompanyName: 'Dvořák Design s.r.o.',
      City: 'Brno',
      PostCode: '602 00',
      Country: 'CZ',
    });

    const types = started.publisher.events.map((e) => e.detailType);
    expect(types).toEqual(['EshopOrder.Received', 'EshopOrder.Imported']);
    expect(started.publisher.ofType('EshopOrder.Imported')[0]?.detail).toMatchObject({
      source: 'shopify',
      shopOrderId: String(order.id),
      receivedOrderId: record.Id,
    });
  });
});

/**
 * A 250-line Czech Shopify order with per-line tax (taxes included, 21 % and 12 %): Shopify rounds
 * each line's tax half up, so lines whose 12 % tax ends in half a cent (129.50 CZK: 13.875) carry a
 * cent more VAT than the service's item rule gives them.
 */
function largeCzechShopifyOrder(id: number) {
  const prices = [12_950, 39_900, 6_454, 24_900, 8_990, 129_900, 4_550, 15_490];
  const vat = new Map<number, number>();
  let total = 0;
  const lineItems = Array.from({ length: 250 }, (_, i) => {
    const rate = i % 2 === 0 ? 12 : 21;
    const quantity = 1 + (i % 3 === 0 ? 0 : i % 2);
    const price = prices[i % prices.length] ?? 100;
    const net = price * quantity;
    // Half up, in whole cents.
    const tax = Math.floor((2 * net * rate + 100 + rate) / (2 * (100 + rate)));
    vat.set(rate, (vat.get(rate) ?? 0) + tax);
    total += net;
    return {
      id: 10_000 + i,
      title: `Položka ${i + 1}`,
      sku: `CZ-L-${i + 1}`,
      quantity,
      price: (price / 100).toFixed(2),
      total_discount: '0.00',
      tax_lines: [{ title: 'DPH', rate: rate / 100, price: (tax / 100).toFixed(2) }],
    };
  });
  return {
    payload: {
      id,
      name: `#CZ${id % 100_000}`,
      email: 'velkoodber@example.cz',
      created_at: new Date().toISOString(),
      currency: 'CZK',
      taxes_included: true,
      total_price: (total / 100).toFixed(2),
      billing_address: { first_name: 'Petr', last_name: 'Svoboda', city: 'Olomouc', country_code: 'CZ' },
      line_items: lineItems,
    },
    total,
    vat,
  };
}

describe('a 250-line Czech Shopify order with tax rounded per line', () => {
  it("imports at the shop's total and VAT per rate, and EshopOrder.Imported reports the rounding", async () => {
    if (!started) throw new Error('no intake');
    const { payload, total, vat } = largeCzechShopifyOrder(orderId + 1);
    const res = await postSignedOrder({
      baseUrl: started.intake.url,
      source: 'shopify',
      secret: SECRETS.INTAKE_SHOPIFY_SECRET,
      body: JSON.stringify(payload),
    });
    expect(res.status, res.body).toBe(202);
    await started.intake.queue.drain();

    const created = ordersWithMarker(bed, orderMarker('shopify', String(payload.id)));
    expect(created).toHaveLength(1);
    const recap = (created[0] as ApiRecord).DocumentRecapitulation as {
      TotalPrice: number;
      VatRateSums: { VatRateType: string; Vat: number }[];
    };
    expect(Math.round(recap.TotalPrice * 100)).toBe(total);
    const vatOf = (type: string) =>
      Math.round((recap.VatRateSums.find((s) => s.VatRateType === type)?.Vat ?? 0) * 100);
    expect(vatOf('FirstReducedVatRate')).toBe(vat.get(12));
    expect(vatOf('BasicVatRate')).toBe(vat.get(21));

    const imported = started.publisher
      .ofType('EshopOrder.Imported')
      .map((e) => e.detail as { shopOrderId: string; vatRounding?: unknown })
      .find((d) => d.shopOrderId === String(payload.id));
    const rounding = imported?.vatRounding as {
      ratePercent: number;
      shop: number;
      computed: number;
    }[];
    expect(rounding.map((r) => r.ratePercent)).toEqual([12]);
    expect(Math.round((rounding[0]?.shop ?? 0) * 100)).toBe(vat.get(12));
    expect(rounding[0]?.computed).toBeLessThan(rounding[0]?.shop ?? 0);
    expect(started.publisher.ofType('EshopOrder.Rejected')).toHaveLength(0);
  });
});
