/**
 * The open e-invoice sendings of a connection: one `CheckpointStore` item per connection (the
 * action state table), written with optimistic concurrency. The sending action registers each
 * sending (and, before the request, an intent); the scheduled tracker (`einvoice-tracking.ts`)
 * follows each until it is final or past its deadline.
 */
import * as z from 'zod';
import { recordIdSchema } from '../../accounting/record-id.js';
import { CheckpointConflictError } from '../errors.js';
import type { CheckpointStore } from '../ports.js';

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
