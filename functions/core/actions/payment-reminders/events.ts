/**
 * Outcome of the payment reminder action, declared beside it: `<Invoice>.PaymentReminderSent`, one
 * per reminder stage handed to the service's e-mail sending, for issued invoices and issued advance
 * invoices. It enters the catalog through the action's registry entry.
 */
import * as z from 'zod';
import { actionBase, exampleActionBase } from '#functions/core/events/action-events.js';
import type { CatalogEntry } from '#functions/core/events/catalog-entry.js';
import { type PayableRecordType, payableRecordTypes } from '#functions/core/events/payment-events.js';

export type PaymentReminderSentType = `${PayableRecordType}.PaymentReminderSent`;

export function paymentReminderSentType(recordType: PayableRecordType): PaymentReminderSentType {
  return `${recordType}.PaymentReminderSent`;
}

/** The reminder stages: the first after N days overdue, the second (last) after M. */
export const reminderStages = [1, 2] as const;
export type ReminderStage = (typeof reminderStages)[number];

export function paymentReminderSentSchema(recordType: PayableRecordType) {
  return z
    .object({
      ...actionBase(z.literal(recordType), 'PaymentReminderSent'),
      documentNumber: z
        .string()
        .nullable()
        .describe('`DocumentNumber` of the document, as the service holds it.'),
      stage: z
        .union([z.literal(1), z.literal(2)])
        .describe('1: the first reminder (ACTIONS_PAYMENT_REMINDER_FIRST_DAYS), 2: the second and last.'),
      dueDate: z.string().min(1).describe('`DueDate` of the document, as the service holds it.'),
      daysOverdue: z.number().int().positive().describe('Whole days since the due date when it was sent.'),
      restToPay: z.number().finite().describe("The service's `RestToPay` when it was sent."),
      to: z
        .array(z.string().min(1))
        .min(1)
        .describe("The recipient: the partner's address the service holds, never one an event carried."),
      subject: z.string(),
    })
    .describe(`A payment reminder for an overdue ${recordType} was handed to the service's e-mail sending.`);
}
export type PaymentReminderSentDetail = z.infer<ReturnType<typeof paymentReminderSentSchema>>;

const EXAMPLE_ID = '8f0c1a52-2b6e-4d0a-9a53-3f1d2c4b5e61';

export const paymentReminderEvents: readonly CatalogEntry<PaymentReminderSentType>[] = payableRecordTypes.map(
  (recordType): CatalogEntry<PaymentReminderSentType> => ({
    detailType: paymentReminderSentType(recordType),
    description: `A payment reminder (stage 1 or 2) for an overdue ${recordType} was sent through the service's e-mail sending, to the partner's address the service holds.`,
    schema: paymentReminderSentSchema(recordType),
    example: {
      ...exampleActionBase(
        recordType,
        EXAMPLE_ID,
        'PaymentReminderSent',
        'payment.reminder',
        recordType === 'IssuedInvoice' ? 'FV2026000123' : 'ZF2026000045',
      ),
      source: {
        recordType,
        id: EXAMPLE_ID,
        documentNumber: recordType === 'IssuedInvoice' ? 'FV2026000123' : 'ZF2026000045',
        modifiedDate: null,
      },
      documentNumber: recordType === 'IssuedInvoice' ? 'FV2026000123' : 'ZF2026000045',
      stage: 1,
      dueDate: '2026-03-14',
      daysOverdue: 7,
      restToPay: 710,
      to: ['billing@novak.example'],
      subject: `Payment reminder: invoice ${recordType === 'IssuedInvoice' ? 'FV2026000123' : 'ZF2026000045'}`,
    },
  }),
);

/** The catalog entry of a record type's `PaymentReminderSent`. */
export function paymentReminderSentEntry(
  recordType: PayableRecordType,
): CatalogEntry<PaymentReminderSentType> {
  const entry = paymentReminderEvents.find((e) => e.detailType === paymentReminderSentType(recordType));
  if (!entry) throw new Error(`no PaymentReminderSent entry for ${recordType}`);
  return entry;
}
