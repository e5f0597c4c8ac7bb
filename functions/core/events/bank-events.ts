/**
 * `BankTransaction.Received`: one credit transaction of an imported bank statement (camt.053,
 * GPC/ABO, the Fio API), or a person's assignment of one to an invoice (`target`). The payment
 * action (core/actions/liquidate-payments) matches it to the invoice it pays and liquidates it.
 * Its `id` is derived from the connection, the own account and the bank's transaction id, so the
 * same transaction in two statements (or two overlapping downloads) is one id.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { bankTransactionSchema, statementFormats } from '../bank/bank-transaction.js';
import { connectionSchema } from '../connection.js';
import { EXAMPLE_AT, EXAMPLE_CONNECTION } from './action-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from './catalog-entry.js';
import { idempotencyKey } from './envelope.js';
import { payableRecordTypes } from './payment-events.js';

export const BANK_TRANSACTION_RECEIVED = 'BankTransaction.Received';
export type BankDetailType = typeof BANK_TRANSACTION_RECEIVED;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

/** The idempotency key of a transaction's `Received` (and of a person's assignment of it to `targetId`). */
export function bankTransactionIdempotencyKey(connection: string, id: string, targetId?: string): string {
  return idempotencyKey(connection, 'BankTransaction', id, targetId ?? 'statement');
}

/**
 * The id of a bank transaction in events: a GUID derived from the connection, the own account and
 * the bank's transaction id (SHA-256), so every statement that lists the transaction names it alike.
 */
export function bankTransactionRecordId(connection: string, account: string, transactionId: string): string {
  const h = createHash('sha256').update(`${connection}\n${account}\n${transactionId}`).digest('hex');
  const variant = ((Number.parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const paymentTargetSchema = z
  .object({
    recordType: z.enum(payableRecordTypes),
    id: recordIdSchema.describe("The invoice's Id."),
  })
  .strict()
  .describe('The invoice a person assigned the transaction to (matching is skipped).');
export type PaymentTarget = z.infer<typeof paymentTargetSchema>;

export const bankTransactionReceivedSchema = z
  .object({
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('The accounting connection (company) the account belongs to.'),
    recordType: z.literal('BankTransaction'),
    id: recordIdSchema.describe('Derived from the connection, the own account and the transaction id.'),
    change: z.literal('Received'),
    modifiedDate: z.null().describe('Always null: a bank transaction does not change.'),
    idempotencyKey: hex64.describe('Equal for every delivery of this transaction (and target).'),
    occurredAt: isoDateTime,
    statement: z
      .object({
        format: z.enum([...statementFormats, 'assignment']),
        key: z.string().min(1).max(1024).optional().describe('The statement file (object key or name).'),
      })
      .describe('Where the transaction came from.'),
    transaction: bankTransactionSchema,
    target: paymentTargetSchema.optional(),
  })
  .describe('A credit transaction of a bank statement, to be matched to an invoice and liquidated once.');
export type BankTransactionReceivedDetail = z.infer<typeof bankTransactionReceivedSchema>;

export const exampleBankTransaction = {
  transactionId: '26112000001',
  account: 'CZ6508000000192000145399',
  amount: 1210,
  currency: 'CZK',
  bookingDate: '2026-03-04',
  valueDate: '2026-03-04',
  variableSymbol: '2026000042',
  counterparty: { name: 'Jana Nováková', account: '2400123456/2010' },
  message: 'Faktura 2026000042',
};
const exampleTxId = bankTransactionRecordId(
  EXAMPLE_CONNECTION,
  exampleBankTransaction.account,
  '26112000001',
);

export const bankTransactionReceivedEntry: CatalogEntry<
  BankDetailType,
  typeof bankTransactionReceivedSchema
> = {
  detailType: BANK_TRANSACTION_RECEIVED,
  description: 'A credit transaction of an imported bank statement (or a person assigned one to an invoice).',
  schema: bankTransactionReceivedSchema,
  example: {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType: 'BankTransaction',
    id: exampleTxId,
    change: 'Received',
    modifiedDate: null,
    idempotencyKey: bankTransactionIdempotencyKey(EXAMPLE_CONNECTION, exampleTxId),
    occurredAt: EXAMPLE_AT,
    statement: { format: 'camt053', key: 'bank-statements/acme/2026-03-04.xml' },
    transaction: exampleBankTransaction,
  },
};

/** The bank events actions react to. */
export const bankEvents: CatalogEntry<BankDetailType>[] = [bankTransactionReceivedEntry];
