/**
 * WooCommerce's `order.created` webhook payload (the Order of the REST API v3) → the shop order.
 * Money is a decimal string. A line's `subtotal` is its price before coupons and `total` after
 * them, both without tax whatever `prices_include_tax` says (`subtotal_tax` / `total_tax` hold the
 * tax). With `prices_include_tax` the order is booked with VAT (total + total_tax, which is what the
 * customer saw), else without. Shipping and fees (`fee_lines`, negative for a discount given as a
 * fee) are items of their own. A charge's VAT rate comes from its `taxes[].id` →
 * `tax_lines[].rate_id` → `rate_percent`; without those, from `total_tax / total`. The shop's
 * totals are the order's `total` and, per rate, the `tax_lines`' `tax_total` + `shipping_tax_total`
 * (else the charges' `total_tax`).
 */
import * as z from 'zod';
import { normaliseTotals, toCents } from './order-totals.js';
import type { Contact, Fee, OrderLine, RateVat, ShopOrder } from './shop-order.js';
import type { PlatformFieldNames } from './shopify-order.js';

const decimal = z
  .union([z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string'), z.number().finite()])
  .transform(Number);
const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
const taxes = z
  .array(z.looseObject({ id: z.number().int(), total: z.union([z.string(), z.number()]) }))
  .default([]);

const addressSchema = z.looseObject({
  first_name: optionalText,
  last_name: optionalText,
  company: optionalText,
  address_1: optionalText,
  address_2: optionalText,
  city: optionalText,
  postcode: optionalText,
  country: optionalText,
  email: optionalText,
  phone: optionalText,
});
type Address = z.infer<typeof addressSchema>;

const chargeFields = { total: decimal, total_tax: decimal.default(0), taxes };

export const wooOrderSchema = z.looseObject({
  id: z.number().int().positive().transform(String),
  number: z.union([z.string().min(1), z.number().int()]).transform(String),
  date_created_gmt: z.string().optional(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  prices_include_tax: z.boolean().default(false),
  total: decimal,
  customer_note: optionalText,
  billing: addressSchema,
  shipping: addressSchema.nullish(),
  meta_data: z.array(z.looseObject({ key: z.string(), value: z.unknown() })).default([]),
  line_items: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        sku: optionalText,
        quantity: z.number().positive(),
        subtotal: decimal,
        subtotal_tax: decimal.default(0),
        ...chargeFields,
      }),
    )
    .min(1),
  tax_lines: z
    .array(
      z.looseObject({
        rate_id: z.number().int(),
        rate_percent: z.number().min(0).max(100).optional(),
        tax_total: decimal.optional(),
        shipping_tax_total: decimal.optional(),
      }),
    )
    .default([]),
  coupon_lines: z
    .array(
      z.looseObject({
        code: z.string().min(1),
        discount: decimal.default(0),
        discount_tax: decimal.default(0),
      }),
    )
    .default([]),
  shipping_lines: z.array(z.looseObject({ method_title: z.string().min(1), ...chargeFields })).default([]),
  fee_lines: z.array(z.looseObject({ name: z.string().min(1), ...chargeFields })).default([]),
});
export type WooOrder = z.infer<typeof wooOrderSchema>;

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

function rateOf(
  order: WooOrder,
  charge: { total: number; total_tax: number; taxes: { id: number }[] },
): number {
  const percents = charge.taxes
    .map((t) => order.tax_lines.find((l) => l.rate_id === t.id)?.rate_percent)
    .filter((p): p is number => p !== undefined);
  if (percents.length > 0)
    return round(
      percents.reduce((a, b) => a + b, 0),
      2,
    );
  return charge.total !== 0 ? round((charge.total_tax / charge.total) * 100, 0) : 0;
}

function contactOf(a: Address, extra: Partial<Contact>): Contact {
  const out: Contact = { ...extra };
  const name = [a.first_name, a.last_name].filter(Boolean).join(' ');
  const street = [a.address_1, a.address_2].filter(Boolean).join(', ');
  if (a.company) out.companyName = a.company;
  if (name) out.name = name;
  if (street) out.street = street;
  if (a.city) out.city = a.city;
  if (a.postcode) out.postCode = a.postcode;
  if (a.country && /^[A-Za-z]{2}$/.test(a.country)) out.country = a.country.toUpperCase();
  if (a.email) out.email = a.email;
  if (a.phone) out.phone = a.phone;
  return out;
}

