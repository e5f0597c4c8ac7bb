/**
 * A Czech shop order in the cz variant, end to end on the local wire: a signed Shopify webhook in
 * CZK with lines at 21 % and 12 % is posted to the local intake endpoint, queued and imported into
 * the cz sandbox (a Czech company: VAT 21/12/0 %, CZK) as one received order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../functions/accounting/api.js';
import { orderMarker } from '../../functions/core/intake/map-order.js';
import { postSignedOrder } from '../../functions/local/intake-send.js';
import { isValidIco } from '../../sandbox/czech-data.js';
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
