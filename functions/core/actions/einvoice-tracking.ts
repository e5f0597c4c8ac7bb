/**
 * Tracking of e-invoice sendings. A Lambda cannot wait for the network, so the sending action
 * registers each sending in a small list of open sendings (one `CheckpointStore` item per
 * connection, written with optimistic concurrency), and a scheduled tracker polls the status of
 * every open sending, emits `IssuedInvoice.EInvoiceStatusChanged` for each transition in order,
 * and drops the sending once it is final or past its deadline (then `Action.Failed`).
 */
import * as z from 'zod';
import type { AccountingApi } from '../../accounting/api.js';
import { NotFoundError } from '../../accounting/errors.js';
import { recordIdSchema } from '../../accounting/record-id.js';
import { CheckpointConflictError } from '../errors.js';
import {
  ACTION_FAILED,
  actionFailedSchema,
  EINVOICE_STATUS_CHANGED,
  einvoiceStatusChangedSchema,
} from '../events/action-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '../ports.js';
import { type OutcomeEvent, outcomeEnvelope, publishOutcomes } from './outcomes.js';

export const EINVOICE_ACTION = 'send.einvoice';

export const openSendingSchema = z.object({
  sendingId: recordIdSchema,
  connection: z.string().min(1),
  /** Event source the outcomes are published under. */
  eventSource: z.string().min(1),
  source: z.object({
    recordType: z.string(),
    id: z.string(),
    documentNumber: z.string().nullable(),
    modifiedDate: z.string().nullable(),
  }),
  causationId: z.string().min(1),
  sentAt: z.string(),
  deadline: z.string(),
  /** Transitions emitted so far. */
  emitted: z.number().int().nonnegative(),
  lastStatus: z.string().nullable(),
  lastCode: z.string().nullable(),
});
export type OpenSending = z.infer<typeof openSendingSchema>;

/**
 * A sending about to be requested (written before the request, removed after it): a run killed in
 * between leaves it, and the redelivery then reports the outcome as unknown instead of sending again.
 */
export const sendingIntentSchema = z.object({ recordId: z.string(), at: z.string() });
export type SendingIntent = z.infer<typeof sendingIntentSchema>;

/**
 * A sending the tracker stopped following (final or past its deadline), kept for
 * `FINISHED_RETENTION_MS`: a run killed after the request, whose idempotency record stayed in
 * progress, is redelivered once that record expires, and must still find the invoice sent.
 */
export const finishedSendingSchema = z.object({
  recordId: z.string(),
  sendingId: z.string(),
  at: z.string(),
});
export type FinishedSending = z.infer<typeof finishedSendingSchema>;

/** Longer than any in-progress idempotency record (bounded by Lambda's 15-minute limit). */
export const FINISHED_RETENTION_MS = 60 * 60 * 1000;

export const openSendingsSchema = z.object({
  sendings: z.array(openSendingSchema),
  intents: z.array(sendingIntentSchema).optional(),
  finished: z.array(finishedSendingSchema).optional(),
});
export type OpenSendings = z.infer<typeof openSendingsSchema>;

export function trackingKey(connection: string): string {
  return `einvoice-sendings#${connection}`;
}

const statusStepSchema = z.looseObject({
  Date: z.string().nullish(),
  Status: z.string().min(1),
  ResponseCode: z.string().nullish(),
});

/** `EInvoicing.status` answer (assumed shape; unknown fields pass through). */
export const sendingStatusSchema = z.looseObject({
  Status: z.string().min(1),
  ResponseCode: z.string().nullish(),
  IsFinal: z.boolean().optional(),
  History: z.array(statusStepSchema).optional(),
});
export type SendingStatus = z.infer<typeof sendingStatusSchema>;

/** Final without the service saying so: transport failure, rejected, accepted, paid. */
const FINAL_CODES = new Set(['RE', 'AP', 'PD']);
export function isFinalStep(status: string, code: string | null | undefined, isFinal?: boolean): boolean {
  if (isFinal !== undefined) return isFinal;
  return status === 'TransportFailed' || (code !== null && code !== undefined && FINAL_CODES.has(code));
}

const MAX_CONFLICT_RETRIES = 5;

/**
 * Reads, changes and writes the list with optimistic concurrency, retrying on conflicts. `change`
 * returns the parts it changes; the others are kept as they are.
 */
