/**
 * Catalog entries of the payment state of issued invoices and issued advance invoices:
 * `<RecordType>.Paid` (the rest to pay reached zero), `<RecordType>.PartiallyPaid` (a payment
 * arrived, something is still due) and `<RecordType>.Overdue` (the due date passed with something
 * still due; once per invoice and due date). The payment detector (`core/sync/poll-payments.ts`)
 * emits them; docs/payments.md says how.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { type CatalogEntry, ENVELOPE_VERSION } from './catalog-entry.js';
import { idempotencyKey } from './envelope.js';

export const payableRecordTypes = ['IssuedInvoice', 'IssuedAdvanceInvoice'] as const;
export type PayableRecordType = (typeof payableRecordTypes)[number];
export const paymentChanges = ['Paid', 'PartiallyPaid', 'Overdue'] as const;
export type PaymentChange = (typeof paymentChanges)[number];
export type PaymentDetailType = `${PayableRecordType}.${PaymentChange}`;

export function paymentDetailType(recordType: PayableRecordType, change: PaymentChange): PaymentDetailType {
  return `${recordType}.${change}`;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });
const amount = z.number().finite();

export const liquidationSeenSchema = z
  .object({
    id: recordIdSchema.describe('The liquidation record (`GET …/Liquidation/{id}`).'),
    date: z.string().min(1).describe('Liquidation date, as the service gives it.'),
    amount: amount.describe('Amount in the document currency.'),
  })
  .describe('One liquidation (payment) of the document, as the service lists it.');
export type LiquidationSeen = z.infer<typeof liquidationSeenSchema>;

function paymentSchema<C extends PaymentChange>(change: C) {
  return z.object({
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: z.string().min(1).describe('The accounting connection (company).'),
    recordType: z.enum(payableRecordTypes),
    id: recordIdSchema.describe("The invoice's Id."),
    change: z.literal(change),
    documentNumber: z.string().describe('The document number (`Number` of the payment status).'),
    partner: z
      .object({
        id: z.string().nullable().describe('`BusinessPartnerAddress.BusinessPartnerId`; null without one.'),
        name: z.string().nullable().describe('Company name, else the name on the document address.'),
      })
      .describe('The partner the document is issued to (no e-mail address: see docs/payments.md).'),
    currencyId: z
      .string()
      .nullable()
      .describe('`CurrencyId` of the document; null when the service sent none.'),
    total: amount.describe('Total of the document in its currency (the rest to pay before any payment).'),
    paid: amount.describe('Sum of the liquidations seen, in the document currency.'),
    restToPay: amount.describe("The service's `RestToPay` when the change was seen."),
    dueDate: z.string().nullable().describe('`DueDate` of the document, verbatim.'),
    liquidations: z.array(liquidationSeenSchema).describe('Every liquidation the service lists for it.'),
    observedAt: isoDateTime.describe("The service's clock (its `Date` header) when the change was seen."),
    idempotencyKey: hex64.describe('Equal for every delivery of this payment state change.'),
  });
}

export const paidSchema = paymentSchema('Paid')
  .extend({
    amountPaid: amount.describe('What the liquidations new since the last event paid.'),
  })
  .describe('The rest to pay of an invoice reached zero (fully paid, or overpaid).');
export const partiallyPaidSchema = paymentSchema('PartiallyPaid')
  .extend({
    amountPaid: amount.describe('What the liquidations new since the last event paid.'),
  })
  .describe('A payment arrived for an invoice and something is still due.');
export const overdueSchema = paymentSchema('Overdue')
  .extend({
    daysOverdue: z.number().int().positive().describe('Whole days since the due date, by the service clock.'),
  })
  .describe('The due date of an invoice passed with something still due (once per invoice and due date).');
export type PaidDetail = z.infer<typeof paidSchema>;
export type PartiallyPaidDetail = z.infer<typeof partiallyPaidSchema>;
export type OverdueDetail = z.infer<typeof overdueSchema>;
export type PaymentDetail = PaidDetail | PartiallyPaidDetail | OverdueDetail;

/**
 * The idempotency key of a payment change: Paid and PartiallyPaid by the set of liquidation ids
 * (a new payment is a new set), Overdue by the due date.
 */
export function paymentIdempotencyKey(
  connection: string,
  recordType: PayableRecordType,
  id: string,
  change: PaymentChange,
  liquidationIdsOrDueDate: readonly string[] | string,
): string {
  const version =
    typeof liquidationIdsOrDueDate === 'string'
      ? `due:${liquidationIdsOrDueDate}`
      : [...liquidationIdsOrDueDate]
          .map((l) => l.toLowerCase())
          .sort()
          .join(',');
  return idempotencyKey(connection, recordType, id, `${change}:${version}`);
}

const EXAMPLE_ID = '8f0c1a52-2b6e-4d0a-9a53-3f1d2c4b5e61';
const LIQ_1 = '1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
const LIQ_2 = '2e3f4051-6b7c-4d8e-9fa0-b1c2d3e4f5a6';

function example(recordType: PayableRecordType, change: PaymentChange, liquidations: LiquidationSeen[]) {
  const paid = liquidations.reduce((s, l) => s + l.amount, 0);
  return {
    version: ENVELOPE_VERSION,
    connection: 'acme',
    recordType,
    id: EXAMPLE_ID,
    change,
    documentNumber: recordType === 'IssuedInvoice' ? 'FV2026000123' : 'ZF2026000045',
    partner: { id: '5b1e7c2a-9d3f-4e6b-8a1c-2f3e4d5c6b7a', name: 'Novák s.r.o.' },
    currencyId: '3a2b1c0d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    total: 1210,
    paid,
    restToPay: Math.max(0, 1210 - paid),
    dueDate: '2026-03-14',
    liquidations,
    observedAt: '2026-03-20T09:15:02.000Z',
    idempotencyKey: paymentIdempotencyKey(
      'acme',
      recordType,
      EXAMPLE_ID,
      change,
      change === 'Overdue' ? '2026-03-14' : liquidations.map((l) => l.id),
    ),
  };
}

function entries(recordType: PayableRecordType): CatalogEntry<PaymentDetailType>[] {
  const first = { id: LIQ_1, date: '2026-03-10T00:00:00', amount: 500 };
  const second = { id: LIQ_2, date: '2026-03-20T00:00:00', amount: 710 };
  return [
    {
      detailType: paymentDetailType(recordType, 'Paid'),
      description: `${paidSchema.description} (${recordType})`,
      schema: paidSchema,
      example: { ...example(recordType, 'Paid', [first, second]), recordType, amountPaid: 710 },
    },
    {
      detailType: paymentDetailType(recordType, 'PartiallyPaid'),
      description: `${partiallyPaidSchema.description} (${recordType})`,
      schema: partiallyPaidSchema,
      example: { ...example(recordType, 'PartiallyPaid', [first]), recordType, amountPaid: 500 },
    },
    {
      detailType: paymentDetailType(recordType, 'Overdue'),
      description: `${overdueSchema.description} (${recordType})`,
      schema: overdueSchema,
      example: { ...example(recordType, 'Overdue', [first]), recordType, daysOverdue: 6 },
    },
  ];
}

export const paymentEvents: CatalogEntry<PaymentDetailType>[] = payableRecordTypes.flatMap(entries);
