/**
 * VAT as a Czech Shopify shop rounds it: Shopify computes the tax of every line (on the line's
 * price after its discounts) and rounds it to the cent, then sums the lines. The generator below
 * does exactly that in whole cents with integer arithmetic, with either rounding Shopify may apply
 * to a line (half up; half to even), and shares no code with the mapping. Every such order of 1 to
 * 300 lines imports at the shop's total and VAT per rate; the same order with its total moved by
 * one cent is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapOrder } from '#functions/core/intake/map-order.js';
import { TotalsMismatchError } from '#functions/core/intake/order-totals.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import { shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { buildItem, recapitulation } from '#sandbox/documents.js';
import { nationalData } from '#sandbox/national-data.js';
import type { ReferenceData } from '#sandbox/reference-data.js';

const CZECH = nationalData('cz');
const refs: IntakeReferences = {
  vatRates: [
    { type: 'BasicVatRate', percent: 21, validFrom: Date.parse('2024-01-01') },
    { type: 'FirstReducedVatRate', percent: 12, validFrom: Date.parse('2024-01-01') },
    { type: 'ZeroVatRate', percent: 0 },
  ],
  priceListItems: new Map(),
  currencies: new Map([['CZK', { id: 'aaaaaaaa-2222-4333-8444-666666666666', home: true }]]),
  partnersByRegistrationNumber: new Map(),
  partnersByEmail: new Map(),
};
const options = loadIntakeConfig({ INTAKE_ORDER_NUMBER_FIELD: 'Note', INTAKE_HOME_CURRENCY: 'CZK' }).mapping;
const fields = { registrationNumber: ['ico'], vatNumber: ['dic'] };
const at = new Date('2026-11-20T10:00:00Z');
const RUNS = 1000;

type Rule = 'halfUp' | 'halfEven';

/** num / den rounded to a whole number of cents by `rule` (num, den whole, den > 0, num ≥ 0). */
function divide(num: number, den: number, rule: Rule): number {
  const q = Math.floor(num / den);
  const twice = 2 * (num - q * den);
  if (twice > den) return q + 1;
  if (twice < den) return q;
  return rule === 'halfUp' ? q + 1 : q % 2 === 0 ? q : q + 1;
}

/** Shopify's tax of one line: on the price after discounts, rounded to the cent. */
function lineTax(netCents: number, rate: number, taxesIncluded: boolean, rule: Rule): number {
  return taxesIncluded ? divide(netCents * rate, 100 + rate, rule) : divide(netCents * rate, 100, rule);
}

const czLine = fc.record({
  quantity: fc.integer({ min: 1, max: 9 }),
  priceCents: fc.oneof(
    fc.integer({ min: 100, max: 500_000 }),
    // Prices whose 12 % tax ends in half a cent: 129.50, 64.54 and the like.
    fc.integer({ min: 1, max: 3_000 }).map((m) => 14 * (2 * m + 1)),
  ),
  rate: fc.constantFrom(21, 12),
  discountCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20_000 })),
});

const czOrder = fc.record({
  taxesIncluded: fc.boolean(),
  rule: fc.constantFrom<Rule>('halfUp', 'halfEven'),
  lines: fc.integer({ min: 1, max: 300 }).chain((n) => fc.array(czLine, { minLength: n, maxLength: n })),
  shippingCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30_000 })),
});
type CzOrder = typeof czOrder extends fc.Arbitrary<infer T> ? T : never;

const dec = (cents: number) => (cents / 100).toFixed(2);

/** The Shopify payload and its totals (total with VAT, VAT per rate) in cents. */
function shopifyPayload(spec: CzOrder) {
  const vat = new Map<number, number>();
  let total = 0;
  const taxLines = (net: number, rate: number) => {
    const tax = lineTax(net, rate, spec.taxesIncluded, spec.rule);
    vat.set(rate, (vat.get(rate) ?? 0) + tax);
    total += net + (spec.taxesIncluded ? 0 : tax);
    return [{ title: 'DPH', rate: rate / 100, price: dec(tax) }];
  };
  const lineItems = spec.lines.map((l, i) => {
    const gross = l.priceCents * l.quantity;
    const discount = Math.min(gross, l.discountCents);
    return {
      id: 1 + i,
      title: `Zboží ${i + 1}`,
      sku: `CZ-${i + 1}`,
      quantity: l.quantity,
      price: dec(l.priceCents),
      total_discount: '0.00',
      discount_allocations: discount > 0 ? [{ amount: dec(discount), discount_application_index: 0 }] : [],
      tax_lines: taxLines(gross - discount, l.rate),
    };
  });
  const shipping =
    spec.shippingCents > 0
      ? [{ title: 'Zásilkovna', price: dec(spec.shippingCents), tax_lines: taxLines(spec.shippingCents, 21) }]
      : [];
  const payload = {
    id: 7_700_000_000_001,
    name: '#CZ1001',
    created_at: '2026-11-20T10:00:00+01:00',
    currency: 'CZK',
    taxes_included: spec.taxesIncluded,
    email: 'zakaznik@example.cz',
    billing_address: { first_name: 'Jan', last_name: 'Novák', city: 'Praha', country_code: 'CZ' },
    discount_applications: [{ type: 'manual', title: 'Sleva', value_type: 'fixed_amount', value: '1.00' }],
    line_items: lineItems,
    shipping_lines: shipping,
    total_price: dec(total),
  };
  return { payload, total, vat };
}

