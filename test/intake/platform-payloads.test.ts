/**
 * The reconciliation on the platforms' own payloads (fixtures modelled on the Shopify Order and
 * WooCommerce Order REST resources), the mapping alone: each maps to a request the service prices
 * at the shop's total and VAT per rate, to the cent. Starts nothing (the import against the
 * sandbox: reconcile-orders.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapShopOrder } from '#functions/core/intake/map-order.js';
import { intakeFixture as fixture, shopOrderFrom as shopOrder } from './shop-payloads.js';
import { centsOf, refs, servicePricing } from './support-orders.js';

const mapping = loadIntakeConfig({ INTAKE_ORDER_NUMBER_FIELD: 'Note' }).mapping;

const FIXTURES = [
  ['shopify', 'shopify-discount-allocations.json', { total: 13188, vat: { '23': 1810, '5': 167 } }],
  [
    'shopify',
    'shopify-taxes-included-shipping-discount.json',
    { total: 4470, vat: { '19': 530, '23': 215 } },
  ],
  [
    'woocommerce',
    'woocommerce-coupons-fees-prices-with-tax.json',
    { total: 5380, vat: { '23': 587, '5': 107 } },
  ],
] as const;

describe('platform payloads map to the shop totals, to the cent', () => {
  for (const [source, name, expected] of FIXTURES) {
    it(`${name}: the service prices the request at the shop's total and VAT per rate`, () => {
      const order = shopOrder(source, fixture(name));
      expect(centsOf(order.totals ?? { total: 0, vatByRate: [] })).toEqual(expected);
      const request = mapShopOrder(source, order, refs, mapping, new Date('2026-11-22T12:00:00Z'));
      expect(centsOf(servicePricing(request))).toEqual(expected);
    });
  }

  it('names the discounts on the order: codes, automatic ones, coupons', () => {
    expect(shopOrder('shopify', fixture('shopify-taxes-included-shipping-discount.json')).note).toBe(
      'Discounts: Zimný výpredaj (automatic, 10 %); DOPRAVA2 (discount code, 2.00 EUR, shipping)',
    );
    expect(shopOrder('woocommerce', fixture('woocommerce-coupons-fees-prices-with-tax.json')).note).toBe(
      'Coupons: jesen10 (−5.67 EUR)',
    );
  });

  it('books the shop currency, not the presentment currency', () => {
    const order = shopOrder('shopify', fixture('shopify-taxes-included-shipping-discount.json'));
    expect(order.currency).toBe('EUR');
    expect(order.lines.map((l) => [l.unitPrice, l.lineTotal])).toEqual([
      [12.3, 33.21],
      [9.99, 8.99],
    ]);
    expect(order.shipping).toEqual([{ name: 'Zásielkovňa', price: 2.5, vatRatePercent: 23 }]);
  });
});
