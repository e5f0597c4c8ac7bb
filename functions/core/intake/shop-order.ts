/**
 * The shop order every source is normalised to, and the message the intake endpoint queues for
 * the import. The `generic` source posts exactly this shape (documented in docs/intake.md), so
 * any shop or middleware can feed the intake without a platform adapter.
 *
 * Prices: `unitPrice` is the price of one unit before the line's discount, with VAT when
 * `pricesIncludeVat` is true, else without. `vatRatePercent` is the shop's rate (e.g. 23).
 * `lineTotal` is what the shop charges for the line after every discount, in the same price mode;
 * `totals` are the shop's own total with VAT and VAT per rate: the import reconciles the order
 * against them to the cent.
 */
import * as z from 'zod';
import { connectionSchema } from '../connection.js';

import { intakeSources } from '../events/intake-events.js';
import type { ShoptetNoticeMessage } from './shoptet-notification.js';

export { intakeSources };
/** Most lines one order may have (a queued order over the queue's message size is claim-checked). */
export const MAX_ORDER_LINES = 2000;
export type IntakeSource = (typeof intakeSources)[number];

export function isIntakeSource(value: string): value is IntakeSource {
  return (intakeSources as readonly string[]).includes(value);
}

const text = (max: number) => z.string().trim().min(1).max(max);
const money = z.number().finite().min(0).max(1e9);
const signedMoney = z.number().finite().min(-1e9).max(1e9);
const percent = z.number().finite().min(0).max(100);

export const contactSchema = z
  .object({
    companyName: text(255).optional(),
    name: text(255).optional(),
    email: z.email().max(255).optional(),
    phone: text(64).optional(),
    registrationNumber: text(32).optional().describe('Company registration number (IČO).'),
    taxNumber: text(32).optional().describe('Tax identification number (DIČ).'),
    vatNumber: text(32).optional().describe('VAT identification number (IČ DPH).'),
    street: text(255).optional(),
    city: text(128).optional(),
    postCode: text(16).optional(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'expected an ISO 3166-1 alpha-2 country code')
      .optional(),
  })
  .strict();
export type Contact = z.infer<typeof contactSchema>;

export const orderLineSchema = z
  .object({
    sku: text(64).optional().describe('Matched against price-list item codes.'),
    name: text(255),
    quantity: z.number().finite().gt(0).max(1e6),
    unit: text(16).optional(),
    unitPrice: money,
    vatRatePercent: percent,
    discountPercent: percent.optional(),
    lineTotal: money
      .optional()
      .describe("The line's amount after every discount (same price mode); wins over discountPercent."),
  })
  .strict();
export type OrderLine = z.infer<typeof orderLineSchema>;

export const feeSchema = z
  .object({ name: text(255), price: signedMoney, vatRatePercent: percent })
  .strict()
  .describe('Shipping or a fee (negative for a discount given as a fee): one item of quantity 1.');
export type Fee = z.infer<typeof feeSchema>;

/** VAT of one rate, in the order's currency. */
export const rateVatSchema = z.object({ ratePercent: percent, vat: signedMoney }).strict();
export type RateVat = z.infer<typeof rateVatSchema>;

/** An order's total with VAT and its VAT per rate: the shop's, ours (mapped) or the service's. */
export const orderTotalsSchema = z
  .object({
    total: signedMoney.describe('Total with VAT.'),
    vatByRate: z.array(rateVatSchema).max(20).describe('VAT per rate; a rate without VAT may be left out.'),
  })
  .strict();
export type OrderTotals = z.infer<typeof orderTotalsSchema>;

export const shopOrderSchema = z
  .object({
    id: text(64).describe("The shop's order id (unique per shop); duplicates are detected by it."),
    number: text(64).describe('The order number the customer sees; stored on the received order.'),
    createdAt: z.iso.datetime({ offset: true }).optional(),
    currency: z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code'),
    pricesIncludeVat: z.boolean(),
    customer: contactSchema,
    shippingAddress: contactSchema.optional(),
    lines: z.array(orderLineSchema).min(1).max(MAX_ORDER_LINES),
    shipping: z.array(feeSchema).max(20).default([]),
    paymentFees: z.array(feeSchema).max(20).default([]),
    note: z.string().max(2000).optional(),
    totals: orderTotalsSchema
      .optional()
      .describe("The shop's own totals; the order is imported only when the mapped order equals them."),
  })
  .strict();
export type ShopOrder = z.infer<typeof shopOrderSchema>;

const messageFields = {
  version: z.literal(1),
  connection: connectionSchema,
  source: z.enum(intakeSources),
  deliveryId: z.string().min(1).max(128),
  receivedAt: z.iso.datetime({ offset: true }),
};

/** What the import handles: one accepted delivery with its order. */
export const intakeMessageSchema = z.object({ ...messageFields, order: shopOrderSchema });
export type IntakeMessage = z.infer<typeof intakeMessageSchema>;

/** Where a claim-checked order is stored: the object's key, size and SHA-256 (hex) of its JSON. */
export const orderRefSchema = z
  .object({
    key: z.string().min(1).max(1024),
    bytes: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected a lower-case hex SHA-256'),
  })
  .strict();
export type OrderRef = z.infer<typeof orderRefSchema>;

/** A queued message whose order was too large for the queue: the order is in the object store. */
export const claimCheckedMessageSchema = z.object({ ...messageFields, orderRef: orderRefSchema });
export type ClaimCheckedMessage = z.infer<typeof claimCheckedMessageSchema>;

/** What travels on the queue: the order itself, a reference to it, or a Shoptet order to fetch. */
export type QueuedIntakeMessage = IntakeMessage | ClaimCheckedMessage | ShoptetNoticeMessage;

/** The key of one shop order: connection, source and the shop's order id. */
export function intakeRecordId(source: IntakeSource, shopOrderId: string): string {
  return `${source}:${shopOrderId}`;
}
