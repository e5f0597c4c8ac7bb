/**
 * Shop orders for the reconciliation tests: the connection's references, the service's own pricing
 * (the sandbox's item and recapitulation rules, independent of the intake's), and generators of
 * Shopify and WooCommerce orders whose totals are computed the way each platform computes them
 * (every discount allocated to the lines, tax per line rounded to the cent).
 */
import fc from 'fast-check';
import type { CreateReceivedOrderRequest } from '#functions/core/intake/map-order.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import type { OrderTotals } from '#functions/core/intake/shop-order.js';
import { buildItem, recapitulation } from '#sandbox/documents.js';
import { nationalData } from '#sandbox/national-data.js';
import type { ReferenceData } from '#sandbox/reference-data.js';

/** The sk sandbox company: the rates the generated orders use. */
const SLOVAK = nationalData('sk');

export const refs: IntakeReferences = {
  vatRates: [
    { type: 'BasicVatRate', percent: 23, validFrom: Date.parse('2025-01-01') },
    { type: 'FirstReducedVatRate', percent: 19, validFrom: Date.parse('2025-01-01') },
    { type: 'SecondReducedVatRate', percent: 5, validFrom: Date.parse('2025-01-01') },
    { type: 'ZeroVatRate', percent: 0 },
  ],
  priceListItems: new Map(),
  currencies: new Map([['EUR', { id: 'aaaaaaaa-2222-4333-8444-555555555555', home: true }]]),
  partnersByRegistrationNumber: new Map(),
  partnersByEmail: new Map(),
};
export const RATES = [23, 19, 5, 0] as const;
const percentOfType: Record<string, number> = {
  BasicVatRate: 23,
  FirstReducedVatRate: 19,
  SecondReducedVatRate: 5,
  ZeroVatRate: 0,
};

/** Cents, half away from zero. */
const round = (x: number) => Math.sign(x) * Math.round(Math.abs(x) + 1e-7);
const dec = (cents: number) => (cents / 100).toFixed(2);

/** What the service computes for the request: the sandbox's items and recapitulation (sk, or cz rates). */
export function servicePricing(
  request: CreateReceivedOrderRequest,
  variant: 'sk' | 'cz' = 'sk',
): OrderTotals {
  const national = variant === 'sk' ? SLOVAK : nationalData('cz');
  const percents: Record<string, number> =
    variant === 'sk' ? percentOfType : { BasicVatRate: 21, FirstReducedVatRate: 12, ZeroVatRate: 0 };
  const items = request.Items.map((wrapped, i) => {
    const item = ('TextItem' in wrapped ? wrapped.TextItem : wrapped.PriceListItem) as {
      Text?: string | null;
      Quantity?: number | null;
      UnitPrice?: number | null;
      UnitPriceVatType?: string | null;
      VatRateType?: string | null;
      DiscountPercentage?: number | null;
    };
    return buildItem({ vatRateIds: {}, national } as unknown as ReferenceData, `i${i}`, {
      Text: item.Text ?? '',
      Quantity: item.Quantity ?? 0,
      UnitPrice: item.UnitPrice ?? 0,
      UnitPriceVatType: item.UnitPriceVatType ?? 'WithoutVat',
      VatRateType: item.VatRateType ?? 'ZeroVatRate',
      DiscountPercentage: item.DiscountPercentage ?? 0,
    });
  });
  const recap = recapitulation(items, null) as {
    TotalPrice: number;
    VatRateSums: { Vat: number; VatRateType: string }[];
  };
  return {
    total: recap.TotalPrice,
    vatByRate: recap.VatRateSums.map((s) => ({
      ratePercent: percents[s.VatRateType] ?? -1,
      vat: s.Vat,
    })),
  };
}

/** Totals as cents keyed by rate, rates without VAT left out: for equality. */
export function centsOf(totals: OrderTotals): { total: number; vat: Record<string, number> } {
  const vat: Record<string, number> = {};
  for (const r of totals.vatByRate) {
    const key = String(r.ratePercent);
    vat[key] = (vat[key] ?? 0) + Math.round(r.vat * 100);
  }
  for (const key of Object.keys(vat)) if (vat[key] === 0) delete vat[key];
  return { total: Math.round(totals.total * 100), vat };
}

