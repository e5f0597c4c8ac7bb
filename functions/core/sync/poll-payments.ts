/**
 * The payment detector of one payable collection (issued invoices, issued advance invoices):
 * `Paid`, `PartiallyPaid` and `Overdue` events (docs/payments.md). Invariants as the change
 * detector's (ARCHITECTURE.md 1, 2, 6):
 *
 * - it reads the documents changed since its watermark (a ModifiedDate of the service, one lookback
 *   back, bounded by the service's `Date` header) — a liquidation is a change of its document — so an
 *   idle cycle costs that one list request;
 * - for a page with changes it reads the unpaid statuses changed in the same window (`…/Unpaid` with
 *   `ModifiedSince`); a known unpaid invoice missing from them is looked up (`…/{id}/RestToPay`):
 *   rest 0 → Paid, 404 → deleted (dropped without an event);
 * - events are published before the checkpoint that records them is written; a crash in between
 *   publishes the same events again with the same idempotency keys;
 * - `Overdue` is decided by the service's clock (the `Date` header), once per invoice and due date.
 * The first run records the current state as a baseline: it publishes no Paid or PartiallyPaid for
 * payments made before it, and Overdue for invoices already overdue.
 */
import type { ApiRecord } from '../../accounting/api.js';
import { CheckpointConflictError, SyncDataError } from '../errors.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import {
  type LiquidationSeen,
  type PayableRecordType,
  type PaymentChange,
  paymentDetailType,
  paymentIdempotencyKey,
} from '../events/payment-events.js';
import type { BusEvent } from '../ports.js';
import {
  emptyPaymentCheckpoint,
  type OpenInvoice,
  type PaymentCheckpoint,
  paymentCheckpointKey,
  paymentCheckpointSchema,
} from './payment-state.js';
import type { PollOptions } from './poll-options.js';
import { type CollectionResult, emptyResult, type SyncDeps } from './sync-types.js';
import { type PaymentStatus, restToPay, unpaidStatuses } from './unpaid-list.js';

export const payableCollections = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;
export type PayableCollection = (typeof payableCollections)[number];

