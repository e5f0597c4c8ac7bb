/**
 * A shop's report that an order was paid → the payment the intake announces (`EshopOrder.Paid`),
 * from each platform's documented payload:
 * - **Shopify** `orders/paid`: the Order resource once `financial_status` is `paid`. Its webhook
 *   carries no transaction (those are `order_transactions/create`'s), and an order becomes paid
 *   once, so the payment is the order's: `paid:<order id>`. Paid: `total_price` less
 *   `total_outstanding`, in the shop's `currency`; when: `updated_at` (the change), else
 *   `processed_at`.
 * - **WooCommerce** `order.created` / `order.updated`: the REST API's Order; it is paid when
 *   `date_paid_gmt` is set and the status is `processing` or `completed` (what `set_paid: true`,
 *   a gateway's `payment_complete()` or a person marking it paid leave). The payment is the
 *   gateway's `transaction_id`, else `paid:<order id>@<date_paid_gmt>`; paid: `total`.
 * - **Shoptet** `order:paid` (fetched, `data.order`): `paid: true`; the payment is the order's
 *   (`paid:<code>`; `order:paid` fires once, when an unpaid order becomes paid); paid:
 *   `price.withVat` in `price.currencyCode`; when: the notification's `eventCreated`.
 *
 * An order that is not paid is `undefined` (the delivery is acknowledged and ignored); a payload
 * that is not the platform's is the problems, field first.
 */
import * as z from 'zod';
import { issuesOf } from './intake-response.js';
import { toCents } from './order-totals.js';

export interface ShopPayment {
  shopOrderId: string;
  orderNumber: string | null;
  paymentId: string;
  amount: number;
  currency: string;
  paidAt: string;
  orderCreatedAt?: string;
  gateway: string | null;
}

export type PaymentOf = { payment: ShopPayment | undefined } | { problems: string[] };

const decimal = z
  .union([z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string'), z.number().finite()])
  .transform(Number);
const currency = z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code');
const id = z.union([z.number().int().positive(), z.string().regex(/^\d{1,20}$/)]).transform(String);
const text = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() !== '' ? v.trim().slice(0, 255) : undefined));

/** An ISO date-time with an offset, or one the platform gives in UTC without it (WooCommerce's `_gmt`). */
function isoOf(value: string | undefined | null, utcWithoutOffset = false): string | undefined {
  if (!value) return undefined;
  const withOffset = utcWithoutOffset && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
  const iso = withOffset.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const time = Date.parse(iso);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}

const money = (cents: number): number => cents / 100;

export const shopifyPaidSchema = z.looseObject({
  id,
  name: text,
  currency,
  financial_status: z.string().nullish(),
  total_price: decimal,
  total_outstanding: decimal.nullish(),
  created_at: z.string().nullish(),
  processed_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  payment_gateway_names: z.array(z.string()).nullish(),
});

export function shopifyPayment(json: unknown): PaymentOf {
  const parsed = shopifyPaidSchema.safeParse(json);
  if (!parsed.success) return { problems: issuesOf(parsed.error) };
  const o = parsed.data;
  if (o.financial_status !== 'paid') return { payment: undefined };
  const paidAt = isoOf(o.updated_at) ?? isoOf(o.processed_at);
  if (!paidAt) return { problems: ['updated_at: expected the date-time the order was paid'] };
  const cents = toCents(o.total_price) - toCents(o.total_outstanding ?? 0);
  if (cents <= 0) return { problems: ['total_price: expected a paid amount above zero'] };
  const createdAt = isoOf(o.created_at);
  return {
    payment: {
      shopOrderId: o.id,
      orderNumber: o.name ?? null,
      paymentId: `paid:${o.id}`,
      amount: money(cents),
      currency: o.currency,
      paidAt,
      ...(createdAt ? { orderCreatedAt: createdAt } : {}),
      gateway: (o.payment_gateway_names ?? []).join(', ').slice(0, 255) || null,
    },
  };
}

/** The statuses of a WooCommerce order paid and not cancelled, refunded or failed. */
const WOO_PAID_STATUSES = new Set(['processing', 'completed']);

export const wooPaidSchema = z.looseObject({
  id,
  number: z
    .union([z.string().min(1), z.number().int()])
    .transform(String)
    .optional(),
  status: z.string().min(1),
  currency,
  total: decimal,
  date_created_gmt: z.string().nullish(),
  date_paid_gmt: z.string().nullish(),
  transaction_id: text,
  payment_method: text,
  payment_method_title: text,
});

export function wooPayment(json: unknown): PaymentOf {
  const parsed = wooPaidSchema.safeParse(json);
  if (!parsed.success) return { problems: issuesOf(parsed.error) };
  const o = parsed.data;
  if (!WOO_PAID_STATUSES.has(o.status) || !o.date_paid_gmt) return { payment: undefined };
  const paidAt = isoOf(o.date_paid_gmt, true);
  if (!paidAt) return { problems: ['date_paid_gmt: expected a date-time such as 2026-03-04T16:45:12'] };
  const cents = toCents(o.total);
  if (cents <= 0) return { problems: ['total: expected a paid amount above zero'] };
  const createdAt = isoOf(o.date_created_gmt, true);
  return {
    payment: {
      shopOrderId: o.id,
      orderNumber: o.number ?? null,
      paymentId: (o.transaction_id ?? `paid:${o.id}@${paidAt}`).slice(0, 128),
      amount: money(cents),
      currency: o.currency,
      paidAt,
      ...(createdAt ? { orderCreatedAt: createdAt } : {}),
      gateway: o.payment_method_title ?? o.payment_method ?? null,
    },
  };
}

/** What the Shoptet import knows of a fetched order that `order:paid` named. */
export interface ShoptetPaidOrder {
  code: string;
  paid: boolean | null | undefined;
  total: number;
  currency: string;
  creationTime?: string | null;
  /** `paymentMethod.name`. */
  paymentMethod?: string | null;
}

export function shoptetPayment(order: ShoptetPaidOrder, eventCreated: string): PaymentOf {
  if (order.paid !== true) return { payment: undefined };
  const paidAt = isoOf(eventCreated);
  if (!paidAt) return { problems: ['eventCreated: expected the date-time the order was paid'] };
  const cents = toCents(order.total);
  if (cents <= 0) return { problems: ['price.withVat: expected a paid amount above zero'] };
  const createdAt = isoOf(order.creationTime);
  return {
    payment: {
      shopOrderId: order.code,
      orderNumber: order.code,
      paymentId: `paid:${order.code}`,
      amount: money(cents),
      currency: order.currency.toUpperCase(),
      paidAt,
      ...(createdAt ? { orderCreatedAt: createdAt } : {}),
      gateway: order.paymentMethod ?? null,
    },
  };
}
