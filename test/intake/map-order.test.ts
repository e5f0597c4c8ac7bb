/** The mapping of shop orders to the create-received-order request, checked against the public OpenAPI. */
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { MappingError, mapShopOrder, vatRateTypeFor } from '#functions/core/intake/map-order.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import { type IntakeSource, type ShopOrder, shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { wooOrderSchema, wooToShopOrder } from '#functions/core/intake/woocommerce-order.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { loadOpenApi } from '../conformance/openapi.js';

const refs: IntakeReferences = {
  vatRates: [
    { type: 'BasicVatRate', percent: 23, validFrom: Date.parse('2025-01-01') },
    { type: 'BasicVatRate', percent: 20, validTo: Date.parse('2024-12-31') },
    { type: 'FirstReducedVatRate', percent: 19, validFrom: Date.parse('2025-01-01') },
    { type: 'SecondReducedVatRate', percent: 5, validFrom: Date.parse('2025-01-01') },
    { type: 'ZeroVatRate', percent: 0 },
  ],
  priceListItems: new Map([['KAN-001', '11111111-2222-4333-8444-555555555555']]),
  currencies: new Map([
    ['EUR', { id: 'aaaaaaaa-2222-4333-8444-555555555555', home: true }],
    ['CZK', { id: 'bbbbbbbb-2222-4333-8444-555555555555', home: false }],
  ]),
  partnersByRegistrationNumber: new Map([['47852369', 'cccccccc-2222-4333-8444-555555555555']]),
  partnersByEmail: new Map(),
};
const fields = { registrationNumber: ['ico', '_billing_ico'], vatNumber: ['ic_dph'] };
const fieldsOf = (env: Record<string, string> = {}) => loadIntakeConfig(env).mapping;

function shopOrderOf(source: IntakeSource, n: number): ShopOrder {
  const raw = sampleOrder(source, n, new Date('2026-11-23T10:00:00Z'));
  if (source === 'shopify')
    return shopOrderSchema.parse(shopifyToShopOrder(shopifyOrderSchema.parse(raw), fields));
  if (source === 'woocommerce')
    return shopOrderSchema.parse(wooToShopOrder(wooOrderSchema.parse(raw), fields));
  return shopOrderSchema.parse(raw);
}

const openApi = loadOpenApi();
const at = new Date('2026-11-23T10:00:00Z');