const recordTypeOf: Record<PayableCollection, PayableRecordType> = {
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

interface Run {
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
}

function invoiceFields(record: ApiRecord): Omit<OpenInvoice, 'r' | 'l' | 'o'> {
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
    source: options.source ?? `accounting.${options.connection}`,
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

/** The Paid / PartiallyPaid event of a status, when it lists liquidations not reported yet. */
function paymentEvent(
  run: Run,
  id: string,
  open: OpenInvoice,
  known: readonly string[],
  status: PaymentStatus,
): BusEvent | undefined {
  const liquidations = liquidationsOf(status);
  const fresh = liquidations.filter((l) => !known.includes(l.id));
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

async function save(run: Run): Promise<void> {
  run.version = await run.deps.checkpoints.put(run.key, run.state, run.version);
}

async function publish(run: Run, events: BusEvent[]): Promise<void> {
  if (events.length === 0) return;
  await run.deps.publisher.publish(events);
  for (const e of events) {
    run.result.published++;
    run.result.events[e.detailType] = (run.result.events[e.detailType] ?? 0) + 1;
  }
}

/** A known unpaid invoice that is no longer listed unpaid: Paid, deleted, or still open. */
async function resolveLeaver(
  run: Run,
  id: string,
  open: OpenInvoice,
  baseline: boolean,
): Promise<BusEvent[]> {
  run.result.requests++;
  const status = await restToPay(run.deps.api, run.collection, id, run.deps.signal);
  if (!status) {
    delete run.state.open[id];
    run.deps.logger.info('unpaid invoice deleted', { collection: run.collection, id });
    return [];
  }
  const event = baseline ? undefined : paymentEvent(run, id, open, open.l, status);
  if (status.RestToPay > 0) {
    run.state.open[id] = {
      ...open,
      r: status.RestToPay,
      l: (status.LiquidationInfos ?? []).map((l) => l.Id),
    };
  } else {
    delete run.state.open[id];
  }
  return event ? [event] : [];
}

function overdueEvents(run: Run): BusEvent[] {
  const events: BusEvent[] = [];
  for (const [id, open] of Object.entries(run.state.open)) {
    if (open.d === null || open.o === open.d || open.r <= 0) continue;
    const days = daysPastDue(open.d, run.serverMs);
    if (days <= 0) continue;
    // The liquidations are the ids known; the amounts come with Paid/PartiallyPaid events.
    events.push(
      buildEvent(run, id, 'Overdue', open, { rest: open.r, liquidations: [] }, { daysOverdue: days }),
    );
    open.o = open.d;
  }
  return events;
}

/** Reads the documents changed in this window and handles their payment state, page by page. */
async function readWindow(run: Run): Promise<void> {
  const { deps, options, state, collection } = run;
  const baseline = state.watermarkMs === undefined;
  const sinceMs =
    state.watermarkMs !== undefined
      ? state.watermarkMs - options.lookbackMs
      : options.startFrom !== undefined
        ? Date.parse(options.startFrom)
        : undefined;
  const since = sinceMs === undefined ? undefined : new Date(sinceMs).toISOString();
  const seen = new Map(state.seen);
  let boundMs: number | undefined;
  let upper: { ms: number; text: string } | undefined;
  let unpaid: Map<string, PaymentStatus> | undefined;
  let first = true;
  for await (const page of deps.api.listPages(collection, {
    ...(since !== undefined ? { modifiedSince: since } : {}),
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
  })) {
    run.result.requests++;
    if (first && page.serverTime !== undefined && !Number.isNaN(Date.parse(page.serverTime))) {
      boundMs = Date.parse(page.serverTime);
      run.serverMs = boundMs;
    }
    const changed: ApiRecord[] = [];
    for (const record of page.items) {
      const modified = record.ModificationInfo?.ModifiedDate;
      const ms = modified === undefined ? Number.NaN : Date.parse(modified);
      if (Number.isNaN(ms)) {
        throw new SyncDataError(`${collection}: a listed record is missing ModificationInfo.ModifiedDate`);
      }
      if ((boundMs !== undefined ? ms <= boundMs : first) && (upper === undefined || ms > upper.ms)) {
        upper = { ms, text: modified as string };
      }
      if (seen.get(record.Id) === ms) {
        run.result.duplicatesSkipped++;
        continue;
      }
      changed.push(record);
    }
    first = false;
    if (changed.length === 0) continue;
    if (!unpaid) {
      unpaid = new Map();
      for await (const statuses of unpaidStatuses(deps.api, collection, {
        ...(since !== undefined ? { modifiedSince: since } : {}),
        pageSize: options.pageSize,
        ...(deps.signal ? { signal: deps.signal } : {}),
        onRequest: () => {
          run.result.requests++;
        },
      })) {
        for (const s of statuses) unpaid.set(s.Id, s);
      }
    }
    const events: BusEvent[] = [];
    for (const record of changed) {
      const known = state.open[record.Id];
      const status = unpaid.get(record.Id);
      const fields = invoiceFields(record);
      if (status && status.RestToPay > 0) {
        const open: OpenInvoice = {
          ...fields,
          r: status.RestToPay,
          l: (status.LiquidationInfos ?? []).map((l) => l.Id),
          ...(known?.o !== undefined && known.o === fields.d ? { o: known.o } : {}),
        };
        const event = baseline ? undefined : paymentEvent(run, record.Id, open, known?.l ?? [], status);
        if (event) events.push(event);
        state.open[record.Id] = open;
      } else if (known) {
        events.push(...(await resolveLeaver(run, record.Id, { ...known, ...fields }, baseline)));
      } else if (!baseline && sinceMs !== undefined && createdSince(record, sinceMs)) {
        // New since the last window and already not unpaid: paid before we saw it (or nothing to pay).
        events.push(...(await resolveLeaver(run, record.Id, { ...fields, r: fields.t, l: [] }, false)));
      }
      seen.set(record.Id, Date.parse(record.ModificationInfo?.ModifiedDate as string));
    }
    await publish(run, events);
    state.seen = prune(seen, upper?.ms ?? state.watermarkMs, options);
    await save(run);
  }
  if (upper !== undefined && (state.watermarkMs === undefined || upper.ms > state.watermarkMs)) {
    state.watermarkMs = upper.ms;
    state.watermark = upper.text;
  } else if (state.watermarkMs === undefined) {
    // An empty collection: the baseline is taken; later windows start from the service's clock.
    state.watermarkMs = boundMs ?? deps.clock.now().getTime();
    state.watermark = new Date(state.watermarkMs).toISOString();
  }
  state.seen = prune(seen, state.watermarkMs, options);
  if (baseline) state.reconciledAtMs = deps.clock.now().getTime();
}

function createdSince(record: ApiRecord, sinceMs: number): boolean {
  const created = record.ModificationInfo?.CreatedDate;
  return typeof created === 'string' && Date.parse(created) >= sinceMs;
}

function prune(
  seen: Map<string, number>,
  topMs: number | undefined,
  options: PollOptions,
): [string, number][] {
  let entries = [...seen.entries()];
  if (topMs !== undefined) entries = entries.filter(([, ms]) => ms >= topMs - options.lookbackMs);
  if (entries.length > options.dedupeCapacity) {
    entries.sort((a, b) => b[1] - a[1]);
    entries = entries.slice(0, options.dedupeCapacity);
  }
  seen.clear();
  for (const [id, ms] of entries) seen.set(id, ms);
  return entries;
}

/** Every unpaid id, in full: known invoices no longer listed are resolved (Paid or deleted). */
async function reconcile(run: Run): Promise<void> {
  const { deps, options, state, collection } = run;
  const listed = new Set<string>();
  for await (const statuses of unpaidStatuses(deps.api, collection, {
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
    onRequest: () => {
      run.result.requests++;
    },
  })) {
    for (const s of statuses) listed.add(s.Id);
  }
  const events: BusEvent[] = [];
  for (const [id, open] of Object.entries(state.open)) {
    if (!listed.has(id)) events.push(...(await resolveLeaver(run, id, open, false)));
  }
  const untracked = [...listed].filter((id) => state.open[id] === undefined).length;
  await publish(run, events);
  state.reconciledAtMs = deps.clock.now().getTime();
  run.result.reconciled = true;
  deps.logger.info('unpaid list reconciled', { collection, listed: listed.size, untracked });
}

/** One check of one payable collection: its window, reconciliation when due, Overdue events. */
export async function pollPayments(
  deps: SyncDeps,
  options: PollOptions,
  collection: PayableCollection,
): Promise<CollectionResult> {
  const recordType = recordTypeOf[collection];
  const result = emptyResult(`${collection}/Unpaid`, recordType);
  const key = paymentCheckpointKey(options.connection, collection);
  try {
    const stored = await deps.checkpoints.get(key);
    let state: PaymentCheckpoint = emptyPaymentCheckpoint();
    if (stored) {
      const parsed = paymentCheckpointSchema.safeParse(stored.value);
      if (!parsed.success) {
        throw new SyncDataError(
          `checkpoint '${key}' is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      state = parsed.data;
    }
    const now = deps.clock.now().getTime();
    if (
      options.paymentIntervalMs > 0 &&
      state.checkedAtMs !== undefined &&
      now - state.checkedAtMs < options.paymentIntervalMs
    ) {
      result.status = 'skipped';
      return result;
    }
    const run: Run = {
      deps,
      options,
      collection,
      recordType,
      state,
      version: stored?.version,
      key,
      result,
      serverMs: now,
    };
    const before = JSON.stringify(state);
    await readWindow(run);
    if (
      options.paymentReconcileIntervalMs > 0 &&
      (state.reconciledAtMs === undefined || now - state.reconciledAtMs >= options.paymentReconcileIntervalMs)
    ) {
      await reconcile(run);
    }
    await publish(run, overdueEvents(run));
    if (options.paymentIntervalMs > 0) state.checkedAtMs = now;
    // An idle check (nothing changed, nothing due) writes nothing.
    if (JSON.stringify(state) !== before) await save(run);
    result.watermark = state.watermark;
    result.watermarkMs = state.watermarkMs;
    result.completeThroughMs = run.serverMs;
  } catch (error) {
    const err = error instanceof Error ? error : new Error(String(error));
    const status = (err as { status?: unknown }).status;
    result.status = error instanceof CheckpointConflictError ? 'conflict' : 'failed';
    result.error = {
      name: err.name,
      message: err.message,
      ...(typeof status === 'number' ? { status } : {}),
    };
    deps.logger.error('payment poll failed', {
      collection: result.collection,
      status: result.status,
      error: result.error,
    });
  }
  return result;
}
