/**
 * The console's unmatched payments: the `BankTransaction.Unmatched` events among the latest kept,
 * less those a later `PaymentRecorded` settled; and a person's assignment of one to an invoice. The
 * assignment is the payment action's own input, a `BankTransaction.Received` with a `target`, so the
 * same guard records keep it to one liquidation per bank transaction (an assignment of a
 * transaction that was liquidated already liquidates nothing).
 */
import * as z from 'zod';
import {
  BANK_TRANSACTION_UNMATCHED,
  bankTransactionUnmatchedSchema,
} from '#functions/core/actions/liquidate-payments/events.js';
import { receivedEvent } from '#functions/core/bank/import-statement.js';
import { paymentTargetSchema } from '#functions/core/events/bank-events.js';
import type { BusEvent, Clock } from '#functions/core/ports.js';
import type { FeedEvent } from './console-feed.js';

/** What a person may assign: an overpayment's surplus was liquidated already (refund or credit it). */
const ASSIGNABLE = new Set(['noMatch', 'ambiguous', 'currency', 'partialAdvance']);

const recordedSchema = z.object({ bankTransactionId: z.string() });

/** A person assigns an unmatched transaction to an invoice (its Id in the service). */
export const assignBodySchema = z.strictObject({
  connection: z.string({ error: 'expected the connection' }).min(1, { error: 'expected the connection' }),
  id: z
    .string({ error: 'expected the bank transaction id' })
    .min(1, { error: 'expected the bank transaction id' }),
  target: paymentTargetSchema,
});
export type AssignBody = z.infer<typeof assignBodySchema>;

export interface UnmatchedPayment {
  connection: string;
  id: string;
  eventId: string;
  at: string;
  reason: string;
  assignable: boolean;
  amount: number;
  currency: string;
  variableSymbol: string | null;
  counterparty: string | null;
  message: string | null;
  bookingDate: string;
  candidates: { recordType: string; id: string; documentNumber: string | null; restToPay: number }[];
}

type UnmatchedDetail = z.infer<typeof bankTransactionUnmatchedSchema>;

/** The latest `Unmatched` of each transaction not settled since (an overpayment's stays), newest first. */
function openUnmatched(events: readonly FeedEvent[]): { item: FeedEvent; detail: UnmatchedDetail }[] {
  const settled = new Set<string>();
  const seen = new Set<string>();
  const out: { item: FeedEvent; detail: UnmatchedDetail }[] = [];
  // Newest first (the feed keeps them oldest first): a settlement is met before the Unmatched it settles.
  for (const item of [...events].reverse()) {
    const recorded = item.event['detail-type'].endsWith('.PaymentRecorded')
      ? recordedSchema.safeParse(item.event.detail)
      : undefined;
    if (recorded?.success) settled.add(recorded.data.bankTransactionId);
    if (item.event['detail-type'] !== BANK_TRANSACTION_UNMATCHED) continue;
    const parsed = bankTransactionUnmatchedSchema.safeParse(item.event.detail);
    if (!parsed.success) continue;
    const key = `${parsed.data.connection}\n${parsed.data.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (settled.has(parsed.data.id) && parsed.data.reason !== 'overpaid') continue;
    out.push({ item, detail: parsed.data });
  }
  return out;
}

/** Unmatched transactions still open, newest first, as the console lists them. */
export function unmatchedPayments(events: readonly FeedEvent[]): UnmatchedPayment[] {
  return openUnmatched(events).map(({ item, detail: d }) => ({
    connection: d.connection,
    id: d.id,
    eventId: item.event.id,
    at: item.event.time,
    reason: d.reason,
    assignable: ASSIGNABLE.has(d.reason),
    amount: d.amount,
    currency: d.transaction.currency,
    variableSymbol: d.transaction.variableSymbol ?? null,
    counterparty: d.transaction.counterparty?.name ?? null,
    message: d.transaction.message ?? null,
    bookingDate: d.transaction.bookingDate,
    candidates: d.candidates.map((c) => ({
      recordType: c.recordType,
      id: c.id,
      documentNumber: c.documentNumber,
      restToPay: c.restToPay,
    })),
  }));
}

/** Why an assignment cannot be made: the console answers 404 or 409 with it. */
export class PaymentAssignmentError extends Error {
  override readonly name = 'PaymentAssignmentError';
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** The `BankTransaction.Received` with the person's target, from the transaction's latest `Unmatched`. */
export function assignmentEvent(events: readonly FeedEvent[], body: AssignBody, clock: Clock): BusEvent {
  const found = openUnmatched(events).find(
    ({ detail }) => detail.connection === body.connection && detail.id === body.id,
  );
  if (!found) {
    throw new PaymentAssignmentError(
      404,
      'id: no unmatched bank transaction with this id among the latest events (settled already?)',
    );
  }
  const { item, detail: unmatched } = found;
  if (!ASSIGNABLE.has(unmatched.reason)) {
    throw new PaymentAssignmentError(
      409,
      `id: the transaction was liquidated (${unmatched.reason}); its surplus of ${unmatched.amount} ${unmatched.transaction.currency} is for a refund or a credit note`,
    );
  }
  return receivedEvent(
    { clock, eventSource: item.event.source },
    unmatched.connection,
    unmatched.transaction,
    { format: 'assignment' },
    body.target,
  );
}
