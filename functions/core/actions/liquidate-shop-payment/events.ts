/**
 * The outcomes of the shop payment action (triggered by `EshopOrder.Paid`, core/events/intake-events.ts):
 * - `IssuedInvoice.ShopPaymentRecorded`: the invoice made from the shop order was liquidated by
 *   the shop's payment (once per payment);
 * - `EshopOrder.PaymentUnmatched`: the payment liquidated nothing the action could tell (no
 *   received order, no invoice made from it in time, another currency, paid already) or paid more
 *   than was left (the invoice was liquidated, the surplus is reported); a person decides.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { connectionSchema } from '#functions/core/connection.js';
import {
  actionBase,
  actionIdempotencyKey,
  EXAMPLE_AT,
  EXAMPLE_CONNECTION,
  exampleActionBase,
  exampleIds,
} from '#functions/core/events/action-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { intakeSources } from '#functions/core/events/intake-events.js';

export const SHOP_PAYMENT_RECORDED = 'IssuedInvoice.ShopPaymentRecorded';
export const SHOP_PAYMENT_UNMATCHED = 'EshopOrder.PaymentUnmatched';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

export const shopPaymentUnmatchedReasons = [
  'noOrder',
  'noInvoice',
  'ambiguous',
  'currency',
  'overpaid',
] as const;
export type ShopPaymentUnmatchedReason = (typeof shopPaymentUnmatchedReasons)[number];

const paymentFields = {
  shop: z.enum(intakeSources).describe('The shop platform that reported the payment.'),
  shopOrderId: z.string().min(1).describe("The shop's order id."),
  paymentId: z.string().min(1).describe("The shop's payment id (`EshopOrder.Paid`'s)."),
  amount: z.number().positive().describe('What the shop says was paid.'),
  currency: z.string().length(3),
};

export const shopPaymentRecordedSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'ShopPaymentRecorded'),
    ...paymentFields,
    receivedOrderId: recordIdSchema.describe('The received order the shop order was imported as.'),
    liquidated: z.number().positive().describe('The amount liquidated (at most the rest to pay).'),
    overpayment: z.number().min(0).describe('What the payment paid beyond the rest to pay.'),
    restBefore: z.number().describe("The service's `RestToPay` before the liquidation."),
    kind: z.enum(['fully', 'partially']),
    liquidation: z
      .object({
        operation: z.string().min(1).describe('The service operation that liquidated the invoice.'),
        id: z.string().nullable().describe('The liquidation or bank document the service created.'),
      })
      .describe('What the service created.'),
  })
  .describe("The invoice made from a shop order was liquidated by the shop's payment (once per payment).");
export type ShopPaymentRecordedDetail = z.infer<typeof shopPaymentRecordedSchema>;

const candidateSchema = z.object({
  recordType: z.literal('IssuedInvoice'),
  id: recordIdSchema,
  documentNumber: z.string().nullable(),
  currency: z.string().describe('ISO code of the invoice currency.'),
  restToPay: z.number().describe("The service's `RestToPay` when the payment was matched."),
});

export const shopPaymentUnmatchedSchema = z
  .object({
    version: z.literal(ENVELOPE_VERSION),
    connection: connectionSchema,
    recordType: z.literal('EshopOrder'),
    id: z.string().min(1).describe('`<source>:<shopOrderId>`, as `EshopOrder.Paid`.'),
    change: z.literal('PaymentUnmatched'),
    action: z.string().min(1),
    causationId: z.string().min(1).describe('Id of the `EshopOrder.Paid` event.'),
    idempotencyKey: hex64,
    occurredAt: isoDateTime,
    ...paymentFields,
    reason: z
      .enum(shopPaymentUnmatchedReasons)
      .describe(
        '`noOrder`: no received order was imported from the shop order; `noInvoice`: no issued invoice was made from it within the wait (`ACTIONS_SHOP_PAYMENT_WAIT_MINUTES`); `ambiguous`: several invoices were made from it; `currency`: the invoice is in another currency; `overpaid`: the payment exceeds what was left (the invoice was liquidated; `left` is the surplus) or the invoice was paid already.',
      ),
    left: z.number().positive().describe('The amount left for a person (the surplus when overpaid).'),
    receivedOrderId: recordIdSchema.nullable().describe('The received order, when one was found.'),
    candidates: z.array(candidateSchema).describe('The invoices made from the order, if any.'),
  })
  .describe("A shop's payment that liquidated nothing the action could tell, or paid more than was left.");
export type ShopPaymentUnmatchedDetail = z.infer<typeof shopPaymentUnmatchedSchema>;

const exampleShopOrder = { shop: 'shopify' as const, shopOrderId: '820982911946154508' };
const exampleOrderId = `${exampleShopOrder.shop}:${exampleShopOrder.shopOrderId}`;

export const shopPaymentRecordedEntry: CatalogEntry<
  typeof SHOP_PAYMENT_RECORDED,
  typeof shopPaymentRecordedSchema
> = {
  detailType: SHOP_PAYMENT_RECORDED,
  description: "An issued invoice made from a shop order was liquidated by the shop's payment.",
  schema: shopPaymentRecordedSchema,
  example: {
    ...exampleActionBase(
      'IssuedInvoice',
      exampleIds.invoice,
      'ShopPaymentRecorded',
      'shop-payments.liquidate',
      'FV2026000042',
    ),
    recordType: 'IssuedInvoice' as const,
    change: 'ShopPaymentRecorded' as const,
    ...exampleShopOrder,
    paymentId: 'paid:820982911946154508',
    amount: 1210,
    currency: 'CZK',
    receivedOrderId: exampleIds.order,
    liquidated: 1210,
    overpayment: 0,
    restBefore: 1210,
    kind: 'fully' as const,
    liquidation: { operation: 'IssuedInvoices.liquidateStandaloneFully', id: exampleIds.slip },
  },
};

export const shopPaymentUnmatchedEntry: CatalogEntry<
  typeof SHOP_PAYMENT_UNMATCHED,
  typeof shopPaymentUnmatchedSchema
> = {
  detailType: SHOP_PAYMENT_UNMATCHED,
  description: "A shop's payment that liquidated nothing the action could tell, or paid more than was left.",
  schema: shopPaymentUnmatchedSchema,
  example: {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType: 'EshopOrder',
    id: exampleOrderId,
    change: 'PaymentUnmatched',
    action: 'shop-payments.liquidate',
    causationId: exampleIds.event,
    idempotencyKey: actionIdempotencyKey(
      EXAMPLE_CONNECTION,
      'shop-payments.liquidate',
      exampleOrderId,
      'PaymentUnmatched',
      'paid:820982911946154508',
    ),
    occurredAt: EXAMPLE_AT,
    ...exampleShopOrder,
    paymentId: 'paid:820982911946154508',
    amount: 1210,
    currency: 'CZK',
    reason: 'noInvoice',
    left: 1210,
    receivedOrderId: exampleIds.order,
    candidates: [],
  },
};