/** What the cz sandbox computes for the request: its item and recapitulation rules. */
function servicePricing(request: ReturnType<typeof mapOrder>['request']) {
  const items = request.Items.map((wrapped, i) => {
    const item = ('TextItem' in wrapped ? wrapped.TextItem : wrapped.PriceListItem) as {
      Quantity: number;
      UnitPrice: number;
      UnitPriceVatType: string;
      VatRateType: string;
      DiscountPercentage: number;
    };
    return buildItem({ vatRateIds: {}, national: CZECH } as unknown as ReferenceData, `i${i}`, {
      Text: 'x',
      Quantity: item.Quantity,
      UnitPrice: item.UnitPrice,
      UnitPriceVatType: item.UnitPriceVatType,
      VatRateType: item.VatRateType,
      DiscountPercentage: item.DiscountPercentage,
    });
  });
  const recap = recapitulation(items, null) as {
    TotalPrice: number;
    VatRateSums: { Vat: number; VatRateType: string }[];
  };
  const percent: Record<string, number> = { BasicVatRate: 21, FirstReducedVatRate: 12, ZeroVatRate: 0 };
  const vat = new Map<number, number>();
  for (const s of recap.VatRateSums) {
    const rate = percent[s.VatRateType] ?? -1;
    const cents = Math.round(s.Vat * 100);
    if (cents !== 0) vat.set(rate, (vat.get(rate) ?? 0) + cents);
  }
  return { total: Math.round(recap.TotalPrice * 100), vat };
}

const sorted = (m: Map<number, number>) =>
  [...m.entries()].filter(([, c]) => c !== 0).sort(([a], [b]) => b - a);

function map(payload: unknown) {
  const order = shopOrderSchema.parse(shopifyToShopOrder(shopifyOrderSchema.parse(payload), fields));
  return mapOrder('shopify', order, refs, options, at);
}

describe('Czech Shopify orders with VAT rounded per line', () => {
  it(`${RUNS} orders of 1-300 lines import at the shop's totals; with the total moved by 1 cent all are refused`, () => {
    const counts = { imported: 0, refused: 0, withRounding: 0, movedRefused: 0, lines: 0 };
    fc.assert(
      fc.property(czOrder, fc.constantFrom(-1, 1), (spec, cents) => {
        const { payload, total, vat } = shopifyPayload(spec);
        counts.lines += spec.lines.length;
        let mapped: ReturnType<typeof mapOrder>;
        try {
          mapped = map(payload);
        } catch (error) {
          if (error instanceof TotalsMismatchError) counts.refused += 1;
          throw error;
        }
        counts.imported += 1;
        if (mapped.vatRounding.length > 0) counts.withRounding += 1;
        const service = servicePricing(mapped.request);
        expect(service.total).toBe(total);
        expect(sorted(service.vat)).toEqual(sorted(vat));

        const moved = { ...payload, total_price: dec(total + cents) };
        expect(() => map(moved)).toThrow(TotalsMismatchError);
        counts.movedRefused += 1;
      }),
      { numRuns: RUNS, seed: 20261128 },
    );
    console.info(
      `cz shopify per-line VAT: ${RUNS} orders (${counts.lines} lines), ${counts.imported} imported (${counts.withRounding} with VAT rounding items), ${counts.refused} refused; total moved by 1 cent: ${counts.movedRefused} refused`,
    );
    expect(counts).toMatchObject({ imported: RUNS, refused: 0, movedRefused: RUNS });
    // The generator does reach the drift the rule is for.
    expect(counts.withRounding).toBeGreaterThan(RUNS / 4);
    // About 20 s on a quiet machine; a busy one (load 30) took 37 s.
  }, 240_000);

  it('an order whose VAT of a rate is off by more than half a cent a line is refused with both figures', () => {
    const { payload, total, vat } = shopifyPayload({
      taxesIncluded: true,
      rule: 'halfUp',
      lines: [
        { quantity: 1, priceCents: 12_950, rate: 12, discountCents: 0 },
        { quantity: 2, priceCents: 39_900, rate: 21, discountCents: 0 },
      ],
      shippingCents: 0,
    });
    expect(vat.get(12)).toBe(1388);
    const shifted = structuredClone(payload);
    const [first] = shifted.line_items;
    if (!first?.tax_lines[0]) throw new Error('no line');
    first.tax_lines[0].price = '13.90';
    expect(() => map(shifted)).toThrow(
      "vat 12 %: the shop's 13.90, ours 13.87 (beyond the rounding of 1 line, ±0.005)",
    );
    expect(map(payload).vatRounding).toEqual([{ ratePercent: 12, shop: 13.88, computed: 13.87, lines: 1 }]);
    expect(total).toBe(12_950 + 79_800);
  });
});
