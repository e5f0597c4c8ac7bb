/**
 * One check of one payable collection by the payment detector (`poll-payments.ts`): its state and
 * what it publishes — the payment events, built from the invoice fields kept for each unpaid invoice
 * and the service's payment status — and the lookup of an invoice that left the unpaid list.
 */

import type { ApiRecord } from '#functions/accounting/api.js';
import { connectionEventSource } from '../connection.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import {
  type LiquidationSeen,
  type PayableRecordType,
  type PaymentChange,
  paymentDetailType,
  paymentIdempotencyKey,
} from '../events/payment-events.js';
import type { BusEvent } from '../ports.js';
import type { OpenInvoice, PaymentCheckpoint } from './payment-state.js';
import type { PollOptions } from './poll-options.js';
import type { CollectionResult, SyncDeps } from './sync-types.js';
import { type PaymentStatus, restToPay } from './unpaid-list.js';

export const payableCollections = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;
export type PayableCollection = (typeof payableCollections)[number];

export const recordTypeOf: Record<PayableCollection, PayableRecordType> = {
  IssuedInvoices: 'IssuedInvoice',
  IssuedAdvanceInvoices: 'IssuedAdvanceInvoice',
};

export function isPayableCollection(name: string): name is PayableCollection {
  return (payableCollections as readonly string[]).includes(name);
}

const DAY_MS = 86_400_000;
/** Due dates are calendar days of the service's country. */
const SERVICE_TIME_ZONE = 'Europe/Prague';
const dayFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: SERVICE_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Whole days from `dueDate` (a date or date-time; its day counts) to the service day of `nowMs`. */
export function daysPastDue(dueDate: string, nowMs: number): number {
  const due = Date.parse(`${dueDate.slice(0, 10)}T00:00:00Z`);
  const today = Date.parse(`${dayFormat.format(new Date(nowMs))}T00:00:00Z`);
  if (Number.isNaN(due)) return 0;
  return Math.round((today - due) / DAY_MS);
}

const money = (n: number) => Math.round(n * 100) / 100;

export interface Run {
  deps: SyncDeps;
  options: PollOptions;
  collection: PayableCollection;
  recordType: PayableRecordType;
  state: PaymentCheckpoint;
  version: number | undefined;
  key: string;
  result: CollectionResult;
  /** The service's clock of this check (its `Date` header), epoch ms. */
  serverMs: number;
  /** Invoices whose payment state this check read from the service (the Unpaid list or a lookup). */
  fresh: Set<string>;
}

export function invoiceFields(record: ApiRecord): Omit<OpenInvoice, 'r' | 'l' | 'o'> {
  const address = (record.BusinessPartnerAddress ?? {}) as Record<string, unknown>;
  const recap = (record.DocumentRecapitulation ?? {}) as Record<string, unknown>;
  const foreign = recap.ForeignCurrencyTotalPrice;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    n: String(record.DocumentNumber ?? ''),
    p: text(address.BusinessPartnerId),
    pn: text(address.CompanyName) ?? text(address.Name),
    c: text(record.CurrencyId),
    t: Number(typeof foreign === 'number' ? foreign : (recap.TotalPrice ?? 0)),
    d: text(record.DueDate),
  };
}

function liquidationsOf(status: PaymentStatus): LiquidationSeen[] {
  return (status.LiquidationInfos ?? []).map((l) => ({
    id: l.Id,
    date: l.Date ?? '',
    amount: l.DocumentCurrencyAmount,
  }));
}

function buildEvent(
  run: Run,
  id: string,
  change: PaymentChange,
  open: OpenInvoice,
  status: { rest: number; liquidations: LiquidationSeen[] },
  extra: { amountPaid: number } | { daysOverdue: number },
): BusEvent {
  const { options, recordType } = run;
  const paid = money(status.liquidations.reduce((s, l) => s + l.amount, 0));
  const observedAt = new Date(run.serverMs).toISOString();
  return {
    source: connectionEventSource({ name: options.connection, source: options.source }),
    detailType: paymentDetailType(recordType, change),
    time: new Date(run.serverMs),
    detail: {
      version: ENVELOPE_VERSION,
      connection: options.connection,
      recordType,
      id,
      change,
      documentNumber: open.n,
      partner: { id: open.p, name: open.pn },
      currencyId: open.c,
      total: open.t,
      paid,
      restToPay: status.rest,
      dueDate: open.d,
      liquidations: status.liquidations,
      observedAt,
      idempotencyKey: paymentIdempotencyKey(
        options.connection,
        recordType,
        id,
        change,
        change === 'Overdue' ? (open.d ?? '') : status.liquidations.map((l) => l.id),
      ),
      ...extra,
    },
  };
}

