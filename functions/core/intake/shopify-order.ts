/**
 * Shopify's `orders/create` webhook payload (the Order resource of the Admin REST API) → the
 * shop order. Only the fields the import needs are read; every other field passes. Money is a
 * decimal string, booked in the shop's currency (`*_set.shop_money` where given, else the plain
 * field, which is in the shop's currency too); `taxes_included` says whether prices include VAT;
 * a line's VAT rate is the sum of its `tax_lines[].rate` (fractions, 0.23).
 *
 * Discounts: every discount application (code, automatic, manual, script; across or each; on the
 * lines or on shipping) is allocated by Shopify to the lines it touches, in each line's and
 * shipping line's `discount_allocations`; `total_discount` is read only when a line has no
 * allocations (it is "0.00" beside them in newer API versions). The shop's totals are
 * `total_price` and the VAT of the lines' and shipping lines' `tax_lines`, per rate.
 */
import * as z from 'zod';
import { normaliseTotals, toCents } from './order-totals.js';
import type { Contact, Fee, OrderLine, RateVat, ShopOrder } from './shop-order.js';

const decimal = z
  .union([z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string'), z.number().finite()])
  .transform(Number);
const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
/** A `*_set` money bag; only the shop's money is booked. */
const moneySet = z.looseObject({ shop_money: z.looseObject({ amount: decimal }) }).nullish();
const inShopMoney = (amount: number, set: z.infer<typeof moneySet>): number =>
  set?.shop_money.amount ?? amount;

const taxLines = z
  .array(z.looseObject({ rate: z.number().min(0).max(1), price: decimal, price_set: moneySet }))
  .default([]);
const discountAllocations = z
  .array(
    z.looseObject({
      amount: decimal,
      amount_set: moneySet,
      discount_application_index: z.number().int().min(0).optional(),
    }),
  )
  .default([]);

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
        price_set: moneySet,
        total_discount: decimal.default(0),
        total_discount_set: moneySet,
        discount_allocations: discountAllocations,
        taxable: z.boolean().optional(),
        tax_lines: taxLines,
      }),
    )
    .min(1),
  shipping_lines: z
    .array(
      z.looseObject({
        title: z.string().min(1),
        price: decimal,
        price_set: moneySet,
        discount_allocations: discountAllocations,
        tax_lines: taxLines,
      }),
    )
    .default([]),
  discount_applications: z
    .array(
      z.looseObject({
        type: z.string().optional(),
        code: optionalText,
        title: optionalText,
        description: optionalText,
        value: decimal.optional(),
        value_type: z.string().optional(),
        allocation_method: z.string().optional(),
        target_selection: z.string().optional(),
        target_type: z.string().optional(),
      }),
    )
    .default([]),
  total_price: decimal,
  total_price_set: moneySet,
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

type TaxLines = ShopifyOrder['line_items'][number]['tax_lines'];
type Allocations = ShopifyOrder['line_items'][number]['discount_allocations'];

/** Cents of the discounts allocated to a line (shop money). */
const allocatedCents = (allocations: Allocations): number =>
  allocations.reduce((sum, a) => sum + toCents(inShopMoney(a.amount, a.amount_set)), 0);

/** The line's VAT (its tax lines, shop money) under the line's rate. */
function vatOf(lines: TaxLines, into: RateVat[]): void {
  if (lines.length === 0) return;
  const cents = lines.reduce((sum, t) => sum + toCents(inShopMoney(t.price, t.price_set)), 0);
  into.push({ ratePercent: ratePercent(lines), vat: cents / 100 });
}

/** One line per discount application: what the customer saw (code or title, kind, value). */
function discountNote(order: ShopifyOrder): string | undefined {
  const described = order.discount_applications.map((d) => {
    const name = d.code ?? d.title ?? d.description ?? 'discount';
    const value =
      d.value === undefined
        ? ''
        : d.value_type === 'percentage'
          ? `, ${d.value} %`
          : `, ${d.value.toFixed(2)} ${order.currency}`;
    const kind = (d.type ?? 'discount').replaceAll('_', ' ');
    const target = d.target_type === 'shipping_line' ? ', shipping' : '';
    return `${name} (${kind}${value}${target})`;
  });
  return described.length > 0 ? `Discounts: ${described.join('; ')}` : undefined;
}

export function shopifyToShopOrder(order: ShopifyOrder, fields: PlatformFieldNames): ShopOrder {
  const vatByRate: RateVat[] = [];
  const lines: OrderLine[] = order.line_items.map((l) => {
    const unitPrice = inShopMoney(l.price, l.price_set);
    const discountCents =
      l.discount_allocations.length > 0
        ? allocatedCents(l.discount_allocations)
        : toCents(inShopMoney(l.total_discount, l.total_discount_set));
    const taxes = l.taxable === false ? [] : l.tax_lines;
    vatOf(taxes, vatByRate);
    return {
      ...(l.sku ? { sku: l.sku } : {}),
      name: l.name ?? l.title,
      quantity: l.quantity,
      unitPrice,
      vatRatePercent: ratePercent(taxes),
      lineTotal: Math.max(0, toCents(unitPrice * l.quantity) - discountCents) / 100,
    };
  });
  const shipping: Fee[] = order.shipping_lines.map((s) => {
    vatOf(s.tax_lines, vatByRate);
    const price = toCents(inShopMoney(s.price, s.price_set)) - allocatedCents(s.discount_allocations);
    return { name: s.title, price: Math.max(0, price) / 100, vatRatePercent: ratePercent(s.tax_lines) };
  });
  const discounts = discountNote(order);
  const note = [order.note, discounts].filter(Boolean).join('\n').slice(0, 2000);
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
    ...(note ? { note } : {}),
    totals: normaliseTotals({ total: inShopMoney(order.total_price, order.total_price_set), vatByRate }),
  };
}