describe('shop order → CreateReceivedOrderDto', () => {
  for (const source of ['shopify', 'woocommerce', 'generic'] as const) {
    it(`builds a request the public OpenAPI accepts (${source})`, () => {
      for (let n = 0; n < 6; n += 1) {
        const body = mapShopOrder(
          source,
          shopOrderOf(source, n),
          refs,
          fieldsOf({ INTAKE_ORDER_NUMBER_FIELD: 'Note' }),
          at,
        );
        const report = openApi.validateRequest('POST', '/v1/ReceivedOrders', body);
        expect(report, JSON.stringify(report)).toMatchObject({ valid: true, extra: [], mismatched: [] });
      }
    });
  }

  it('adds only Doklad, the Slovak field, when the order number goes there', () => {
    const body = mapShopOrder('shopify', shopOrderOf('shopify', 1), refs, fieldsOf(), at);
    expect(body.Doklad).toBe('#1001');
    const report = openApi.validateRequest('POST', '/v1/ReceivedOrders', body);
    expect(report.extra).toEqual(['Doklad']);
    const { Doklad: _, ...czech } = body;
    expect(openApi.validateRequest('POST', '/v1/ReceivedOrders', czech).valid).toBe(true);
  });

  it('maps SKUs, VAT rates, prices with VAT, shipping, the partner link (opted in) and the markers', () => {
    const order = shopOrderOf('shopify', 2); // Mária Nováková, IČO 47852369, KAN-001 among the lines
    const body = mapShopOrder(
      'shopify',
      order,
      refs,
      fieldsOf({ INTAKE_PARTNER_MATCH: 'registration-number' }),
      at,
    );
    expect(body.BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithAddressBookLink: { Id: 'cccccccc-2222-4333-8444-555555555555' },
    });
    const priceItems = body.Items.filter((i) => 'PriceListItem' in i);
    const textItems = body.Items.flatMap((i) => ('TextItem' in i ? [i.TextItem] : []));
    expect(priceItems.length + textItems.length).toBe(order.lines.length + 1);
    expect(textItems.at(-1)).toMatchObject({
      Code: 'SHIPPING',
      UnitPrice: 4.9,
      UnitPriceVatType: 'WithVat',
      VatRateType: 'BasicVatRate',
    });
    // Linked on an IČO the customer typed: the order carries the checkout mark as well.
    expect(body.InternalNote).toBe(`[eshop-order shopify:${order.id}] [partner-from-checkout]`);
    expect(body.CurrencyId).toBeUndefined(); // home currency
  });

  it('links no partner by default: the customer is a document address, the order unmarked', () => {
    const order = shopOrderOf('shopify', 2);
    const body = mapShopOrder('shopify', order, refs, fieldsOf(), at);
    expect(body.BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithoutAddressBookLink: { IdentificationNumber: '47852369' },
    });
    expect(body.BusinessPartnerAddress).not.toHaveProperty('DocumentAddressWithAddressBookLink');
    expect(body.InternalNote).toBe(`[eshop-order shopify:${order.id}]`);
  });

  it('carries a foreign currency and the customer as a document address when no partner matches', () => {
    const order = { ...shopOrderOf('generic', 0), currency: 'CZK' };
    const body = mapShopOrder('generic', order, refs, fieldsOf(), at);
    expect(body.CurrencyId).toBe('bbbbbbbb-2222-4333-8444-555555555555');
    expect(body.BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithoutAddressBookLink: { Email: order.customer.email, Country: 'SK' },
    });
  });

  it('leaves CurrencyId out for the home currency of the settings when the list does not mark one', () => {
    const unmarked: IntakeReferences = {
      ...refs,
      currencies: new Map([
        ['EUR', { id: 'aaaaaaaa-2222-4333-8444-555555555555', home: false }],
        ['CZK', { id: 'bbbbbbbb-2222-4333-8444-555555555555', home: false }],
      ]),
    };
    const order = shopOrderOf('generic', 0);
    expect(mapShopOrder('generic', order, unmarked, fieldsOf(), at).CurrencyId).toBeUndefined();
    expect(
      mapShopOrder('generic', order, unmarked, fieldsOf({ INTAKE_HOME_CURRENCY: 'CZK' }), at).CurrencyId,
    ).toBe('aaaaaaaa-2222-4333-8444-555555555555');
  });

  it('names every line and the currency it cannot map', () => {
    const order: ShopOrder = {
      ...shopOrderOf('generic', 0),
      currency: 'USD',
      lines: [
        { name: 'A', quantity: 1, unitPrice: 1, vatRatePercent: 21 },
        { name: 'B', quantity: 1, unitPrice: 1, vatRatePercent: 23 },
        { name: 'C', quantity: 1, unitPrice: 1, vatRatePercent: 10 },
      ],
    };
    expect(() => mapShopOrder('generic', order, refs, fieldsOf(), at)).toThrow(MappingError);
    try {
      mapShopOrder('generic', order, refs, fieldsOf(), at);
    } catch (error) {
      expect((error as MappingError).reasons).toEqual([
        "lines[0]: VAT rate 21 % is not one of the connection's VAT rates",
        "lines[2]: VAT rate 10 % is not one of the connection's VAT rates",
        "currency: USD is not one of the connection's currencies",
      ]);
    }
  });

  it('takes the VAT rate valid on the order date (Slovakia: 20 % until 2024, 23 % from 2025)', () => {
    expect(vatRateTypeFor(refs, 23, Date.parse('2025-03-01'))).toBe('BasicVatRate');
    expect(vatRateTypeFor(refs, 20, Date.parse('2024-06-01'))).toBe('BasicVatRate');
    expect(vatRateTypeFor(refs, 20, Date.parse('2025-03-01'))).toBeUndefined();
    expect(vatRateTypeFor(refs, 0, Date.parse('2025-03-01'))).toBe('ZeroVatRate');
  });

  it('reads WooCommerce rates through the tax lines and the IČO from the order meta', () => {
    const order = shopOrderOf('woocommerce', 2);
    expect(order.pricesIncludeVat).toBe(false);
    expect(order.customer.registrationNumber).toBe('47852369');
    const vatOfSku: Record<string, number> = {
      'KAN-001': 23,
      'POT-001': 19,
      'KNI-001': 5,
      'ELE-003': 23,
      'ESHOP-GIFT': 23,
    };
    for (const line of order.lines) expect(line.vatRatePercent, line.sku).toBe(vatOfSku[line.sku ?? '']);
    expect(order.paymentFees).toEqual([{ name: 'Poplatok za dobierku', price: 1.5, vatRatePercent: 23 }]);
  });
});