/** The liquidations of a status as the state keeps them. */
export function liquidationTuples(status: PaymentStatus): OpenInvoice['l'] {
  return liquidationsOf(status).map((l) => [l.id, l.date, l.amount]);
}

/** The Paid / PartiallyPaid event of a status, when it lists liquidations not reported yet. */
export function paymentEvent(
  run: Run,
  id: string,
  open: OpenInvoice,
  known: OpenInvoice['l'],
  status: PaymentStatus,
): BusEvent | undefined {
  const liquidations = liquidationsOf(status);
  const fresh = liquidations.filter((l) => !known.some(([id]) => id === l.id));
  const rest = status.RestToPay;
  if (rest > 0 && fresh.length === 0) return undefined;
  const amountPaid = money(fresh.reduce((s, l) => s + l.amount, 0));
  return buildEvent(
    run,
    id,
    rest > 0 ? 'PartiallyPaid' : 'Paid',
    open,
    { rest, liquidations },
    { amountPaid },
  );
}

export async function save(run: Run): Promise<void> {
  run.version = await run.deps.checkpoints.put(run.key, run.state, run.version);
}

export async function publish(run: Run, events: BusEvent[]): Promise<void> {
  if (events.length === 0) return;
  await run.deps.publisher.publish(events);
  for (const e of events) {
    run.result.published++;
    run.result.events[e.detailType] = (run.result.events[e.detailType] ?? 0) + 1;
  }
}

/**
 * An invoice not listed unpaid that we know as unpaid (or, `unseen`, new since the last window):
 * Paid, deleted, or still open.
 */
export async function resolveLeaver(
  run: Run,
  id: string,
  open: OpenInvoice,
  baseline: boolean,
  unseen = false,
): Promise<BusEvent[]> {
  run.result.requests++;
  const status = await restToPay(run.deps.api, run.collection, id, run.deps.signal);
  run.fresh.add(id);
  if (!status) {
    delete run.state.open[id];
    run.deps.logger.info('unpaid invoice deleted', { collection: run.collection, id });
    return [];
  }
  // A document new to us with nothing paid on it (a zero total) is no payment.
  const paidNothing = unseen && (status.LiquidationInfos ?? []).length === 0;
  const event = baseline || paidNothing ? undefined : paymentEvent(run, id, open, open.l, status);
  if (status.RestToPay > 0) {
    run.state.open[id] = {
      ...open,
      r: status.RestToPay,
      l: liquidationTuples(status),
    };
  } else {
    delete run.state.open[id];
  }
  return event ? [event] : [];
}

/**
 * Overdue events of the open invoices whose due date passed (by the service's clock). An invoice not
 * read in this check is looked up first (one `RestToPay` request, once per invoice and due date): a
 * deleted invoice leaves no change behind in the documents, so a 404 drops it without an event, and
 * a rest of 0 is its Paid; the Overdue event carries the rest the service answered.
 */
export async function overdueEvents(run: Run): Promise<BusEvent[]> {
  const events: BusEvent[] = [];
  for (const [id, known] of Object.entries(run.state.open)) {
    if (known.d === null || known.o === known.d || known.r <= 0) continue;
    if (daysPastDue(known.d, run.serverMs) <= 0) continue;
    if (!run.fresh.has(id)) events.push(...(await resolveLeaver(run, id, known, false)));
    const open = run.state.open[id];
    if (!open || open.d === null || open.r <= 0 || open.o === open.d) continue;
    const days = daysPastDue(open.d, run.serverMs);
    if (days <= 0) continue;
    const liquidations = open.l.map(([lid, date, amount]) => ({ id: lid, date, amount }));
    events.push(buildEvent(run, id, 'Overdue', open, { rest: open.r, liquidations }, { daysOverdue: days }));
    open.o = open.d;
  }
  return events;
}
