/**
 * Catalog entries of the e-shop order intake: `EshopOrder.Received` (a signed order was accepted
 * for import), `EshopOrder.Imported` (a received order exists for it), `EshopOrder.Rejected`
 * (validation or mapping problems, with the reasons) and `EshopOrder.Paid` (the shop reports the
 * order paid: Shopify `orders/paid`, WooCommerce's paid status, Shoptet `order:paid`). Envelope style of the other events:
 * `{ version, connection, recordType: 'EshopOrder', id: '<source>:<shop order id>', change,
 * idempotencyKey, occurredAt }` plus the shop's `source` and `shopOrderId`.
 */
import * as z from 'zod';
import { connectionSchema } from '../connection.js';
import { actionIdempotencyKey } from './action-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from './catalog-entry.js';

/** The shop platforms the intake speaks (`/intake/<connection>/<source>`, `/intake/<source>`). */
export const intakeSources = ['shopify', 'woocommerce', 'generic', 'shoptet'] as const;

/** What can happen to a shop order: accepted for import, imported, rejected, or paid at the shop. */
export const intakeChanges = ['Received', 'Imported', 'Rejected', 'Paid'] as const;
export type IntakeChange = (typeof intakeChanges)[number];
/** The detail-types of the order intake: `EshopOrder.<change>`. */
export type IntakeDetailType = `EshopOrder.${IntakeChange}`;

export function intakeDetailType(change: IntakeChange): IntakeDetailType {
  return `EshopOrder.${change}`;
}

/**
 * The mark the import writes into a received order's `InternalNote` for the shop order with the
 * event id `eshopOrderId` (`<source>:<shop order id>`): how the order is found again, by the
 * import after a crash and by the shop payment's liquidation.
 */