export async function updateOpenSendings(
  store: CheckpointStore<OpenSendings>,
  connection: string,
  change: (current: OpenSendings) => Partial<OpenSendings>,
): Promise<OpenSendings> {
  const key = trackingKey(connection);
  for (let attempt = 1; ; attempt += 1) {
    const stored = await store.get(key);
    const current = stored ? openSendingsSchema.parse(stored.value) : { sendings: [] };
    const next = { ...current, ...change(current) };
    try {
      await store.put(key, next, stored?.version);
      return next;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}

/** The finished sendings still within `FINISHED_RETENTION_MS` of `now`. */
export function recentlyFinished(current: OpenSendings, now: Date): FinishedSending[] {
  return (current.finished ?? []).filter((f) => now.getTime() - Date.parse(f.at) < FINISHED_RETENTION_MS);
}

export interface TrackerDeps {
  api: AccountingApi;
  sendings: CheckpointStore<OpenSendings>;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
}

export interface TrackResult {
  open: number;
  transitions: number;
  closed: number;
  expired: number;
}

interface Step {
  status: string;
  code: string | null;
  date: string | null;
}

function stepsOf(answer: SendingStatus): Step[] {
  const history = answer.History?.map((h) => ({
    status: h.Status,
    code: h.ResponseCode ?? null,
    date: h.Date ?? null,
  }));
  return history && history.length > 0
    ? history
    : [{ status: answer.Status, code: answer.ResponseCode ?? null, date: null }];
}

function base(sending: OpenSending, change: string, clock: Clock, ...keyParts: string[]) {
  const { connection, source, causationId } = sending;
  return outcomeEnvelope(
    { action: EINVOICE_ACTION, connection, source, causationId },
    change,
    clock,
    ...keyParts,
  );
}

/**
 * One pass over the open sendings of `connection`. Events are published before the list is
 * saved, so a crash repeats a transition (same `idempotencyKey`) rather than losing one.
 * A 429/5xx stops the pass; what was learned so far is saved.
 */
export async function trackEInvoices(deps: TrackerDeps, connection: string): Promise<TrackResult> {
  const stored = await deps.sendings.get(trackingKey(connection));
  const open = stored ? openSendingsSchema.parse(stored.value).sendings : [];
  const updates = new Map<string, OpenSending | null>();
  const result: TrackResult = { open: open.length, transitions: 0, closed: 0, expired: 0 };
  let stop: unknown;

  for (const sending of open) {
    let answer: SendingStatus;
    try {
      answer = sendingStatusSchema.parse(
        await deps.api.call('EInvoicing.status', { params: { sendingId: sending.sendingId } }),
      );
    } catch (error) {
      if (error instanceof NotFoundError) {
        // Nothing more can be learned about it: report a final `Unknown` status once and stop tracking.
        deps.logger.warn('einvoice sending unknown to the service', { sendingId: sending.sendingId });
        answer = { Status: 'Unknown', IsFinal: true };
      } else {
        stop = error;
        break;
      }
    }
    const steps = stepsOf(answer);
    const fresh: Step[] = answer.History?.length
      ? steps.slice(sending.emitted)
      : steps.filter((s) => s.status !== sending.lastStatus || s.code !== sending.lastCode);
    const events: OutcomeEvent[] = [];
    let { lastStatus, lastCode, emitted } = sending;
    let final = false;
    fresh.forEach((step, i) => {
      const isLast = i === fresh.length - 1;
      emitted += 1;
      final = isFinalStep(step.status, step.code, isLast ? answer.IsFinal : false);
      events.push({
        source: sending.eventSource,
        detailType: EINVOICE_STATUS_CHANGED,
        time: deps.clock.now(),
        detail: einvoiceStatusChangedSchema.parse({
          ...base(sending, 'EInvoiceStatusChanged', deps.clock, sending.sendingId, String(emitted)),
          sendingId: sending.sendingId,
          status: step.status,
          previousStatus: lastStatus,
          responseCode: step.code,
          final,
          sequence: emitted,
          statusDate: step.date,
        }),
      });
      lastStatus = step.status;
      lastCode = step.code;
    });
    if (fresh.length === 0) final = isFinalStep(answer.Status, answer.ResponseCode, answer.IsFinal);

    const expired = !final && deps.clock.now().getTime() >= Date.parse(sending.deadline);
    if (expired) {
      events.push({
        source: sending.eventSource,
        detailType: ACTION_FAILED,
        time: deps.clock.now(),
        detail: actionFailedSchema.parse({
          ...base(sending, 'Failed', deps.clock, sending.sendingId, 'deadline'),
          problem: {
            kind: 'deadline',
            message: `e-invoice sending ${sending.sendingId} did not reach a final status before ${sending.deadline}`,
          },
        }),
      });
    }
    await publishOutcomes(deps.publisher, events);
    result.transitions += fresh.length;
    if (final || expired) {
      updates.set(sending.sendingId, null);
      if (final) result.closed += 1;
      else result.expired += 1;
    } else if (fresh.length > 0) {
      updates.set(sending.sendingId, { ...sending, emitted, lastStatus, lastCode });
    }
  }

  if (updates.size > 0) {
    const now = deps.clock.now();
    await updateOpenSendings(deps.sendings, connection, (current) => ({
      ...current,
      sendings: current.sendings.flatMap((s) => {
        if (!updates.has(s.sendingId)) return [s];
        const next = updates.get(s.sendingId);
        return next ? [next] : [];
      }),
      finished: [
        ...recentlyFinished(current, now),
        ...current.sendings
          .filter((s) => updates.has(s.sendingId) && updates.get(s.sendingId) === null)
          .map((s) => ({ recordId: s.source.id, sendingId: s.sendingId, at: now.toISOString() })),
      ],
    }));
  }
  result.open -= result.closed + result.expired;
  deps.logger.info('einvoice tracking pass', { connection, ...result });
  if (stop !== undefined) throw stop;
  return result;
}
