/**
 * The shop payment action: one `EshopOrder.Paid` → the issued invoice made from that shop order is
 * liquidated by the payment, once per (shop order, payment id), or the payment is reported
 * `EshopOrder.PaymentUnmatched` for a person. Only for the shops the connection switches on
 * (`ACTIONS_SHOP_PAYMENTS`): a gateway's payout in a bank statement must not pay the invoice again.
 *
 * - The chain (`order-invoice.ts`): shop order → received order → issued invoice. A payment that
 *   comes before the invoice (the import and the transfer are actions of their own) is delivered
 *   again later (`RetryLaterError`) until `ACTIONS_SHOP_PAYMENT_WAIT_MINUTES` after it was paid;
 *   then it is unmatched (`noOrder`, `noInvoice`).
 * - The amount against `RestToPay`, in whole cents (`settle`, as a bank payment): equal → fully,
 *   less → partially, more → fully and the surplus reported (`overpaid`); another currency, or an
 *   invoice paid already → unmatched.
 * - The call is the bank action's (`liquidate-payments/liquidation.ts`): cz — the standalone
 *   liquidation; sk — a bank receipt with the liquidation. Its note carries the payment's mark, so
 *   a run cut short after the call (cz) finds it instead of liquidating again.
 * - Once: one guard record per payment. An outcome unknown is `Action.Failed` (`outcomeUnknown`),
 *   never repeated.
 */
