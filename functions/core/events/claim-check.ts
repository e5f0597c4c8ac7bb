/**
 * Claim check: a record whose event would exceed the bus's size limit is stored in the
 * object store and the event carries `recordRef` instead of `record`. `resolveRecord`
 * gives consumers the record either way.
 */
import { createHash } from 'node:crypto';
import { readStream } from '#functions/shared/read-stream.js';
import { ObjectExistsError, RecordRefError } from '../errors.js';
import type { BusEvent, ObjectStore } from '../ports.js';
import type { RecordRef } from './envelope.js';

/** EventBridge's entry size limit (1 MB since 2026-01-29; older accounts/docs say 256 KB). */
export const DEFAULT_MAX_EVENT_BYTES = 1_048_576;

/**
 * Size of one PutEvents entry as EventBridge counts it: UTF-8 bytes of Source, DetailType,
 * Detail (the JSON text) and each Resource, plus 14 bytes when Time is set.
 */
export function eventEntrySize(event: BusEvent): number {
  return entrySize(event, JSON.stringify(event.detail) ?? '');
}

function entrySize(event: BusEvent, detail: string): number {
  let size = Buffer.byteLength(event.source) + Buffer.byteLength(event.detailType);
  size += Buffer.byteLength(detail);
  if (event.time) size += 14;
  for (const r of event.resources ?? []) size += Buffer.byteLength(r);
  return size;
}

/**
 * `eventEntrySize(event)` when it is over `maxBytes`, else `undefined` (the entry fits). A UTF-16
 * code unit is at most 3 UTF-8 bytes, so a detail whose text is short enough fits without its
 * bytes being counted.
 */
export function eventEntryOverflow(event: BusEvent, maxBytes: number): number | undefined {
  const detail = JSON.stringify(event.detail) ?? '';
  let bound = 3 * (event.source.length + event.detailType.length + detail.length) + 14;
  for (const r of event.resources ?? []) bound += 3 * r.length;
  if (bound <= maxBytes) return undefined;
  const size = entrySize(event, detail);
  return size > maxBytes ? size : undefined;
}

export interface ClaimCheckOptions {
  /** Key prefix in the object store (default `claims/`). */
  prefix?: string;
  /** Bucket name written into `recordRef.bucket`, when known. */
  bucket?: string;
}

/** Stores `record` as JSON under a content-addressed key and returns the reference. Idempotent. */
export async function storeClaim(
  store: ObjectStore,
  path: { connection: string; recordType: string; id: string },
  record: unknown,
  options: ClaimCheckOptions = {},
): Promise<RecordRef> {
  const body = Buffer.from(JSON.stringify(record), 'utf8');
  const digest = createHash('sha256').update(body);
  const sha256Hex = digest.copy().digest('hex');
  const prefix = options.prefix ?? 'claims/';
  const key = `${prefix}${encodeURIComponent(path.connection)}/${path.recordType}/${encodeURIComponent(path.id)}/${sha256Hex}.json`;
  try {
    await store.put({
      key,
      body,
      contentType: 'application/json',
      contentLength: body.length,
      checksumSha256: digest.digest('base64'),
      ifNoneMatch: true,
    });
  } catch (error) {
    // Same key = same bytes (content-addressed): a previous attempt already stored it.
    if (!(error instanceof ObjectExistsError)) throw error;
  }
  return { ...(options.bucket ? { bucket: options.bucket } : {}), key, sha256: sha256Hex, size: body.length };
}

/**
 * The record of an event detail: `detail.record` when inline, else the object behind
 * `detail.recordRef`, checked against its SHA-256. Throws `RecordRefError` when missing or altered.
 */
export async function resolveRecord<T = Record<string, unknown>>(
  detail: { record?: unknown; recordRef?: RecordRef },
  objectStore: ObjectStore,
): Promise<T> {
  if (detail.record !== undefined) return detail.record as T;
  const ref = detail.recordRef;
  if (!ref) throw new RecordRefError('(none)', 'the detail has neither record nor recordRef');
  const stream = await objectStore.get(ref.key);
  if (!stream) throw new RecordRefError(ref.key, 'object not found');
  const body = await readStream(stream);
  const actual = createHash('sha256').update(body).digest('hex');
  if (actual !== ref.sha256) throw new RecordRefError(ref.key, 'sha256 does not match');
  return JSON.parse(body.toString('utf8')) as T;
}