const lineSpec = fc.record({
  quantity: fc.integer({ min: 1, max: 25 }),
  priceCents: fc.integer({ min: 1, max: 60_000 }),
  rate: fc.constantFrom(...RATES),
});

// ---------------------------------------------------------------------------------------------
// Shopify

const discountSpec = fc.record({
  type: fc.constantFrom('discount_code', 'automatic', 'manual', 'script'),
  valueType: fc.constantFrom('percentage', 'fixed_amount'),
  percent: fc.integer({ min: 1, max: 100 }),
  amountCents: fc.integer({ min: 1, max: 5_000 }),
  allocation: fc.constantFrom('across', 'each'),
  selection: fc.constantFrom('all', 'entitled', 'explicit'),
  target: fc.constantFrom('line_item', 'line_item', 'shipping_line'),
  /** Which lines an entitled or explicit discount touches (bit i = line i). */
  mask: fc.integer({ min: 1, max: 2 ** 30 }),
});

export const shopifyOrderArbitrary = fc
  .record({
    taxesIncluded: fc.boolean(),
    lines: fc.array(lineSpec, { minLength: 1, maxLength: 12 }),
    shipping: fc.array(
      fc.record({ priceCents: fc.integer({ min: 0, max: 3_000 }), rate: fc.constantFrom(...RATES) }),
      {
        maxLength: 2,
      },
    ),
    discounts: fc.array(discountSpec, { maxLength: 3 }),
    /** Older API versions: the line's discount in `total_discount`, no allocations. */
    legacyTotalDiscount: fc.boolean(),
    presentmentRate: fc.constantFrom(1, 25.3),
  })
  .map(shopifyOrderOf);

export type ShopifySpec = {
  taxesIncluded: boolean;
  lines: { quantity: number; priceCents: number; rate: number }[];
  shipping: { priceCents: number; rate: number }[];
  discounts: (typeof discountSpec extends fc.Arbitrary<infer D> ? D : never)[];
  legacyTotalDiscount: boolean;
  presentmentRate: number;
};

