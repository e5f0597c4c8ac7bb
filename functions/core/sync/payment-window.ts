/**
 * The read window of the payment detector (`poll-payments.ts`): the documents changed since its
 * watermark (one lookback back, bounded by the service's `Date` header), and for a page with
 * changes the unpaid statuses changed in the same window; each change becomes what it means for
 * the invoice's payment state. The checkpoint is saved after each page's events were accepted.
 */
import type { ApiRecord } from '#functions/accounting/api.js';
import { SyncDataError } from '../errors.js';
import type { BusEvent } from '../ports.js';
import {
  invoiceFields,
  liquidationTuples,
  paymentEvent,
  publish,
  type Run,
  resolveLeaver,
  save,
} from './payment-run.js';
import type { OpenInvoice } from './payment-state.js';
import type { PollOptions } from './poll-options.js';
import { type PaymentStatus, unpaidStatuses } from './unpaid-list.js';

interface Window {
  /** First run: record the state, publish no Paid/PartiallyPaid for what is already paid. */
  baseline: boolean;
  sinceMs: number | undefined;
  since: string | undefined;
  seen: Map<string, number>;
  /** The service's clock at the first page (its `Date` header). */
  boundMs?: number;
  /** Highest ModifiedDate visible when the window started. */
  upper?: { ms: number; text: string };
  unpaid?: Map<string, PaymentStatus>;
  pages: number;
}

function openWindow(run: Run): Window {
  const { options, state } = run;
  const sinceMs =
    state.watermarkMs !== undefined
      ? state.watermarkMs - options.lookbackMs
      : options.startFrom !== undefined
        ? Date.parse(options.startFrom)
        : undefined;
  return {
    baseline: state.watermarkMs === undefined,
    sinceMs,
    since: sinceMs === undefined ? undefined : new Date(sinceMs).toISOString(),
    seen: new Map(state.seen),
    pages: 0,
  };
}

/** The page's records not handled yet; raises the window's upper bound. */
function changedRecords(run: Run, w: Window, items: readonly ApiRecord[]): ApiRecord[] {
  const changed: ApiRecord[] = [];
  for (const record of items) {
    const modified = record.ModificationInfo?.ModifiedDate;
    const ms = modified === undefined ? Number.NaN : Date.parse(modified);
    if (Number.isNaN(ms)) {
      throw new SyncDataError(`${run.collection}: a listed record is missing ModificationInfo.ModifiedDate`);
    }
    const visible = w.boundMs !== undefined ? ms <= w.boundMs : w.pages === 0;
    if (visible && (w.upper === undefined || ms > w.upper.ms)) w.upper = { ms, text: modified as string };
    if (w.seen.get(record.Id) === ms) {
      run.result.duplicatesSkipped++;
      continue;
    }
    changed.push(record);
  }
  return changed;
}

/** The unpaid statuses changed in the window, read once per window (all pages). */
async function unpaidOf(run: Run, w: Window): Promise<Map<string, PaymentStatus>> {
  if (w.unpaid) return w.unpaid;
  const { deps, options, collection } = run;
  const unpaid = new Map<string, PaymentStatus>();
  for await (const statuses of unpaidStatuses(deps.api, collection, {
    ...(w.since !== undefined ? { modifiedSince: w.since } : {}),
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
    onRequest: () => {
      run.result.requests++;
    },
  })) {
    for (const s of statuses) unpaid.set(s.Id, s);
  }
  w.unpaid = unpaid;
  return unpaid;
}

/** What one changed document means for its payment state: events, and the state updated. */
async function handleChange(
  run: Run,
  w: Window,
  record: ApiRecord,
  status: PaymentStatus | undefined,
): Promise<BusEvent[]> {
  const { state } = run;
  const known = state.open[record.Id];
  const fields = invoiceFields(record);
  if (status && status.RestToPay > 0) {
    const open: OpenInvoice = {
      ...fields,
      r: status.RestToPay,
      l: liquidationTuples(status),
      ...(known?.o !== undefined && known.o === fields.d ? { o: known.o } : {}),
    };
    const event = w.baseline ? undefined : paymentEvent(run, record.Id, open, known?.l ?? [], status);
    state.open[record.Id] = open;
    run.fresh.add(record.Id);
    return event ? [event] : [];
  }
  if (known) return resolveLeaver(run, record.Id, { ...known, ...fields }, w.baseline);
  if (!w.baseline && w.sinceMs !== undefined && createdSince(record, w.sinceMs)) {
    // New since the last window and already not unpaid: paid before we saw it (or nothing to pay).
    return resolveLeaver(run, record.Id, { ...fields, r: fields.t, l: [] }, false, true);
  }
  return [];
}

/** Moves the watermark to the window's upper bound; a first run over nothing starts from now. */
function closeWindow(run: Run, w: Window): void {
  const { state, deps, options } = run;
  if (w.upper !== undefined && (state.watermarkMs === undefined || w.upper.ms > state.watermarkMs)) {
    state.watermarkMs = w.upper.ms;
    state.watermark = w.upper.text;
  } else if (state.watermarkMs === undefined) {
    state.watermarkMs = w.boundMs ?? deps.clock.now().getTime();
    state.watermark = new Date(state.watermarkMs).toISOString();
  }
  state.seen = prune(w.seen, state.watermarkMs, options);
  if (w.baseline) state.reconciledAtMs = deps.clock.now().getTime();
}

export async function readWindow(run: Run): Promise<void> {
  const { deps, options, state, collection } = run;
  const w = openWindow(run);
  for await (const page of deps.api.listPages(collection, {
    ...(w.since !== undefined ? { modifiedSince: w.since } : {}),
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
  })) {
    run.result.requests++;
    if (w.pages === 0 && page.serverTime !== undefined && !Number.isNaN(Date.parse(page.serverTime))) {
      w.boundMs = Date.parse(page.serverTime);
      run.serverMs = w.boundMs;
    }
    const changed = changedRecords(run, w, page.items);
    w.pages++;
    if (changed.length === 0) continue;
    const unpaid = await unpaidOf(run, w);
    const events: BusEvent[] = [];
    for (const record of changed) {
      events.push(...(await handleChange(run, w, record, unpaid.get(record.Id))));
      w.seen.set(record.Id, Date.parse(record.ModificationInfo?.ModifiedDate as string));
    }
    // Published first: only accepted events are recorded in the checkpoint.
    await publish(run, events);
    state.seen = prune(w.seen, w.upper?.ms ?? state.watermarkMs, options);
    await save(run);
  }
  closeWindow(run, w);
}

function createdSince(record: ApiRecord, sinceMs: number): boolean {
  const created = record.ModificationInfo?.CreatedDate;
  return typeof created === 'string' && Date.parse(created) >= sinceMs;
}

/** Keeps the handled versions the next window can re-read (within a lookback), newest first, bounded. */
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
