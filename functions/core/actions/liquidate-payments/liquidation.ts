/**
 * The liquidation of one open invoice, shared by the payment actions (a bank transaction,
 * `liquidate-payments`; a shop's payment, `liquidate-shop-payment`): the service request for the
 * variant, and the read-back of a liquidation by the mark its note carries.
 *
 * The call: cz — `…/Liquidate/Standalone/Fully|Partially` (advance invoices only `Fully`); sk — a
 * bank receipt with the liquidation (`BankDocuments.createReceiptWithLiquidation`).
 */
import type { AccountingApi } from '#functions/accounting/api.js';
import type { OpenInvoice, Settlement } from './match-payment.js';
import { collectionOfPayable } from './open-invoices.js';

export type Liquidate = Extract<Settlement, { kind: 'liquidate' }>;

/** What the liquidation records of the payment. */
export interface LiquidationFacts {
  /** When the money came (ISO date-time; the service takes date-times). */
  date: string;
  /** The liquidation's note, at most 64 characters, carrying the payment's mark. */
  note: string;
  /** The sk receipt item's text (at most 255 characters are sent). */
  text: string;
  variableSymbol: string | null;
}

/** The liquidation request for the variant: operation id and input. */
export function liquidationCall(variant: 'cz' | 'sk', s: Liquidate, facts: LiquidationFacts) {
  const collection = collectionOfPayable(s.invoice.recordType);
  if (variant === 'sk') {
    return {
      operation: 'BankDocuments.createReceiptWithLiquidation',
      input: {
        body: {
          IssueDate: facts.date,
          Text: facts.note,
          Items: [
            {
              Amount: s.liquidated,
              Text: facts.text.slice(0, 255),
              VariableSymbol: facts.variableSymbol,
              DocumentId: s.invoice.id,
              Collection: collection,
            },
          ],
        },
      },
    };
  }
  const partially = s.mode === 'partially';
  return {
    operation: `${collection}.${partially ? 'liquidateStandalonePartially' : 'liquidateStandaloneFully'}`,
    input: {
      params: { DocumentId: s.invoice.id },
      body: partially
        ? { Date: facts.date, Note: facts.note, DocumentCurrencyAmount: s.liquidated }
        : { Date: facts.date, Note: facts.note },
    },
  };
}

/**
 * Whether one of the invoice's liquidations carries `mark` in its note: a run cut short after the
 * call (a crash; the guard's in-progress record then expires) finds its liquidation here instead
 * of liquidating again. The cz liquidation records carry their note; the sk bank documents cannot
 * be read back (no read operation is known), so there a fully paid invoice is no longer open and
 * a partial one is the limit (docs/payments.md).
 */
export async function liquidatedBefore(
  deps: { api: AccountingApi; variant: 'cz' | 'sk' },
  invoice: OpenInvoice,
  mark: string,
): Promise<boolean> {
  if (deps.variant !== 'cz') return false;
  const collection = collectionOfPayable(invoice.recordType);
  for (const id of invoice.liquidationIds ?? []) {
    const liquidation = (await deps.api.liquidation({ collection, id })) as { Note?: unknown };
    if (typeof liquidation.Note === 'string' && liquidation.Note.includes(mark)) return true;
  }
  return false;
}