/** A Shopify order and its totals as Shopify computes them. */
export function shopifyOrderOf(spec: ShopifySpec): { payload: Record<string, unknown>; totals: OrderTotals } {
  const set = (cents: number) => ({
    shop_money: { amount: dec(cents), currency_code: 'EUR' },
    presentment_money: {
      amount: dec(round(cents * spec.presentmentRate)),
      currency_code: spec.presentmentRate === 1 ? 'EUR' : 'CZK',
    },
  });
  type Target = { quantity: number; remaining: number; allocations: number[][] };
  const lines = spec.lines.map((l) => ({
    ...l,
    remaining: l.priceCents * l.quantity,
    allocations: [] as number[][],
  }));
  const shipping = spec.shipping.map((s) => ({
    ...s,
    quantity: 1,
    remaining: s.priceCents,
    allocations: [] as number[][],
  }));
  const applications: Record<string, unknown>[] = [];
  spec.discounts.forEach((d, index) => {
    const targets = (d.target === 'shipping_line' ? (shipping as Target[]) : (lines as Target[])).filter(
      (_, i) => d.selection === 'all' || (d.mask >> i) & 1,
    );
    if (targets.length === 0) return;
    const allocation = d.valueType === 'percentage' ? 'across' : d.allocation;
    applications.push({
      type: d.type,
      ...(d.type === 'discount_code' ? { code: `CODE${index}` } : { title: `Zľava ${index}` }),
      description: null,
      value: d.valueType === 'percentage' ? `${d.percent}.0` : dec(d.amountCents),
      value_type: d.valueType,
      allocation_method: allocation,
      target_selection: d.selection,
      target_type: d.target,
    });
    const give = (t: (typeof targets)[number], cents: number) => {
      const amount = Math.max(0, Math.min(t.remaining, cents));
      t.remaining -= amount;
      t.allocations.push([amount, applications.length - 1]);
    };
    if (d.valueType === 'percentage') {
      for (const t of targets) give(t, round((t.remaining * d.percent) / 100));
    } else if (allocation === 'each') {
      for (const t of targets) give(t, d.amountCents * t.quantity);
    } else {
      // Across: in proportion to what is left, the last target takes the rest.
      const base = targets.reduce((sum, t) => sum + t.remaining, 0);
      const amount = Math.min(d.amountCents, base);
      let left = amount;
      targets.forEach((t, i) => {
        const share =
          i === targets.length - 1 ? left : base > 0 ? Math.floor((amount * t.remaining) / base) : 0;
        left -= Math.min(share, t.remaining);
        give(t, share);
      });
    }
  });
  const taxOf = (net: number, rate: number) =>
    spec.taxesIncluded ? round((net * rate) / (100 + rate)) : round((net * rate) / 100);
  const vat = new Map<number, number>();
  let total = 0;
  const taxLine = (net: number, rate: number) => {
    const tax = taxOf(net, rate);
    vat.set(rate, (vat.get(rate) ?? 0) + tax);
    total += net + (spec.taxesIncluded ? 0 : tax);
    return rate === 0 && net === 0
      ? []
      : [{ title: 'DPH', rate: rate / 100, price: dec(tax), price_set: set(tax) }];
  };
  const allocationsOf = (a: number[][]) =>
    a.map(([amount, index]) => ({
      amount: dec(amount ?? 0),
      amount_set: set(amount ?? 0),
      discount_application_index: index,
    }));
  const lineItems = lines.map((l, i) => {
    const discount = l.priceCents * l.quantity - l.remaining;
    return {
      id: 1000 + i,
      title: `Produkt ${i}`,
      sku: `SKU-${i}`,
      quantity: l.quantity,
      price: dec(l.priceCents),
      price_set: set(l.priceCents),
      total_discount: spec.legacyTotalDiscount ? dec(discount) : '0.00',
      total_discount_set: set(spec.legacyTotalDiscount ? discount : 0),
      discount_allocations: spec.legacyTotalDiscount ? [] : allocationsOf(l.allocations),
      taxable: true,
      tax_lines: taxLine(l.remaining, l.rate),
    };
  });
  const shippingLines = shipping.map((s, i) => ({
    id: 2000 + i,
    title: `Doprava ${i}`,
    price: dec(s.priceCents),
    price_set: set(s.priceCents),
    discounted_price: dec(s.remaining),
    discount_allocations: allocationsOf(s.allocations),
    tax_lines: taxLine(s.remaining, s.rate),
  }));
  const totals: OrderTotals = {
    total: total / 100,
    vatByRate: [...vat.entries()].map(([ratePercent, cents]) => ({ ratePercent, vat: cents / 100 })),
  };
  const payload = {
    id: 5_900_000_000_000,
    name: '#2001',
    created_at: '2026-11-20T10:00:00+01:00',
    currency: 'EUR',
    presentment_currency: spec.presentmentRate === 1 ? 'EUR' : 'CZK',
    taxes_included: spec.taxesIncluded,
    email: 'zakaznik@example.sk',
    billing_address: { first_name: 'Eva', last_name: 'Malá', city: 'Trnava', country_code: 'SK' },
    discount_applications: applications,
    line_items: lineItems,
    shipping_lines: shippingLines,
    total_price: dec(total),
    total_price_set: set(total),
    total_tax: dec([...vat.values()].reduce((a, b) => a + b, 0)),
  };
  return { payload, totals };
}

// ---------------------------------------------------------------------------------------------
// WooCommerce

const RATE_IDS: Record<number, number> = { 23: 1, 19: 2, 5: 3, 0: 4 };

