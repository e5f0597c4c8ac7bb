/**
 * Shoptet's order (`GET /api/orders/{code}` → `data.order`, `components/schemas/order` of its
 * OpenAPI) → the shop order. Money is a decimal string with two places; a rate is `"21.00"`; an
 * amount has three places. Every item carries `itemPrice` (the line after its `priceRatio`
 * discount and quantity) with and without VAT, its VAT and rate; the order is booked with VAT
 * (`withVat`, what the customer pays). Items by `itemType`: `shipping` → shipping, `billing` (the
 * payment method) → a payment fee, a discount (`discount-coupon`, `volume-discount`, or any item
 * of negative price) → a negative fee, one per rate of its `itemPriceVatBreakdown` when it spans
 * several; every other type (product, bazar, service, gift, product-set, deposit, …) → a line.
 * The shop's totals are `price.withVat` and, per rate, the items' VAT.
 *
 * The customer's company id and VAT id are what the customer typed at checkout: they go on the
 * document address, and `partnerVerified` is true only when Shoptet says it validated the VAT id
 * (`vatIdValidationStatus: verified`), the one case in which the import may link an address-book
 * partner by them.
 */
import * as z from 'zod';
import { normaliseTotals, toCents } from './order-totals.js';
import type { Contact, Fee, OrderLine, RateVat, ShopOrder } from './shop-order.js';
import { orderCodeSchema } from './shoptet-notification.js';

const price = z
  .string()
  .regex(/^-?\d+\.\d{2}$/, 'expected a price such as "21.00"')
  .transform(Number);
const rate = z
  .string()
  .regex(/^\d+\.\d{2}$/, 'expected a VAT rate such as "21.00"')
  .transform(Number);
const amount = z
  .string()
  .regex(/^-?\d+\.\d{3}$/, 'expected an amount such as "1.000"')
  .transform(Number);
const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));
const dateTime = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:?\d{2}$/,
    'expected a date-time such as 2018-05-29T09:02:27+0200',
  )
  .nullish();

const itemPriceSchema = z.looseObject({
  withVat: price,
  withoutVat: price,
  vat: price,
  vatRate: rate,
});
type ItemPrice = z.infer<typeof itemPriceSchema>;

const addressFields = {
  company: optionalText,
  fullName: optionalText,
  street: optionalText,
  houseNumber: optionalText,
  city: optionalText,
  additional: optionalText,
  zip: optionalText,
  countryCode: optionalText,
};

export const shoptetItemSchema = z.looseObject({
  itemType: z.string().min(1),
  code: optionalText,
  name: z.string().trim().min(1),
  variantName: optionalText,
  amount: amount.nullish(),
  amountUnit: optionalText,
  itemPrice: itemPriceSchema,
  itemPriceVatBreakdown: z.array(itemPriceSchema).nullish(),
});
export type ShoptetItem = z.infer<typeof shoptetItemSchema>;

export const shoptetOrderSchema = z.looseObject({
  code: orderCodeSchema,
  creationTime: dateTime,
  changeTime: dateTime,
  email: optionalText,
  phone: optionalText,
  price: z.looseObject({
    withVat: price,
    vat: price.nullish(),
    currencyCode: z.string().regex(/^[a-zA-Z]{3}$/, 'expected a currency code such as CZK'),
    exchangeRate: z
      .string()
      .regex(/^\d+\.\d{8}$/, 'expected an exchange rate such as "1.00000000"')
      .nullish(),
  }),
  paid: z.boolean().nullish(),
  billingAddress: z.looseObject({
    ...addressFields,
    companyId: optionalText,
    vatId: optionalText,
    taxId: optionalText,
    vatIdValidationStatus: z.enum(['unverified', 'verified', 'waiting']).nullish(),
  }),
  deliveryAddress: z.looseObject(addressFields).nullish(),
  items: z.array(shoptetItemSchema).min(1, 'expected at least one item'),
  notes: z.looseObject({ customerRemark: optionalText }).nullish(),
});
export type ShoptetOrder = z.infer<typeof shoptetOrderSchema>;

/** Item types booked as discounts (negative fees); any item of negative price is one too. */
const DISCOUNT_TYPES = new Set(['discount-coupon', 'volume-discount']);

/** `2018-05-29T09:02:27+0200` → `2018-05-29T09:02:27+02:00`. */
function isoDateTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const iso = value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

type Address = z.infer<ReturnType<typeof z.looseObject<typeof addressFields>>>;

