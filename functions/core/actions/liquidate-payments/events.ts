/**
 * The outcomes of the payment action (triggered by `BankTransaction.Received`, core/events/bank-events.ts):
 * - `IssuedInvoice.PaymentRecorded` / `IssuedAdvanceInvoice.PaymentRecorded`: the action
 *   liquidated the invoice by the transaction;
 * - `BankTransaction.Unmatched`: the transaction pays no one invoice the action can tell, so a
 *   person decides (the reason and the candidates say why); nothing is guessed.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { bankTransactionSchema } from '#functions/core/bank/bank-transaction.js';
import { connectionSchema } from '#functions/core/connection.js';
import {
  actionBase,
  actionIdempotencyKey,
  EXAMPLE_AT,
  EXAMPLE_CONNECTION,
  exampleActionBase,
  exampleIds,
} from '#functions/core/events/action-events.js';
import { bankTransactionRecordId, exampleBankTransaction } from '#functions/core/events/bank-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { payableRecordTypes } from '#functions/core/events/payment-events.js';

export const BANK_TRANSACTION_UNMATCHED = 'BankTransaction.Unmatched';
export const INVOICE_PAYMENT_RECORDED = 'IssuedInvoice.PaymentRecorded';
export const ADVANCE_PAYMENT_RECORDED = 'IssuedAdvanceInvoice.PaymentRecorded';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

export const unmatchedReasons = ['noMatch', 'ambiguous', 'currency', 'overpaid', 'partialAdvance'] as const;
export type UnmatchedReason = (typeof unmatchedReasons)[number];

const candidateSchema = z.object({
  recordType: z.enum(payableRecordTypes),
  id: recordIdSchema,
  documentNumber: z.string().nullable(),
  currency: z.string().describe('ISO code of the invoice currency.'),
  restToPay: z.number().describe("The service's `RestToPay` when the transaction was matched."),
});
export type PaymentCandidate = z.infer<typeof candidateSchema>;

export const bankTransactionUnmatchedSchema = z
  .object({
    version: z.literal(ENVELOPE_VERSION),
    connection: connectionSchema,
    recordType: z.literal('BankTransaction'),
    id: recordIdSchema,
    change: z.literal('Unmatched'),
    action: z.string().min(1),
    causationId: z.string().min(1).describe('Id of the `BankTransaction.Received` event.'),
    idempotencyKey: hex64,
    occurredAt: isoDateTime,
    reason: z
      .enum(unmatchedReasons)
      .describe(
        '`noMatch`: no open invoice has the variable symbol (or the payment has none); `ambiguous`: several do; `currency`: the invoices with the symbol are in another currency; `overpaid`: the payment exceeds what was left to pay (the invoice was liquidated; `amount` is the surplus) or the invoice was paid already; `partialAdvance`: less than the rest of an advance invoice, which is liquidated only fully.',
      ),
    amount: z.number().positive().describe('The amount left for a person (the surplus when overpaid).'),
    transaction: bankTransactionSchema,
    candidates: z.array(candidateSchema).describe('The open invoices the symbol pointed to, if any.'),
  })
  .describe('A bank transaction no one invoice could be told for: a person assigns it (the console).');
export type BankTransactionUnmatchedDetail = z.infer<typeof bankTransactionUnmatchedSchema>;

function paymentRecordedSchema<R extends (typeof payableRecordTypes)[number]>(recordType: R) {
  return z
    .object({
      ...actionBase(z.literal(recordType), 'PaymentRecorded'),
      transactionId: z.string().min(1).describe("The bank's id of the transaction."),
      bankTransactionId: recordIdSchema.describe('The `id` of the `BankTransaction.Received` event.'),
      amount: z.number().positive().describe('The amount of the transaction.'),
      currency: z.string().length(3),
      liquidated: z.number().positive().describe('The amount liquidated (at most the rest to pay).'),
      overpayment: z.number().min(0).describe('What the transaction paid beyond the rest to pay.'),
      restBefore: z.number().describe("The service's `RestToPay` before the liquidation."),
      kind: z.enum(['fully', 'partially']),
      liquidation: z
        .object({
          operation: z.string().min(1).describe('The service operation that liquidated the invoice.'),
          id: z.string().nullable().describe('The liquidation or bank document the service created.'),
        })
        .describe('What the service created.'),
      assigned: z.boolean().describe('`true` when a person assigned the transaction to the invoice.'),
    })
    .describe('The invoice was liquidated by a bank transaction (once per transaction).');
}
export const invoicePaymentRecordedSchema = paymentRecordedSchema('IssuedInvoice');
export const advancePaymentRecordedSchema = paymentRecordedSchema('IssuedAdvanceInvoice');
export type PaymentRecordedDetail = z.infer<typeof invoicePaymentRecordedSchema>;

const exampleTransaction = exampleBankTransaction;
const exampleTxId = bankTransactionRecordId(EXAMPLE_CONNECTION, exampleTransaction.account, '26112000001');

export const bankTransactionUnmatchedEntry: CatalogEntry<
  typeof BANK_TRANSACTION_UNMATCHED,
  typeof bankTransactionUnmatchedSchema
> = {
  detailType: BANK_TRANSACTION_UNMATCHED,
  description: 'A bank transaction that pays no one invoice the matching can tell: a person assigns it.',
  schema: bankTransactionUnmatchedSchema,
  example: {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType: 'BankTransaction',
    id: exampleTxId,
    change: 'Unmatched',
    action: 'payments.match',
    causationId: exampleIds.event,
    idempotencyKey: actionIdempotencyKey(EXAMPLE_CONNECTION, 'payments.match', exampleTxId, 'Unmatched'),
    occurredAt: EXAMPLE_AT,
    reason: 'ambiguous',
    amount: 1210,
    transaction: exampleTransaction,
    candidates: [
      {
        recordType: 'IssuedInvoice',
        id: exampleIds.invoice,
        documentNumber: 'FV2026000042',
        currency: 'CZK',
        restToPay: 1210,
      },
      {
        recordType: 'IssuedAdvanceInvoice',
        id: exampleIds.order,
        documentNumber: 'ZF2026000042',
        currency: 'CZK',
        restToPay: 1210,
      },
    ],
  },
};

function paymentRecordedExample<R extends 'IssuedInvoice' | 'IssuedAdvanceInvoice'>(recordType: R) {
  return {
    ...exampleActionBase(
      recordType,
      exampleIds.invoice,
      'PaymentRecorded',
      'payments.liquidate',
      'FV2026000042',
    ),
    transactionId: '26112000001',
    bankTransactionId: exampleTxId,
    amount: 1210,
    currency: 'CZK',
    liquidated: 1210,
    overpayment: 0,
    restBefore: 1210,
    kind: 'fully' as const,
    liquidation: {
      operation: `${recordType === 'IssuedInvoice' ? 'IssuedInvoices' : 'IssuedAdvanceInvoices'}.liquidateStandaloneFully`,
      id: exampleIds.slip,
    },
    assigned: false,
    recordType,
    change: 'PaymentRecorded' as const,
  };
}

export const invoicePaymentRecordedEntry: CatalogEntry<
  typeof INVOICE_PAYMENT_RECORDED,
  typeof invoicePaymentRecordedSchema
> = {
  detailType: INVOICE_PAYMENT_RECORDED,
  description: 'An issued invoice was liquidated by a bank transaction.',
  schema: invoicePaymentRecordedSchema,
  example: paymentRecordedExample('IssuedInvoice'),
};

export const advancePaymentRecordedEntry: CatalogEntry<
  typeof ADVANCE_PAYMENT_RECORDED,
  typeof advancePaymentRecordedSchema
> = {
  detailType: ADVANCE_PAYMENT_RECORDED,
  description: 'An issued advance invoice was liquidated by a bank transaction.',
  schema: advancePaymentRecordedSchema,
  example: paymentRecordedExample('IssuedAdvanceInvoice'),
};
