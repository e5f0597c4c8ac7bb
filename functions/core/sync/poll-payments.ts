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
import { CheckpointConflictError, SyncDataError } from '../errors.js';
import type { BusEvent } from '../ports.js';
import {
  overdueEvents,
  type PayableCollection,
  publish,
  type Run,
  recordTypeOf,
  resolveLeaver,
  save,
} from './payment-run.js';
import {
  emptyPaymentCheckpoint,
  type PaymentCheckpoint,
  paymentCheckpointKey,
  paymentCheckpointSchema,
} from './payment-state.js';
import { readWindow } from './payment-window.js';
import type { PollOptions } from './poll-options.js';
import { type CollectionResult, emptyResult, type SyncDeps } from './sync-types.js';
import { unpaidStatuses } from './unpaid-list.js';

export {
  daysPastDue,
  isPayableCollection,
  type PayableCollection,
  payableCollections,
} from './payment-run.js';

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
      fresh: new Set(),
    };
    const before = JSON.stringify(state);
    await readWindow(run);
    if (
      options.paymentReconcileIntervalMs > 0 &&
      (state.reconciledAtMs === undefined || now - state.reconciledAtMs >= options.paymentReconcileIntervalMs)
    ) {
      await reconcile(run);
    }
    await publish(run, await overdueEvents(run));
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
