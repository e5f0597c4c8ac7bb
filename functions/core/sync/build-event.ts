/**
 * Builds the bus event of one record change, switching to a claim check (`recordRef`) when the
 * event would exceed the size limit.
 */
import type { RecordType } from '#functions/accounting/collections.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import { eventEntryOverflow, storeClaim } from '../events/claim-check.js';
import {
  type ChangeKind,
  idempotencyKey,
  type RecordDetailType,
  recordDetailType,
} from '../events/envelope.js';
import type { BusEvent, ObjectStore } from '../ports.js';

/** A record is too large for one event and no object store is configured for claim checks. */
export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
  constructor(
    readonly detailType: RecordDetailType,
    readonly id: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      `event ${detailType} of '${id}' is ${size} bytes (limit ${limit}) and no object store is configured`,
    );
  }
}

export interface EventContext {
  connection: string;
  source: string;
  maxEventBytes: number;
  objectStore?: ObjectStore;
  claimPrefix: string;
  claimBucket?: string;
}

export interface RecordChange {
  recordType: RecordType;
  id: string;
  change: ChangeKind;
  /** The service's ModifiedDate verbatim, or `null` (reference records, deletions). */
  modifiedDate: string | null;
  /** What tells versions apart for the idempotency key: ModifiedDate, `content:<sha256>` or `deleted`. */
  version: string;
  record: Record<string, unknown>;
  /** Event time: the service's ModifiedDate when there is one. */
  time?: Date;
}

export async function buildRecordEvent(
  ctx: EventContext,
  change: RecordChange,
): Promise<{ event: BusEvent; claimChecked: boolean }> {
  const detailType = recordDetailType(change.recordType, change.change);
  const base = {
    version: ENVELOPE_VERSION,
    connection: ctx.connection,
    recordType: change.recordType,
    id: change.id,
    change: change.change,
    modifiedDate: change.modifiedDate,
    idempotencyKey: idempotencyKey(ctx.connection, change.recordType, change.id, change.version),
  };
  const event: BusEvent = {
    source: ctx.source,
    detailType,
    detail: { ...base, record: change.record },
    ...(change.time ? { time: change.time } : {}),
  };
  const size = eventEntryOverflow(event, ctx.maxEventBytes);
  if (size === undefined) return { event, claimChecked: false };
  if (!ctx.objectStore) throw new EventTooLargeError(detailType, change.id, size, ctx.maxEventBytes);
  const recordRef = await storeClaim(
    ctx.objectStore,
    { connection: ctx.connection, recordType: change.recordType, id: change.id },
    change.record,
    { prefix: ctx.claimPrefix, ...(ctx.claimBucket ? { bucket: ctx.claimBucket } : {}) },
  );
  return { event: { ...event, detail: { ...base, recordRef } }, claimChecked: true };
}
