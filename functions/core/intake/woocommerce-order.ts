/**
 * WooCommerce's `order.created` webhook payload (the Order of the REST API v3) → the shop order.
 * Money is a decimal string. Line `total` is the line's price after discounts and without tax,
 * whatever `prices_include_tax` says, so the import takes it without VAT. A line's VAT rate comes
 * from its `taxes[].id` → `tax_lines[].rate_id` → `rate_percent`; without those, from
 * `total_tax / total`.
 */
import * as z from 'zod';
import type { Contact, Fee, OrderLine, ShopOrder } from './shop-order.js';
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
        ...chargeFields,
      }),
    )
    .min(1),
  tax_lines: z
    .array(z.looseObject({ rate_id: z.number().int(), rate_percent: z.number().min(0).max(100).optional() }))
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
  return charge.total > 0 ? round((charge.total_tax / charge.total) * 100, 0) : 0;
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

export function wooToShopOrder(order: WooOrder, fields: PlatformFieldNames): ShopOrder {
  const lines: OrderLine[] = order.line_items.map((l) => {
    const discount = l.subtotal > 0 ? Math.min(100, round((1 - l.total / l.subtotal) * 100, 2)) : 0;
    return {
      ...(l.sku ? { sku: l.sku } : {}),
      name: l.name,
      quantity: l.quantity,
      unitPrice: round(l.subtotal / l.quantity, 6),
      vatRatePercent: rateOf(order, l),
      ...(discount > 0 ? { discountPercent: discount } : {}),
    };
  });
  const fee = (name: string, c: { total: number; total_tax: number; taxes: { id: number }[] }): Fee => ({
    name,
    price: c.total,
    vatRatePercent: rateOf(order, c),
  });
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
    pricesIncludeVat: false,
    customer: contactOf(order.billing, {
      ...(registrationNumber ? { registrationNumber } : {}),
      ...(vatNumber ? { vatNumber } : {}),
    }),
    ...(shipping ? { shippingAddress: contactOf(shipping, {}) } : {}),
    lines,
    shipping: order.shipping_lines.map((s) => fee(s.method_title, s)),
    paymentFees: order.fee_lines.map((f) => fee(f.name, f)),
    ...(order.customer_note ? { note: order.customer_note } : {}),
  };
}
