/**
 * Which invoice a bank transaction pays, or why none can be told. Pure: the open invoices (the
 * service's `Unpaid` lists with each invoice's variable symbol and currency) come in.
 *
 * The variable symbol and the currency must match exactly one open invoice or advance invoice;
 * then the amount against its `RestToPay`: equal → liquidate fully, less → partially, more →
 * fully, and the surplus is reported. No symbol, no invoice, several invoices, another currency:
 * unmatched, with the reason and the candidates. Nothing is guessed (no matching by amount or
 * name). Money is compared in whole cents.
 */
import type { BankTransaction } from '#functions/core/bank/bank-transaction.js';
import type { PayableRecordType } from '#functions/core/events/payment-events.js';
import type { PaymentCandidate, UnmatchedReason } from './events.js';

export interface OpenInvoice {
  recordType: PayableRecordType;
  id: string;
  documentNumber: string | null;
  /** Digits without leading zeros, as the bank transaction's. */
  variableSymbol: string | undefined;
  currency: string;
  restToPay: number;
  /** Ids of the liquidations the service lists for it (read back before liquidating again). */
  liquidationIds?: readonly string[];
}

export type Settlement =
  | {
      kind: 'liquidate';
      invoice: OpenInvoice;
      mode: 'fully' | 'partially';
      /** What is liquidated: the amount, at most the rest to pay. */
      liquidated: number;
      overpayment: number;
    }
  | { kind: 'unmatched'; reason: UnmatchedReason; amount: number; candidates: PaymentCandidate[] };

const cents = (value: number): number => Math.round(value * 100);

export function candidateOf(invoice: OpenInvoice): PaymentCandidate {
  return {
    recordType: invoice.recordType,
    id: invoice.id,
    documentNumber: invoice.documentNumber,
    currency: invoice.currency,
    restToPay: invoice.restToPay,
  };
}

export interface SettleOptions {
  /** The service liquidates advance invoices partially (the Slovak bank receipt); else only fully. */
  advancePartially: boolean;
}

/** A payment's money: a bank transaction's, or a shop's payment. */
export type PaymentAmount = Pick<BankTransaction, 'amount' | 'currency'>;

/** The payment against one invoice (matched, assigned by a person, or the shop order's invoice). */
export function settle(tx: PaymentAmount, invoice: OpenInvoice, options: SettleOptions): Settlement {
  const amount = cents(tx.amount);
  const rest = cents(invoice.restToPay);
  const unmatched = (reason: UnmatchedReason, left: number): Settlement => ({
    kind: 'unmatched',
    reason,
    amount: left / 100,
    candidates: [candidateOf(invoice)],
  });
  if (invoice.currency !== tx.currency) return unmatched('currency', amount);
  if (rest <= 0) return unmatched('overpaid', amount);
  if (amount < rest) {
    if (invoice.recordType === 'IssuedAdvanceInvoice' && !options.advancePartially)
      return unmatched('partialAdvance', amount);
    return { kind: 'liquidate', invoice, mode: 'partially', liquidated: amount / 100, overpayment: 0 };
  }
  return {
    kind: 'liquidate',
    invoice,
    mode: 'fully',
    liquidated: rest / 100,
    overpayment: (amount - rest) / 100,
  };
}

/** The transaction against the open invoices: one match by symbol and currency, or unmatched. */
export function matchPayment(
  tx: BankTransaction,
  open: readonly OpenInvoice[],
  options: SettleOptions,
): Settlement {
  const none = (reason: UnmatchedReason, candidates: OpenInvoice[]): Settlement => ({
    kind: 'unmatched',
    reason,
    amount: tx.amount,
    candidates: candidates.map(candidateOf),
  });
  if (!tx.variableSymbol) return none('noMatch', []);
  const bySymbol = open.filter((i) => i.variableSymbol === tx.variableSymbol);
  if (bySymbol.length === 0) return none('noMatch', []);
  const inCurrency = bySymbol.filter((i) => i.currency === tx.currency);
  if (inCurrency.length === 0) return none('currency', bySymbol);
  if (inCurrency.length > 1) return none('ambiguous', inCurrency);
  return settle(tx, inCurrency[0] as OpenInvoice, options);
}
