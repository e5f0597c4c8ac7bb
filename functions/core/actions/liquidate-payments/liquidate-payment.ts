/**
 * The payment action: one `BankTransaction.Received` → the invoice it pays is liquidated, once, or
 * the transaction is reported `BankTransaction.Unmatched` for a person.
 *
 * Liquidation carries no idempotency key at the service, so two guard records keep it to once per
 * bank transaction (the bank's id, whichever statement or download lists it):
 * - `payments.match` per transaction (and per person's assignment): a delivery of the same
 *   transaction again finds its earlier outcome instead of matching anew (after the liquidation
 *   the invoice is no longer open, and a second matching would report it unmatched);
 * - `payments.liquidate` per transaction, around the liquidation call: an assignment of a
 *   transaction that was liquidated already liquidates nothing.
 * A liquidation whose outcome is unknown (the request may have reached the service) is never
 * repeated: `Action.Failed` (`outcomeUnknown`) for a person to check.
 *
 * The call (`liquidation.ts`, shared with the shop payments): cz — `…/Liquidate/Standalone/Fully|Partially`
 * (advance invoices only `Fully`); sk — a bank receipt with the liquidation.
 */
import type { AccountingApi, Created } from '#functions/accounting/api.js';
import { OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import {
  type BankTransactionReceivedDetail,
  bankTransactionReceivedSchema,
} from '#functions/core/events/bank-events.js';
import type { Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import type { ActionEvent } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, RetryLaterError } from '../errors.js';
import { type ActionOutcome, outcomeBase, problemOf, publishFailure, publishOutcome } from '../outcomes.js';
import type { IdempotencyGuard } from '../ports.js';
import {
  advancePaymentRecordedEntry,
  bankTransactionUnmatchedEntry,
  invoicePaymentRecordedEntry,
} from './events.js';
import { type Liquidate, liquidatedBefore, liquidationCall } from './liquidation.js';
import { matchPayment, type OpenInvoice, type Settlement, settle } from './match-payment.js';
import type { OpenInvoices } from './open-invoices.js';

export const MATCH_ACTION = 'payments.match';
export const LIQUIDATE_ACTION = 'payments.liquidate';

export interface LiquidateDeps {
  api: AccountingApi;
  guard: IdempotencyGuard;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  variant: 'cz' | 'sk';
  invoices: OpenInvoices;
  config: Pick<ActionsConfig, 'eventSource' | 'connection'>;
}

type RunResult =
  | { result: 'liquidated'; invoiceId: string }
  | { result: 'unmatched'; reason: string }
  | { result: 'outcomeUnknown' }
  | { result: 'alreadyLiquidated' };

/** The mark a liquidation carries in its note: the transaction's id, to be found again. */
export function liquidationMark(bankTransactionId: string): string {
  return `[bank-tx ${bankTransactionId}]`;
}

/** The liquidation request of the transaction: the shared call with the bank's facts. */
function liquidationCallOf(deps: LiquidateDeps, detail: BankTransactionReceivedDetail, s: Liquidate) {
  const tx = detail.transaction;
  // The note holds at most 64 characters: the symbol and the mark (at most 60).
  const note = `${tx.variableSymbol ? `VS ${tx.variableSymbol} ` : ''}${liquidationMark(detail.id)}`;
  // The service takes date-times; the bank's booking day, at midnight UTC.
  return liquidationCall(deps.variant, s, {
    date: `${tx.bookingDate}T00:00:00Z`,
    note,
    text: tx.message ?? note,
    variableSymbol: tx.variableSymbol ?? null,
  });
}

interface Run {
  deps: LiquidateDeps;
  event: ActionEvent;
  detail: BankTransactionReceivedDetail;
}

function sourceOf(invoice: OpenInvoice): SourceRef {
  return {
    recordType: invoice.recordType,
    id: invoice.id,
    documentNumber: invoice.documentNumber,
    modifiedDate: null,
  };
}

async function publishUnmatched(run: Run, s: Extract<Settlement, { kind: 'unmatched' }>): Promise<void> {
  const { deps, event, detail } = run;
  const base = outcomeBase(
    {
      action: MATCH_ACTION,
      event,
      source: { recordType: 'BankTransaction', id: detail.id, documentNumber: null, modifiedDate: null },
    },
    'Unmatched',
    deps.clock,
    s.reason,
  );
  await publishOutcome(
    deps.publisher,
    event.source,
    bankTransactionUnmatchedEntry,
    {
      version: base.version,
      connection: base.connection,
      recordType: 'BankTransaction',
      id: detail.id,
      change: 'Unmatched',
      action: MATCH_ACTION,
      causationId: event.eventId,
      idempotencyKey: base.idempotencyKey,
      occurredAt: base.occurredAt,
      reason: s.reason,
      amount: s.amount,
      transaction: detail.transaction,
      candidates: s.candidates,
    },
    deps.clock.now(),
  );
  deps.logger.info('bank transaction unmatched', {
    bankTransactionId: detail.id,
    reason: s.reason,
    candidates: s.candidates.length,
  });
}

/** The guarded liquidation call and its `PaymentRecorded` (and an overpayment's `Unmatched`). */
async function liquidateOnce(run: Run, s: Liquidate): Promise<RunResult> {
  const { deps, event, detail } = run;
  if (await liquidatedBefore(deps, s.invoice, liquidationMark(detail.id))) {
    deps.logger.warn('liquidation found by its mark', {
      bankTransactionId: detail.id,
      invoiceId: s.invoice.id,
    });
    return { result: 'alreadyLiquidated' };
  }
  const call = liquidationCallOf(deps, detail, s);
  const source = sourceOf(s.invoice);
  const ctx = { action: LIQUIDATE_ACTION, event, source };
  let created: Created;
  try {
    created = await deps.api.create(call.operation, call.input);
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    deps.logger.error('liquidation outcome unknown', {
      bankTransactionId: detail.id,
      invoiceId: s.invoice.id,
    });
    await publishFailure(
      deps,
      ctx,
      problemOf(
        'outcomeUnknown',
        `the liquidation by bank transaction ${detail.transaction.transactionId} may or may not have reached the service; check the invoice`,
        error,
      ),
    );
    return { result: 'outcomeUnknown' };
  }
  const entry =
    s.invoice.recordType === 'IssuedInvoice' ? invoicePaymentRecordedEntry : advancePaymentRecordedEntry;
  await publishOutcome(
    deps.publisher,
    event.source,
    entry,
    {
      ...outcomeBase(ctx, 'PaymentRecorded', deps.clock, detail.id),
      transactionId: detail.transaction.transactionId,
      bankTransactionId: detail.id,
      amount: detail.transaction.amount,
      currency: detail.transaction.currency,
      liquidated: s.liquidated,
      overpayment: s.overpayment,
      restBefore: s.invoice.restToPay,
      kind: s.mode,
      liquidation: { operation: call.operation, id: created.data?.Id ?? null },
      assigned: detail.target !== undefined,
    },
    deps.clock.now(),
  );
  deps.logger.info('payment recorded', {
    bankTransactionId: detail.id,
    invoiceId: s.invoice.id,
    kind: s.mode,
    overpayment: s.overpayment,
  });
  if (s.overpayment > 0) {
    await publishUnmatched(run, {
      kind: 'unmatched',
      reason: 'overpaid',
      amount: s.overpayment,
      candidates: [
        {
          recordType: s.invoice.recordType,
          id: s.invoice.id,
          documentNumber: s.invoice.documentNumber,
          currency: s.invoice.currency,
          restToPay: 0,
        },
      ],
    });
  }
  return { result: 'liquidated', invoiceId: s.invoice.id };
}

/** Matching (or the person's target), then the liquidation under its own guard record. */
async function matchOnce(run: Run, options: { remainingTimeMs?: number }): Promise<RunResult> {
  const { deps, detail } = run;
  const settleOptions = { advancePartially: deps.variant === 'sk' };
  let settlement: Settlement;
  if (detail.target) {
    const invoice = await deps.invoices.one(detail.target.recordType, detail.target.id);
    settlement = invoice
      ? settle(detail.transaction, invoice, settleOptions)
      : { kind: 'unmatched', reason: 'noMatch', amount: detail.transaction.amount, candidates: [] };
  } else {
    settlement = matchPayment(detail.transaction, await deps.invoices.list(), settleOptions);
  }
  if (settlement.kind === 'unmatched') {
    await publishUnmatched(run, settlement);
    return { result: 'unmatched', reason: settlement.reason };
  }
  let ran = false;
  const result = await deps.guard.run(
    { action: LIQUIDATE_ACTION, connection: detail.connection, recordId: detail.id },
    () => {
      ran = true;
      return liquidateOnce(run, settlement);
    },
    options,
  );
  return ran && result.result !== 'alreadyLiquidated' ? result : { result: 'alreadyLiquidated' };
}

export async function liquidatePayment(
  deps: LiquidateDeps,
  event: ActionEvent,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const parsed = bankTransactionReceivedSchema.safeParse(event.detail);
  if (!parsed.success) return { status: 'skipped', reason: `not a bank transaction: ${event.detailType}` };
  const detail = parsed.data;
  const run: Run = { deps, event, detail };
  const key = detail.target ? `${detail.id}#${detail.target.id}` : detail.id;
  let ran = false;
  try {
    const result = await deps.guard.run(
      { action: MATCH_ACTION, connection: detail.connection, recordId: key },
      () => {
        ran = true;
        return matchOnce(run, options);
      },
      options,
    );
    if (!ran) return { status: 'duplicate', reason: 'transaction already handled' };
    if (result.result === 'liquidated') return { status: 'done' };
    if (result.result === 'alreadyLiquidated')
      return { status: 'duplicate', reason: 'transaction already liquidated' };
    return { status: 'failed', reason: result.result === 'unmatched' ? result.reason : 'outcomeUnknown' };
  } catch (error) {
    if (error instanceof ValidationError) {
      deps.logger.warn('liquidation rejected', { bankTransactionId: detail.id, errors: error.errors });
      await publishFailure(
        deps,
        {
          action: LIQUIDATE_ACTION,
          event,
          source: { recordType: 'BankTransaction', id: detail.id, documentNumber: null, modifiedDate: null },
        },
        problemOf('validation', 'the service rejected the liquidation', error),
      );
      return { status: 'failed', reason: 'validation' };
    }
    if (error instanceof ActionInProgressError) {
      throw new RetryLaterError('another delivery is handling this transaction', error.retryAfterMs, {
        cause: error,
      });
    }
    throw error;
  }
}
