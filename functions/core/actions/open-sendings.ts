/**
 * The open e-invoice sendings of a connection, spread over `SENDING_SHARDS` items of the action
 * state table (`CheckpointStore`), each written with optimistic concurrency. Everything about one
 * invoice (its intent, its sending, its finished entry) lives in the shard of its record id, so the
 * sending action reads and writes one item. The sending action registers each sending (and, before
 * the request, an intent); the scheduled tracker (`einvoice-tracking.ts`) reads every shard and
 * follows each sending until it is final or past its deadline.
 *
 * Items written by older versions under the unsharded key (`legacyTrackingKey`) are still read by
 * the tracker and the duplicate checks, and only ever shrink: nothing new is written to them.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { connectionSchema } from '../connection.js';
import { CheckpointConflictError } from '../errors.js';
import type { CheckpointStore } from '../ports.js';
import { OpenSendingsFullError } from './errors.js';

export const openSendingSchema = z.object({
  sendingId: recordIdSchema,
  connection: connectionSchema,
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
  /** The last Message Level Status seen (Slovak leg); absent in items written before it was kept. */
  lastMls: z.string().nullable().optional(),
  /**
   * The date the key of the invoice's archived ISDOC is made from (`isdocDateOf`): the tracker keeps
   * the sending's record beside it once final. Absent in items written before it was kept (then
   * the invoice is read).
   */
  isdocDate: z.string().optional(),
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

/**
 * Shards per connection. Measured on dynalite items holding 3,000 sendings of one connection: an
 * open sending took 404 bytes of its item's JSON, a finished entry 135; the ISDOC date kept since
 * adds 34 (`,"isdocDate":"2026-03-04T00:00:00"`), so 438. Below `INTENT_LIMIT_BYTES` a shard takes
 * about 680 open sendings, so 32 shards give a connection about 21,900 (about 19,400 before the
 * fullest shard of a stable hash refuses an intent; fewer while many sendings finished within the
 * hour), against about 900 in the one item older versions used.
 * 32 keeps the tracker's pass at 33 reads (the shards and the legacy item), already more sendings
 * than a 5-minute pass can poll, and spreads the sending action's writes over 32 items.
 */
export const SENDING_SHARDS = 32;

/**
 * Largest JSON a change may grow an item to: DynamoDB's item limit is 400 KB (key, `version` and
 * the JSON string together), so this leaves room for the key and any `"` escaped in the value.
 */
export const SHARD_LIMIT_BYTES = 350_000;

/** An intent must leave room for the sending that replaces it (and for concurrent ones). */
export const INTENT_LIMIT_BYTES = 300_000;

/** The item older versions kept all of a connection's sendings in; read, never added to. */
export function legacyTrackingKey(connection: string): string {
  return `einvoice-sendings#${connection}`;
}

/** Stable shard of an invoice: the first 4 bytes of the SHA-256 of its record id, mod `SENDING_SHARDS`. */
export function shardOf(recordId: string): number {
  return createHash('sha256').update(recordId).digest().readUInt32BE(0) % SENDING_SHARDS;
}

export function shardKey(connection: string, shard: number): string {
  return `${legacyTrackingKey(connection)}#${shard}`;
}

/** The item holding everything about the invoice `recordId`. */
export function sendingKey(connection: string, recordId: string): string {
  return shardKey(connection, shardOf(recordId));
}

/** Every shard key of a connection, in shard order. */
export function shardKeys(connection: string): string[] {
  return Array.from({ length: SENDING_SHARDS }, (_, shard) => shardKey(connection, shard));
}

const MAX_CONFLICT_RETRIES = 5;

/** Bytes of an item's JSON (UTF-8), what its size is checked by. */
export function openSendingsBytes(value: OpenSendings): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/**
 * Reads, changes and writes the item `key` with optimistic concurrency, retrying on conflicts.
 * `change` returns the parts it changes; the others are kept as they are. A change that would grow
 * the item past `limitBytes` throws `OpenSendingsFullError` and writes nothing; one that shrinks
 * it is always written.
 */
export async function updateOpenSendings(
  store: CheckpointStore<OpenSendings>,
  key: string,
  change: (current: OpenSendings) => Partial<OpenSendings>,
  limitBytes = SHARD_LIMIT_BYTES,
): Promise<OpenSendings> {
  for (let attempt = 1; ; attempt += 1) {
    const stored = await store.get(key);
    const current = stored ? openSendingsSchema.parse(stored.value) : { sendings: [] };
    const next = { ...current, ...change(current) };
    const bytes = openSendingsBytes(next);
    if (bytes > limitBytes && bytes > openSendingsBytes(current)) {
      throw new OpenSendingsFullError(key, bytes, limitBytes);
    }
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