import type { AccountingApi, Created } from '#functions/accounting/api.js';
import { OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import { actionIdempotencyKey } from '#functions/core/events/action-events.js';
import { ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { type EshopOrderPaidDetail, eshopOrderPaidSchema } from '#functions/core/events/intake-events.js';
import type { Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import type { ActionEvent } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, RetryLaterError } from '../errors.js';
import { type Liquidate, liquidatedBefore, liquidationCall } from '../liquidate-payments/liquidation.js';
import { candidateOf, type OpenInvoice, settle } from '../liquidate-payments/match-payment.js';
import type { OpenInvoices } from '../liquidate-payments/open-invoices.js';
import { type ActionOutcome, outcomeBase, problemOf, publishFailure, publishOutcome } from '../outcomes.js';
import type { IdempotencyGuard } from '../ports.js';
import {
  type ShopPaymentUnmatchedReason,
  shopPaymentRecordedEntry,
  shopPaymentUnmatchedEntry,
} from './events.js';
import { findOrderInvoice } from './order-invoice.js';
import { shopPaymentMark } from './shop-payment-mark.js';

export const SHOP_PAYMENT_ACTION = 'shop-payments.liquidate';

export interface ShopPaymentDeps {
  api: AccountingApi;
  guard: IdempotencyGuard;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  variant: 'cz' | 'sk';
  invoices: OpenInvoices;
  config: Pick<ActionsConfig, 'eventSource' | 'connection' | 'referenceLookbackSeconds' | 'shopPayments'>;
}

type RunResult =
  | { result: 'liquidated'; invoiceId: string }
  | { result: 'unmatched'; reason: ShopPaymentUnmatchedReason }
  | { result: 'outcomeUnknown' }
  | { result: 'rejected' }
  | { result: 'alreadyLiquidated' };

interface Run {
  deps: ShopPaymentDeps;
  event: ActionEvent;
  detail: EshopOrderPaidDetail;
}

/** How long before the order (else the payment) the received order and invoice may have changed last. */
function searchSince(run: Run): string {
  const { detail, deps } = run;
  const times = [detail.orderCreatedAt, detail.paidAt].map((d) => (d ? Date.parse(d) : Number.NaN));
  const earliest = Math.min(...times.filter((t) => Number.isFinite(t)));
  return new Date(Math.max(0, earliest - deps.config.referenceLookbackSeconds * 1000)).toISOString();
}

async function publishUnmatched(
  run: Run,
  reason: ShopPaymentUnmatchedReason,
  left: number,
  found: { receivedOrderId: string | null; candidates: OpenInvoice[] },
): Promise<RunResult> {
  const { deps, event, detail } = run;
  await publishOutcome(
    deps.publisher,
    event.source,
    shopPaymentUnmatchedEntry,
    {
      version: ENVELOPE_VERSION,
      connection: detail.connection,
      recordType: 'EshopOrder',
      id: detail.id,
      change: 'PaymentUnmatched',
      action: SHOP_PAYMENT_ACTION,
      causationId: event.eventId,
      idempotencyKey: actionIdempotencyKey(
        detail.connection,
        SHOP_PAYMENT_ACTION,
        detail.id,
        'PaymentUnmatched',
        detail.paymentId,
        reason,
      ),
      occurredAt: deps.clock.now().toISOString(),
      shop: detail.source,
      shopOrderId: detail.shopOrderId,
      paymentId: detail.paymentId,
      amount: detail.amount,
      currency: detail.currency,
      reason,
      left,
      receivedOrderId: found.receivedOrderId,
      candidates: found.candidates.map((c) => ({ ...candidateOf(c), recordType: 'IssuedInvoice' as const })),
    },
    deps.clock.now(),
  );
  deps.logger.info('shop payment unmatched', { eshopOrderId: detail.id, reason });
  return { result: 'unmatched', reason };
}

function sourceOf(invoice: OpenInvoice): SourceRef {
  return {
    recordType: invoice.recordType,
    id: invoice.id,
    documentNumber: invoice.documentNumber,
    modifiedDate: null,
  };
}

/** The guarded liquidation call, its `ShopPaymentRecorded` (and an overpayment's `PaymentUnmatched`). */
async function liquidate(run: Run, s: Liquidate, receivedOrderId: string): Promise<RunResult> {
  const { deps, event, detail } = run;
  const mark = shopPaymentMark(detail.id, detail.paymentId);
  if (await liquidatedBefore(deps, s.invoice, mark)) {
    deps.logger.warn('liquidation found by its mark', { eshopOrderId: detail.id, invoiceId: s.invoice.id });
    return { result: 'alreadyLiquidated' };
  }
  const note = `${`${detail.source} ${detail.orderNumber ?? detail.shopOrderId}`.slice(0, 36)} ${mark}`;
  const call = liquidationCall(deps.variant, s, {
    date: detail.paidAt,
    note,
    text: `${note} ${detail.gateway ?? ''}`.trim(),
    variableSymbol: s.invoice.variableSymbol ?? null,
  });
  const ctx = { action: SHOP_PAYMENT_ACTION, event, source: sourceOf(s.invoice) };
  let created: Created;
  try {
    created = await deps.api.create(call.operation, call.input);
  } catch (error) {
    if (error instanceof ValidationError) {
      // Refused as it is: not worth a retry; a person looks at the invoice.
      deps.logger.warn('liquidation rejected', { eshopOrderId: detail.id, errors: error.errors });
      await publishFailure(deps, ctx, problemOf('validation', 'the service rejected the liquidation', error));
      return { result: 'rejected' };
    }
    if (!(error instanceof OutcomeUnknownError)) throw error;
    deps.logger.error('liquidation outcome unknown', { eshopOrderId: detail.id, invoiceId: s.invoice.id });
    await publishFailure(
      deps,
      ctx,
      problemOf(
        'outcomeUnknown',
        `the liquidation by the shop's payment of order ${detail.shopOrderId} may or may not have reached the service; check the invoice`,
        error,
      ),
    );
    return { result: 'outcomeUnknown' };
  }
  await publishOutcome(
    deps.publisher,
    event.source,
    shopPaymentRecordedEntry,
    {
      ...outcomeBase(ctx, 'ShopPaymentRecorded', deps.clock, detail.id, detail.paymentId),
      recordType: 'IssuedInvoice',
      shop: detail.source,
      shopOrderId: detail.shopOrderId,
      paymentId: detail.paymentId,
      amount: detail.amount,
      currency: detail.currency,
      receivedOrderId,
      liquidated: s.liquidated,
      overpayment: s.overpayment,
      restBefore: s.invoice.restToPay,
      kind: s.mode,
      liquidation: { operation: call.operation, id: created.data?.Id ?? null },
    },
    deps.clock.now(),
  );
  deps.logger.info('shop payment recorded', {
    eshopOrderId: detail.id,
    invoiceId: s.invoice.id,
    kind: s.mode,
  });
  if (s.overpayment > 0) {
    await publishUnmatched(run, 'overpaid', s.overpayment, {
      receivedOrderId,
      candidates: [{ ...s.invoice, restToPay: 0 }],
    });
  }
  return { result: 'liquidated', invoiceId: s.invoice.id };
}

/** Past the wait: unmatched; before it, delivered again later (the import or the transfer may be under way). */
async function notYet(
  run: Run,
  reason: 'noOrder' | 'noInvoice',
  receivedOrderId: string | null,
): Promise<RunResult> {
  const { deps, detail } = run;
  const waitMs = deps.config.shopPayments.waitMinutes * 60_000;
  if (deps.clock.now().getTime() - Date.parse(detail.paidAt) < waitMs) {
    deps.logger.info('shop payment waits for its invoice', { eshopOrderId: detail.id, reason });
    throw new RetryLaterError(
      reason === 'noOrder' ? 'no received order of the shop order yet' : 'no invoice made from the order yet',
      // A tenth of the wait: the route's 12 receives outlast it (locally; SQS waits its visibility timeout).
      Math.max(60_000, waitMs / 10),
    );
  }
  return publishUnmatched(run, reason, detail.amount, { receivedOrderId, candidates: [] });
}

/** The chain, the settlement against the invoice's rest, then the liquidation. */
async function settleOnce(run: Run): Promise<RunResult> {
  const { deps, detail } = run;
  const chain = await findOrderInvoice(deps.api, detail.id, searchSince(run));
  if (chain.found === 'none') return notYet(run, 'noOrder', null);
  if (chain.found === 'order') return notYet(run, 'noInvoice', chain.receivedOrderId);
  const found = { receivedOrderId: chain.receivedOrderId, candidates: [] as OpenInvoice[] };
  const invoices = await Promise.all(chain.invoiceIds.map((id) => deps.invoices.one('IssuedInvoice', id)));
  found.candidates = invoices.filter((i): i is OpenInvoice => i !== undefined);
  if (found.candidates.length > 1) return publishUnmatched(run, 'ambiguous', detail.amount, found);
  const invoice = found.candidates[0];
  if (!invoice) return notYet(run, 'noInvoice', chain.receivedOrderId);
  const s = settle({ amount: detail.amount, currency: detail.currency }, invoice, {
    advancePartially: false,
  });
  if (s.kind === 'unmatched') {
    return publishUnmatched(run, s.reason === 'currency' ? 'currency' : 'overpaid', detail.amount, found);
  }
  return liquidate(run, s, chain.receivedOrderId);
}

function outcomeOf(ran: boolean, result: RunResult): ActionOutcome {
  if (!ran) return { status: 'duplicate', reason: 'payment already handled' };
  if (result.result === 'liquidated') return { status: 'done' };
  if (result.result === 'alreadyLiquidated')
    return { status: 'duplicate', reason: 'payment already liquidated' };
  if (result.result === 'rejected') return { status: 'failed', reason: 'validation' };
  return { status: 'failed', reason: result.result === 'unmatched' ? result.reason : 'outcomeUnknown' };
}

export async function liquidateShopPayment(
  deps: ShopPaymentDeps,
  event: ActionEvent,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const parsed = eshopOrderPaidSchema.safeParse(event.detail);
  if (!parsed.success) return { status: 'skipped', reason: `not a shop payment: ${event.detailType}` };
  const detail = parsed.data;
  if (!deps.config.shopPayments.sources.includes(detail.source)) {
    return { status: 'skipped', reason: `payments of ${detail.source} do not liquidate for this connection` };
  }
  const run: Run = { deps, event, detail };
  let ran = false;
  try {
    const result = await deps.guard.run(
      {
        action: SHOP_PAYMENT_ACTION,
        connection: detail.connection,
        recordId: `${detail.id}#${detail.paymentId}`,
      },
      () => {
        ran = true;
        return settleOnce(run);
      },
      options,
    );
    return outcomeOf(ran, result);
  } catch (error) {
    if (error instanceof ActionInProgressError) {
      throw new RetryLaterError('another delivery is handling this payment', error.retryAfterMs, {
        cause: error,
      });
    }
    throw error;
  }
}