function meta(order: WooOrder, keys: readonly string[]): string | undefined {
  const wanted = new Set(keys.map((k) => k.toLowerCase()));
  const hit = order.meta_data.find((m) => wanted.has(m.key.toLowerCase()));
  return typeof hit?.value === 'string' && hit.value.trim() !== '' ? hit.value.trim() : undefined;
}

type Charge = { total: number; total_tax: number; taxes: { id: number }[] };

/** The shop's VAT per rate: the order's tax lines when they carry their rates and sums, else the charges'. */
function shopVat(order: WooOrder): RateVat[] {
  const lines = order.tax_lines;
  if (lines.length > 0 && lines.every((t) => t.rate_percent !== undefined && t.tax_total !== undefined)) {
    return lines.map((t) => ({
      ratePercent: t.rate_percent ?? 0,
      vat: (toCents(t.tax_total ?? 0) + toCents(t.shipping_tax_total ?? 0)) / 100,
    }));
  }
  const charges: Charge[] = [...order.line_items, ...order.shipping_lines, ...order.fee_lines];
  return charges.map((c) => ({ ratePercent: rateOf(order, c), vat: toCents(c.total_tax) / 100 }));
}

function couponNote(order: WooOrder): string | undefined {
  const coupons = order.coupon_lines.map((c) => {
    const amount = order.prices_include_tax ? c.discount + c.discount_tax : c.discount;
    return `${c.code} (−${amount.toFixed(2)} ${order.currency})`;
  });
  return coupons.length > 0 ? `Coupons: ${coupons.join('; ')}` : undefined;
}

export function wooToShopOrder(order: WooOrder, fields: PlatformFieldNames): ShopOrder {
  const inclusive = order.prices_include_tax;
  /** A charge's price in the order's price mode, in cents. */
  const cents = (net: number, tax: number) => toCents(net) + (inclusive ? toCents(tax) : 0);
  const lines: OrderLine[] = order.line_items.map((l) => ({
    ...(l.sku ? { sku: l.sku } : {}),
    name: l.name,
    quantity: l.quantity,
    unitPrice: round(cents(l.subtotal, l.subtotal_tax) / 100 / l.quantity, 6),
    vatRatePercent: rateOf(order, l),
    lineTotal: Math.max(0, cents(l.total, l.total_tax)) / 100,
  }));
  const fee = (name: string, c: Charge): Fee => ({
    name,
    price: cents(c.total, c.total_tax) / 100,
    vatRatePercent: rateOf(order, c),
  });
  const note = [order.customer_note, couponNote(order)].filter(Boolean).join('\n').slice(0, 2000);
  const registrationNumber = meta(order, fields.registrationNumber);
  const vatNumber = meta(order, fields.vatNumber);
  const created = order.date_created_gmt ? `${order.date_created_gmt.replace(/Z$/, '')}Z` : undefined;
  const shipping =
    order.shipping && (order.shipping.address_1 || order.shipping.city) ? order.shipping : undefined;
  return {
    id: order.id,
    number: order.number,
    ...(created && !Number.isNaN(Date.parse(created)) ? { createdAt: created } : {}),
    currency: order.currency,
    pricesIncludeVat: inclusive,
    customer: contactOf(order.billing, {
      ...(registrationNumber ? { registrationNumber } : {}),
      ...(vatNumber ? { vatNumber } : {}),
    }),
    ...(shipping ? { shippingAddress: contactOf(shipping, {}) } : {}),
    lines,
    shipping: order.shipping_lines.map((s) => fee(s.method_title, s)),
    paymentFees: order.fee_lines.map((f) => fee(f.name, f)),
    ...(note ? { note } : {}),
    totals: normaliseTotals({ total: order.total, vatByRate: shopVat(order) }),
  };
}