export const wooOrderArbitrary = fc
  .record({
    pricesIncludeTax: fc.boolean(),
    lines: fc.array(lineSpec, { minLength: 1, maxLength: 12 }),
    coupons: fc.array(
      fc.record({
        kind: fc.constantFrom('percent', 'fixed_cart', 'fixed_product'),
        percent: fc.integer({ min: 1, max: 100 }),
        amountCents: fc.integer({ min: 1, max: 4_000 }),
      }),
      { maxLength: 2 },
    ),
    shipping: fc.array(
      fc.record({ totalCents: fc.integer({ min: 0, max: 2_500 }), rate: fc.constantFrom(...RATES) }),
      {
        maxLength: 2,
      },
    ),
    fees: fc.array(
      fc.record({ totalCents: fc.integer({ min: -3_000, max: 3_000 }), rate: fc.constantFrom(...RATES) }),
      {
        maxLength: 2,
      },
    ),
  })
  .map((spec) => {
    const inclusive = spec.pricesIncludeTax;
    // Coupons apply to the price the customer sees (with tax when prices include it).
    const lines = spec.lines.map((l) => ({
      ...l,
      full: l.priceCents * l.quantity,
      left: l.priceCents * l.quantity,
    }));
    const couponLines = spec.coupons.map((c, index) => {
      let given = 0;
      const base = lines.reduce((sum, l) => sum + l.left, 0);
      lines.forEach((l, i) => {
        let cut: number;
        if (c.kind === 'percent') cut = round((l.left * c.percent) / 100);
        else if (c.kind === 'fixed_product') cut = c.amountCents * l.quantity;
        else
          cut =
            i === lines.length - 1
              ? Math.min(c.amountCents, base) - given
              : base > 0
                ? Math.floor((Math.min(c.amountCents, base) * l.left) / base)
                : 0;
        cut = Math.max(0, Math.min(l.left, cut));
        l.left -= cut;
        given += cut;
      });
      return { code: `kupon${index}`, discount: dec(given), discount_tax: '0.00' };
    });
    const vat = new Map<number, { items: number; shipping: number }>();
    const addVat = (rate: number, cents: number, kind: 'items' | 'shipping') => {
      const v = vat.get(rate) ?? { items: 0, shipping: 0 };
      v[kind] += cents;
      vat.set(rate, v);
    };
    let total = 0;
    /** A charge from what the customer sees: net and tax, as WooCommerce stores them. */
    const split = (cents: number, rate: number) => {
      if (inclusive) {
        const tax = round((cents * rate) / (100 + rate));
        return { net: cents - tax, tax };
      }
      return { net: cents, tax: round((cents * rate) / 100) };
    };
    const taxes = (rate: number, tax: number) => [
      { id: RATE_IDS[rate], total: dec(tax), subtotal: dec(tax) },
    ];
    const lineItems = lines.map((l, i) => {
      const sub = split(l.full, l.rate);
      const after = split(l.left, l.rate);
      addVat(l.rate, after.tax, 'items');
      total += after.net + after.tax;
      return {
        id: 300 + i,
        name: `Produkt ${i}`,
        sku: `W-${i}`,
        quantity: l.quantity,
        subtotal: dec(sub.net),
        subtotal_tax: dec(sub.tax),
        total: dec(after.net),
        total_tax: dec(after.tax),
        taxes: taxes(l.rate, after.tax),
        price: sub.net / 100 / l.quantity,
      };
    });
    // Shipping and fees are entered without tax.
    const charge = (cents: number, rate: number, kind: 'items' | 'shipping') => {
      const tax = round((cents * rate) / 100);
      addVat(rate, tax, kind);
      total += cents + tax;
      return { total: dec(cents), total_tax: dec(tax), taxes: taxes(rate, tax) };
    };
    const shippingLines = spec.shipping.map((s, i) => ({
      id: 600 + i,
      method_title: `Doprava ${i}`,
      method_id: 'flat_rate',
      ...charge(s.totalCents, s.rate, 'shipping'),
    }));
    const feeLines = spec.fees.map((f, i) => ({
      id: 700 + i,
      name: f.totalCents < 0 ? `Zľava ${i}` : `Poplatok ${i}`,
      ...charge(f.totalCents, f.rate, 'items'),
    }));
    const payload = {
      id: 9100,
      number: '9100',
      currency: 'EUR',
      date_created_gmt: '2026-11-20T09:00:00',
      prices_include_tax: inclusive,
      total: dec(total),
      total_tax: dec([...vat.values()].reduce((sum, v) => sum + v.items + v.shipping, 0)),
      billing: {
        first_name: 'Ján',
        last_name: 'Veľký',
        city: 'Prešov',
        country: 'SK',
        email: 'jan@example.sk',
      },
      line_items: lineItems,
      coupon_lines: couponLines,
      shipping_lines: shippingLines,
      fee_lines: feeLines,
      tax_lines: [...vat.entries()].map(([rate, v]) => ({
        id: 500 + (RATE_IDS[rate] ?? 0),
        rate_id: RATE_IDS[rate],
        rate_percent: rate,
        tax_total: dec(v.items),
        shipping_tax_total: dec(v.shipping),
      })),
    };
    const totals: OrderTotals = {
      total: total / 100,
      vatByRate: [...vat.entries()].map(([ratePercent, v]) => ({
        ratePercent,
        vat: (v.items + v.shipping) / 100,
      })),
    };
    return { payload, totals };
  });

