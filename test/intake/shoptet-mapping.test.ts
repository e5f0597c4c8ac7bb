/**
 * Shoptet orders → received orders, property-based: orders made by the sandbox's Shoptet twin
 * (written from Shoptet's OpenAPI and documented behaviour: prices with VAT per item, VAT by the
 * coefficient method per item, coupons split per rate, shipping and cash-on-delivery items;
 * Czech 21/12/0 % in CZK, Slovak 23/19/5 % in EUR; 1–300 lines) are all mapped, none refused,
 * and the service prices each at the shop's total and VAT per rate, to the cent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapShopOrder } from '#functions/core/intake/map-order.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import { shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shoptetOrderSchema, shoptetToShopOrder } from '#functions/core/intake/shoptet-order.js';
import { randomShape, seededRandom, shoptetOrder } from '#sandbox/shoptet/shoptet-orders.js';
import { centsOf, refs, servicePricing } from './support-orders.js';

const options = loadIntakeConfig({ INTAKE_ORDER_NUMBER_FIELD: 'Note' }).mapping;
const at = new Date('2026-11-20T10:00:00Z');
const czechRefs: IntakeReferences = {
  ...refs,
  vatRates: [
    { type: 'BasicVatRate', percent: 21, validFrom: Date.parse('2024-01-01') },
    { type: 'FirstReducedVatRate', percent: 12, validFrom: Date.parse('2024-01-01') },
    { type: 'ZeroVatRate', percent: 0 },
  ],
  currencies: new Map([['CZK', { id: 'aaaaaaaa-2222-4333-8444-666666666666', home: true }]]),
};

/** The shop's own figures: `price.withVat` and the VAT of the items per rate, in cents. */
function shopFigures(order: ReturnType<typeof shoptetOrder>) {
  const vat: Record<string, number> = {};
  for (const item of order.items as {
    itemPrice: { vat: string; vatRate: string };
    itemPriceVatBreakdown?: { vat: string; vatRate: string }[];
  }[]) {
    const parts =
      item.itemPriceVatBreakdown && item.itemPriceVatBreakdown.length > 1
        ? item.itemPriceVatBreakdown
        : [item.itemPrice];
    for (const p of parts) {
      const key = String(Number(p.vatRate));
      vat[key] = (vat[key] ?? 0) + Math.round(Number(p.vat) * 100);
    }
  }
  for (const key of Object.keys(vat)) if (vat[key] === 0) delete vat[key];
  return { total: Math.round(Number(order.price.withVat) * 100), vat };
}

const shape = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  lines: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }) },
  ),
  country: fc.constantFrom('cz' as const, 'sk' as const),
});

describe('Shoptet order mapping', () => {
  it('maps every generated order and reconciles its totals to the cent (none refused)', () => {
    let lines = 0;
    let coupons = 0;
    fc.assert(
      fc.property(shape, ({ seed, lines: count, country }) => {
        const random = seededRandom(seed);
        const order = shoptetOrder(
          String(seed),
          { ...randomShape(random), lines: count, country },
          random,
          at,
        );
        const mapped = shoptetToShopOrder(shoptetOrderSchema.parse(order));
        const shop = shopOrderSchema.parse(mapped.order);
        expect(centsOf(shop.totals ?? { total: Number.NaN, vatByRate: [] })).toEqual(shopFigures(order));
        const request = mapShopOrder('shoptet', shop, country === 'cz' ? czechRefs : refs, options, at);
        expect(centsOf(servicePricing(request, country))).toEqual(shopFigures(order));
        lines += shop.lines.length;
        if (order.items.some((i) => i.itemType === 'discount-coupon')) coupons += 1;
      }),
      { numRuns: 300, seed: 3636 },
    );
    // The runs covered large orders and coupons (not only the small ones).
    expect(lines).toBeGreaterThan(3000);
    expect(coupons).toBeGreaterThan(30);
  });

  it('maps items by type: shipping, the payment fee and a coupon per rate; the VAT id links a partner only when verified', () => {
    const random = seededRandom(7);
    const order = shoptetOrder(
      '2026000001',
      {
        country: 'sk',
        lines: 6,
        couponPercent: 10,
        shipping: true,
        codFee: true,
        lineDiscounts: true,
        vatIdStatus: 'unverified',
      },
      random,
      at,
    );
    order.billingAddress.companyId = '27082440';
    order.billingAddress.vatId = 'SK2020317068';
    const mapped = shoptetToShopOrder(shoptetOrderSchema.parse(order));
    expect(mapped.partnerVerified).toBe(false);
    expect(mapped.order.shipping).toHaveLength(1);
    const coupon = order.items.find((i) => i.itemType === 'discount-coupon') as
      | { itemPriceVatBreakdown?: unknown[] }
      | undefined;
    const couponParts = coupon?.itemPriceVatBreakdown?.length ?? 0;
    expect(mapped.order.paymentFees).toHaveLength(
      1 + (couponParts > 1 ? couponParts : couponParts === 1 ? 1 : 0),
    );
    expect(mapped.order.paymentFees.filter((f) => f.price < 0).length).toBe(
      couponParts > 1 ? couponParts : couponParts,
    );
    expect(mapped.order.lines).toHaveLength(6);
    expect(mapped.order.customer.registrationNumber).toBe('27082440');
    expect(mapped.order.createdAt).toBe(`${at.toISOString().slice(0, 19)}+00:00`);
    order.billingAddress.vatIdValidationStatus = 'verified';
    expect(shoptetToShopOrder(shoptetOrderSchema.parse(order)).partnerVerified).toBe(true);
  });

  it('refuses an order that is not Shoptet’s shape, naming the field', () => {
    const order = shoptetOrder('1', randomShape(seededRandom(1)), seededRandom(2), at) as Record<
      string,
      unknown
    >;
    const bad = { ...order, price: { ...(order.price as object), withVat: '12.5' } };
    const parsed = shoptetOrderSchema.safeParse(bad);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join('.')).toBe('price.withVat');
  });
});