export function eshopOrderMarker(eshopOrderId: string): string {
  return `[eshop-order ${eshopOrderId}]`;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

function intakeBase<C extends IntakeChange>(change: C) {
  return {
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('The accounting connection (company) the order goes to.'),
    recordType: z.literal('EshopOrder'),
    id: z.string().min(1).describe('`<source>:<shopOrderId>`: one id per shop order.'),
    change: z.literal(change),
    source: z.enum(intakeSources).describe('The shop platform the order came from.'),
    shopOrderId: z.string().min(1).describe("The shop's order id."),
    orderNumber: z.string().min(1).nullable().describe('The order number the customer sees, when known.'),
    idempotencyKey: hex64.describe('Equal for every delivery of this outcome.'),
    occurredAt: isoDateTime,
  };
}

export const eshopOrderReceivedSchema = z
  .object({
    ...intakeBase('Received'),
    deliveryId: z.string().min(1).describe("The shop's delivery (webhook) id."),
    lineCount: z.number().int().min(1),
    currency: z.string().length(3),
  })
  .describe('A signed, valid shop order webhook was accepted for import.');
export type EshopOrderReceivedDetail = z.infer<typeof eshopOrderReceivedSchema>;

export const eshopOrderImportedSchema = z
  .object({
    ...intakeBase('Imported'),
    receivedOrderId: z.string().min(1).describe('`Id` of the received order in the accounting service.'),
    documentNumber: z.string().nullable().describe('`DocumentNumber` of the received order.'),
    warnings: z.array(z.looseObject({ Code: z.string(), Message: z.string() })),
    recovered: z
      .boolean()
      .describe('`true` when an earlier attempt had created the order and this run found it.'),
    vatRounding: z
      .array(
        z.object({
          ratePercent: z.number().min(0).max(100),
          shop: z.number().describe("The shop's VAT of the rate: what the order carries."),
          computed: z.number().describe("The VAT the service's item rule gives the rate's items."),
          lines: z.number().int().min(1).describe('Lines, shipping and fees at the rate.'),
        }),
      )
      .optional()
      .describe(
        "Rates whose VAT the shop rounded per line otherwise than the service (within half a cent a line): the order carries the shop's VAT through rounding items (code `ROUNDING`).",
      ),
  })
  .describe('A received order exists for the shop order (created once, however many deliveries).');
export type EshopOrderImportedDetail = z.infer<typeof eshopOrderImportedSchema>;

export const eshopOrderPaidSchema = z
  .object({
    ...intakeBase('Paid'),
    paymentId: z
      .string()
      .min(1)
      .max(128)
      .describe(
        "The shop's id of the payment: WooCommerce's `transaction_id`; where the shop names none (Shopify's order webhook, a WooCommerce order paid by hand, Shoptet), `paid:<order id>` with the time it was paid (WooCommerce) — an order becomes paid once. The liquidation is once per (order, payment id).",
      ),
    amount: z.number().positive().describe('What the shop says was paid, in `currency`.'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code'),
    paidAt: isoDateTime.describe('When the shop took the payment (or marked the order paid).'),
    orderCreatedAt: isoDateTime.optional().describe('When the order was created at the shop.'),
    gateway: z
      .string()
      .min(1)
      .max(255)
      .nullable()
      .describe("The shop's payment method or gateway, when it says (informational)."),
    deliveryId: z.string().min(1).describe("The shop's delivery (webhook) id."),
  })
  .describe(
    'The shop reports the order paid. The `liquidate-shop-payment` action liquidates the invoice made from the order, when the connection switches it on for the shop.',
  );
export type EshopOrderPaidDetail = z.infer<typeof eshopOrderPaidSchema>;

export const rejectionStages = ['validation', 'mapping', 'service'] as const;
/** Rejections with figures: `totals` — the order's totals differ from the shop's own. */
export const rejectionReasons = ['totals'] as const;

const totalsFigures = z
  .object({
    total: z.number().describe('Total with VAT.'),
    vatByRate: z
      .array(z.object({ ratePercent: z.number().min(0).max(100), vat: z.number() }))
      .describe('VAT per rate (rates without VAT left out), highest rate first.'),
  })
  .describe('Totals of an order in its currency.');

export const eshopOrderRejectedSchema = z
  .object({
    ...intakeBase('Rejected'),
    stage: z
      .enum(rejectionStages)
      .describe('Where it failed: the shop payload, the mapping, or the service.'),
    reasons: z.array(z.string().min(1)).min(1).describe('Every problem found, field first.'),
    reason: z
      .enum(rejectionReasons)
      .optional()
      .describe(
        "`totals`: the total with VAT or the VAT of a rate differs from the shop's own, to the cent (`totals` holds the figures).",
      ),
    totals: z
      .object({
        currency: z.string().length(3),
        shop: totalsFigures.describe("The shop's own totals."),
        ours: totalsFigures.describe('The mapped order as the service prices it.'),
        service: totalsFigures
          .optional()
          .describe('The totals the service computed for the order it created (stage `service`).'),
      })
      .optional()
      .describe('With reason `totals`: the figures compared.'),
    receivedOrderId: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Stage `service` with reason `totals` only: the received order the service created with other totals than the shop's; it needs a correction by hand.",
      ),
  })
  .describe(
    'A signed shop order could not be imported as the shop sent it: nothing was created, except when the service computed other totals for the order it created (reason `totals`, stage `service`, `receivedOrderId`).',
  );
export type EshopOrderRejectedDetail = z.infer<typeof eshopOrderRejectedSchema>;

const base = (change: IntakeChange) => ({
  version: ENVELOPE_VERSION,
  connection: 'acme',
  recordType: 'EshopOrder' as const,
  id: 'shopify:820982911946154508',
  change,
  source: 'shopify' as const,
  shopOrderId: '820982911946154508',
  orderNumber: '#1001',
  idempotencyKey: actionIdempotencyKey('acme', 'intake', 'shopify:820982911946154508', change),
  occurredAt: '2026-03-04T16:41:00.000Z',
});

export const intakeEvents: CatalogEntry<IntakeDetailType>[] = [
  {
    detailType: intakeDetailType('Received'),
    description: eshopOrderReceivedSchema.description ?? '',
    schema: eshopOrderReceivedSchema,
    example: {
      ...base('Received'),
      deliveryId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      lineCount: 2,
      currency: 'EUR',
    },
  },
  {
    detailType: intakeDetailType('Imported'),
    description: eshopOrderImportedSchema.description ?? '',
    schema: eshopOrderImportedSchema,
    example: {
      ...base('Imported'),
      receivedOrderId: '5a1c2e9e-1f7b-4a8e-9d1c-0b6f2f0b1a01',
      documentNumber: 'OP2026000042',
      warnings: [],
      recovered: false,
    },
  },
  {
    detailType: intakeDetailType('Rejected'),
    description: eshopOrderRejectedSchema.description ?? '',
    schema: eshopOrderRejectedSchema,
    example: {
      ...base('Rejected'),
      stage: 'mapping',
      reasons: ["total: the shop's 131.88, ours 137.55", "vat 23 %: the shop's 18.10, ours 19.16"],
      reason: 'totals',
      totals: {
        currency: 'EUR',
        shop: {
          total: 131.88,
          vatByRate: [
            { ratePercent: 23, vat: 18.1 },
            { ratePercent: 5, vat: 1.67 },
          ],
        },
        ours: {
          total: 137.55,
          vatByRate: [
            { ratePercent: 23, vat: 19.16 },
            { ratePercent: 5, vat: 1.67 },
          ],
        },
      },
    },
  },
  {
    detailType: intakeDetailType('Paid'),
    description: eshopOrderPaidSchema.description ?? '',
    schema: eshopOrderPaidSchema,
    example: {
      ...base('Paid'),
      idempotencyKey: actionIdempotencyKey(
        'acme',
        'intake',
        'shopify:820982911946154508',
        'Paid',
        'paid:820982911946154508',
      ),
      paymentId: 'paid:820982911946154508',
      amount: 131.88,
      currency: 'EUR',
      paidAt: '2026-03-04T16:45:12.000Z',
      orderCreatedAt: '2026-03-04T16:40:02.000Z',
      gateway: 'shopify_payments',
      deliveryId: 'c0d7e2a4-5b61-4f0e-9a3f-7d2b8e1c9f10',
    },
  },
];

/** The catalog entry of an intake change. */
export function intakeEntry(change: IntakeChange): CatalogEntry<IntakeDetailType> {
  const entry = intakeEvents.find((e) => e.detailType === intakeDetailType(change));
  if (!entry) throw new Error(`no intake entry for ${change}`);
  return entry;
}