/**
 * A Shopify order of `lineCount` lines with every field the Order resource gives a line (variant,
 * vendor, properties, price and discount sets in shop and presentment money, tax lines): an
 * automatic 5 % discount across the order, a discount code on shipping, taxes not included.
 */
export function largeShopifyOrder(lineCount: number): {
  payload: Record<string, unknown>;
  totals: OrderTotals;
} {
  const spec: ShopifySpec = {
    taxesIncluded: false,
    lines: Array.from({ length: lineCount }, (_, i) => ({
      quantity: 1 + (i % 4),
      priceCents: 199 + ((i * 7919) % 9_000),
      rate: RATES[i % 3] ?? 23,
    })),
    shipping: [{ priceCents: 690, rate: 23 }],
    discounts: [
      {
        type: 'automatic',
        valueType: 'percentage',
        percent: 5,
        amountCents: 0,
        allocation: 'across',
        selection: 'all',
        target: 'line_item',
        mask: 1,
      },
      {
        type: 'discount_code',
        valueType: 'fixed_amount',
        percent: 0,
        amountCents: 300,
        allocation: 'each',
        selection: 'all',
        target: 'shipping_line',
        mask: 1,
      },
    ],
    legacyTotalDiscount: false,
    presentmentRate: 1,
  };
  const { payload, totals } = shopifyOrderOf(spec);
  const lines = (payload.line_items as Record<string, unknown>[]).map((line, i) => ({
    ...line,
    id: 14_200_000_000_000 + i,
    admin_graphql_api_id: `gid://shopify/LineItem/${14_200_000_000_000 + i}`,
    variant_id: 45_100_000_000 + i,
    product_id: 9_100_000_000 + Math.floor(i / 3),
    title: `Kancelársky papier Premium A4 ${80 + (i % 5) * 10} g, balenie ${i + 1}`,
    variant_title: `${['biely', 'recyklovaný', 'krémový'][i % 3]} / ${500 + (i % 2) * 250} listov`,
    name: `Kancelársky papier Premium A4 ${80 + (i % 5) * 10} g, balenie ${i + 1} - ${['biely', 'recyklovaný', 'krémový'][i % 3]}`,
    vendor: 'Papiernictvo Žilina s.r.o.',
    current_quantity: line.quantity,
    fulfillable_quantity: line.quantity,
    fulfillment_service: 'manual',
    fulfillment_status: null,
    gift_card: false,
    grams: 2500,
    product_exists: true,
    requires_shipping: true,
    variant_inventory_management: 'shopify',
    properties: [{ name: 'Poznámka k balíku', value: 'Zabaliť samostatne' }],
    duties: [],
    attributed_staffs: [],
  }));
  return { payload: { ...payload, line_items: lines, name: '#9250', order_number: 9250 }, totals };
}