function contactOf(a: Address, extra: Partial<Contact>): Contact {
  const out: Contact = { ...extra };
  const street = [a.street, a.houseNumber].filter(Boolean).join(' ');
  if (a.company) out.companyName = a.company;
  if (a.fullName) out.name = a.fullName;
  const fullStreet = [street, a.additional].filter(Boolean).join(', ');
  if (fullStreet) out.street = fullStreet;
  if (a.city) out.city = a.city;
  if (a.zip) out.postCode = a.zip;
  if (a.countryCode && /^[A-Za-z]{2}$/.test(a.countryCode)) out.country = a.countryCode.toUpperCase();
  return out;
}

/** The parts of an item, each at one rate: its breakdown when it spans several rates, else itself. */
function partsOf(item: ShoptetItem): ItemPrice[] {
  const breakdown = item.itemPriceVatBreakdown ?? [];
  return breakdown.length > 1 ? breakdown : [item.itemPrice];
}

function isDiscount(item: ShoptetItem): boolean {
  return DISCOUNT_TYPES.has(item.itemType) || item.itemPrice.withVat < 0;
}

/** The shop's VAT per rate: the sum of its items' (or their breakdowns') VAT, in cents. */
function shopVat(order: ShoptetOrder): RateVat[] {
  const byRate = new Map<number, number>();
  for (const item of order.items) {
    for (const part of partsOf(item)) {
      byRate.set(part.vatRate, (byRate.get(part.vatRate) ?? 0) + toCents(part.vat));
    }
  }
  return [...byRate].map(([ratePercent, cents]) => ({ ratePercent, vat: cents / 100 }));
}

function lineOf(item: ShoptetItem): OrderLine {
  const quantity = item.amount !== undefined && item.amount !== null && item.amount > 0 ? item.amount : 1;
  const total = item.itemPrice.withVat;
  const name = [item.name, item.variantName].filter(Boolean).join(' ').slice(0, 255);
  return {
    ...(item.code ? { sku: item.code.slice(0, 64) } : {}),
    name,
    quantity,
    ...(item.amountUnit ? { unit: item.amountUnit.slice(0, 16) } : {}),
    unitPrice: Math.round((total / quantity) * 1e6) / 1e6,
    vatRatePercent: item.itemPrice.vatRate,
    lineTotal: total,
  };
}

function feesOf(item: ShoptetItem): Fee[] {
  const parts = partsOf(item);
  return parts.map((part) => ({
    name: (parts.length > 1 ? `${item.name} (${part.vatRate} %)` : item.name).slice(0, 255),
    price: part.withVat,
    vatRatePercent: part.vatRate,
  }));
}

export interface MappedShoptetOrder {
  order: ShopOrder;
  /** Shoptet validated the customer's VAT id: only then may a partner be matched by it. */
  partnerVerified: boolean;
}

export function shoptetToShopOrder(order: ShoptetOrder): MappedShoptetOrder {
  const lines: OrderLine[] = [];
  const shipping: Fee[] = [];
  const paymentFees: Fee[] = [];
  for (const item of order.items) {
    if (item.itemType === 'shipping') shipping.push(...feesOf(item));
    else if (item.itemType === 'billing' || isDiscount(item)) paymentFees.push(...feesOf(item));
    else lines.push(lineOf(item));
  }
  const b = order.billingAddress;
  const currency = order.price.currencyCode.toUpperCase();
  const rate = order.price.exchangeRate;
  const exchange =
    rate && Number(rate) !== 1
      ? `Exchange rate ${rate} (${currency} to the shop's default currency)`
      : undefined;
  const note = [order.notes?.customerRemark, exchange].filter(Boolean).join('\n').slice(0, 2000);
  const created = isoDateTime(order.creationTime);
  const delivery = order.deliveryAddress ? contactOf(order.deliveryAddress, {}) : undefined;
  const customer = contactOf(b, {
    ...(b.companyId ? { registrationNumber: b.companyId.slice(0, 32) } : {}),
    ...(b.vatId ? { vatNumber: b.vatId.slice(0, 32) } : {}),
    ...(b.taxId && b.taxId !== b.vatId ? { taxNumber: b.taxId.slice(0, 32) } : {}),
    ...(order.email && z.email().safeParse(order.email).success ? { email: order.email } : {}),
    ...(order.phone ? { phone: order.phone.slice(0, 64) } : {}),
  });
  return {
    order: {
      id: order.code,
      number: order.code,
      ...(created ? { createdAt: created } : {}),
      currency,
      pricesIncludeVat: true,
      customer,
      ...(delivery && (delivery.street || delivery.city) ? { shippingAddress: delivery } : {}),
      lines,
      shipping,
      paymentFees,
      ...(note ? { note } : {}),
      totals: normaliseTotals({ total: order.price.withVat, vatByRate: shopVat(order) }),
    },
    partnerVerified: b.vatIdValidationStatus === 'verified',
  };
}
