/**
 * Shopify's `orders/create` webhook payload (the Order resource of the Admin REST API) → the
 * shop order. Only the fields the import needs are read; every other field passes. Money is a
 * decimal string; `taxes_included` says whether line prices include VAT; a line's VAT rate is
 * in `tax_lines[].rate` as a fraction (0.23).
 */
import * as z from 'zod';
import type { Contact, Fee, OrderLine, ShopOrder } from './shop-order.js';

const decimal = z
  .union([z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string'), z.number().finite()])
  .transform(Number);
const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
const taxLines = z.array(z.looseObject({ rate: z.number().min(0).max(1) })).default([]);

const addressSchema = z.looseObject({
  first_name: optionalText,
  last_name: optionalText,
  name: optionalText,
  company: optionalText,
  address1: optionalText,
  address2: optionalText,
  city: optionalText,
  zip: optionalText,
  country_code: optionalText,
  phone: optionalText,
});
type Address = z.infer<typeof addressSchema>;

export const shopifyOrderSchema = z.looseObject({
  id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).transform(String),
  name: z.string().min(1),
  order_number: z.number().int().optional(),
  created_at: z.string().optional(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  taxes_included: z.boolean(),
  email: optionalText,
  phone: optionalText,
  note: optionalText,
  note_attributes: z.array(z.looseObject({ name: z.string(), value: z.unknown() })).default([]),
  billing_address: addressSchema.nullish(),
  shipping_address: addressSchema.nullish(),
  customer: z
    .looseObject({ email: optionalText, first_name: optionalText, last_name: optionalText })
    .nullish(),
  line_items: z
    .array(
      z.looseObject({
        title: z.string().min(1),
        name: optionalText,
        sku: optionalText,
        quantity: z.number().int().positive(),
        price: decimal,
        total_discount: decimal.default(0),
        tax_lines: taxLines,
      }),
    )
    .min(1),
  shipping_lines: z
    .array(z.looseObject({ title: z.string().min(1), price: decimal, tax_lines: taxLines }))
    .default([]),
});
export type ShopifyOrder = z.infer<typeof shopifyOrderSchema>;

const ratePercent = (lines: { rate: number }[]): number =>
  Math.round(lines.reduce((sum, l) => sum + l.rate, 0) * 10000) / 100;

function joinName(a: Address | null | undefined): string | undefined {
  const parts = [a?.first_name, a?.last_name].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : (a?.name ?? undefined);
}

function contactOf(a: Address | null | undefined, extra: Partial<Contact>): Contact {
  const street = [a?.address1, a?.address2].filter(Boolean).join(', ');
  const out: Contact = { ...extra };
  const name = joinName(a);
  if (a?.company) out.companyName = a.company;
  if (name) out.name = name;
  if (street) out.street = street;
  if (a?.city) out.city = a.city;
  if (a?.zip) out.postCode = a.zip;
  if (a?.country_code && /^[A-Za-z]{2}$/.test(a.country_code)) out.country = a.country_code.toUpperCase();
  if (a?.phone && !out.phone) out.phone = a.phone;
  return out;
}

/** Values of order attributes (checkout fields) whose name is one of `names`, case-insensitively. */
function attribute(order: ShopifyOrder, names: readonly string[]): string | undefined {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const hit = order.note_attributes.find((a) => wanted.has(a.name.toLowerCase()));
  return typeof hit?.value === 'string' && hit.value.trim() !== '' ? hit.value.trim() : undefined;
}

export interface PlatformFieldNames {
  /** Checkout fields (Shopify note attributes, WooCommerce order meta keys) holding the IČO. */
  registrationNumber: readonly string[];
  /** … holding the IČ DPH (VAT identification number). */
  vatNumber: readonly string[];
}

export function shopifyToShopOrder(order: ShopifyOrder, fields: PlatformFieldNames): ShopOrder {
  const lines: OrderLine[] = order.line_items.map((l) => {
    const gross = l.price * l.quantity;
    const discount = gross > 0 ? Math.min(100, Math.round((l.total_discount / gross) * 10000) / 100) : 0;
    return {
      ...(l.sku ? { sku: l.sku } : {}),
      name: l.name ?? l.title,
      quantity: l.quantity,
      unitPrice: l.price,
      vatRatePercent: ratePercent(l.tax_lines),
      ...(discount > 0 ? { discountPercent: discount } : {}),
    };
  });
  const shipping: Fee[] = order.shipping_lines.map((s) => ({
    name: s.title,
    price: s.price,
    vatRatePercent: ratePercent(s.tax_lines),
  }));
  const registrationNumber = attribute(order, fields.registrationNumber);
  const vatNumber = attribute(order, fields.vatNumber);
  const email = order.email ?? order.customer?.email;
  const customer = contactOf(order.billing_address ?? order.shipping_address, {
    ...(email ? { email } : {}),
    ...(order.phone ? { phone: order.phone } : {}),
    ...(registrationNumber ? { registrationNumber } : {}),
    ...(vatNumber ? { vatNumber } : {}),
  });
  if (!customer.name && order.customer) {
    const name = [order.customer.first_name, order.customer.last_name].filter(Boolean).join(' ');
    if (name) customer.name = name;
  }
  const createdAt =
    order.created_at && !Number.isNaN(Date.parse(order.created_at)) ? order.created_at : undefined;
  return {
    id: order.id,
    number: order.name,
    ...(createdAt ? { createdAt } : {}),
    currency: order.currency,
    pricesIncludeVat: order.taxes_included,
    customer,
    ...(order.shipping_address ? { shippingAddress: contactOf(order.shipping_address, {}) } : {}),
    lines,
    shipping,
    paymentFees: [],
    ...(order.note ? { note: order.note } : {}),
  };
}
