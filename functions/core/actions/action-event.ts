/**
 * The incoming side of every action: an EventBridge event whose `detail` is an envelope of the
 * catalog — a record or payment event of the poller, or an event the action names among its
 * `triggers` (the intake's, another action's outcome). Parsing is strict (EventBridge shape, then the catalog schema of the detail-type):
 * an event that fails it is never worth a retry.
 */
import * as z from 'zod';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { collectionOf } from '#functions/accounting/collections.js';
import { EventValidationError } from '../errors.js';
import { parseWithEntry, sourceCatalog } from '../events/catalog.js';
import type { CatalogEntry } from '../events/catalog-entry.js';
import { anyRecordEnvelopeSchema, changeKinds } from '../events/envelope.js';
import { paymentChanges } from '../events/payment-events.js';
import { InvalidActionEventError } from './errors.js';

const eventBridgeEventSchema = z.looseObject({
  id: z.string().min(1, { error: 'expected the EventBridge event id' }),
  source: z.string().min(1, { error: 'expected the event source' }),
  'detail-type': z.string().min(1, { error: 'expected a detail-type' }),
  time: z.iso.datetime({ offset: true, error: 'expected an ISO date-time' }).optional(),
  detail: z.unknown(),
});

/**
 * The envelope an action reads of its event: a record event's, a payment event's (its `change`
 * is `Paid`, `PartiallyPaid` or `Overdue`, it has no `modifiedDate` and carries no record), or a
 * bank transaction's (`Received`; the transaction is in the detail).
 */
const actionEnvelopeSchema = anyRecordEnvelopeSchema.extend({
  change: z.enum([...changeKinds, ...paymentChanges, 'Received']),
  modifiedDate: z.string().nullable().default(null),
});

/**
 * The envelope of a trigger's event (checked first by its own catalog schema): every catalog
 * envelope names its connection, record type, id, change and idempotency key.
 */
const triggerEnvelopeSchema = z.looseObject({
  version: z.number().int(),
  connection: z.string().min(1),
  recordType: z.string().min(1),
  id: z.string().min(1),
  change: z.string().regex(/^[A-Z][A-Za-z]*$/),
  idempotencyKey: z.string().min(1),
  modifiedDate: z.string().nullable().default(null),
});
export type ActionEnvelope =
  | z.infer<typeof actionEnvelopeSchema>
  | (z.infer<typeof triggerEnvelopeSchema> & { record?: undefined; recordRef?: undefined });

export interface ActionEvent {
  /** EventBridge event id: the causation id of every outcome. */
  eventId: string;
  source: string;
  detailType: string;
  /** When the event was published (deadlines of retried actions count from here). */
  time: Date | undefined;
  envelope: ActionEnvelope;
  /** The whole detail as its catalog schema parsed it (for events whose subject is not a service record). */
  detail?: unknown;
}

/**
 * Validates an EventBridge event against its catalog schema: the poller's events, and `triggers`
 * (the catalog entries of the other events the action's routes name). Throws
 * `InvalidActionEventError`.
 */
export function parseActionEvent(raw: unknown, triggers: readonly CatalogEntry[] = []): ActionEvent {
  const outer = eventBridgeEventSchema.safeParse(raw);
  if (!outer.success) {
    throw new InvalidActionEventError(
      undefined,
      outer.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`),
      { cause: outer.error },
    );
  }
  const detailType = outer.data['detail-type'];
  const trigger = sourceCatalog.isDetailType(detailType)
    ? undefined
    : triggers.find((t) => t.detailType === detailType);
  let detail: unknown;
  try {
    detail = trigger
      ? parseWithEntry(trigger, outer.data.detail)
      : sourceCatalog.parseDetail(detailType, outer.data.detail);
  } catch (error) {
    if (error instanceof EventValidationError) {
      throw new InvalidActionEventError(detailType, error.issues, { cause: error });
    }
    throw error;
  }
  const envelope = (trigger ? triggerEnvelopeSchema : actionEnvelopeSchema).safeParse(detail);
  if (!envelope.success) {
    throw new InvalidActionEventError(
      detailType,
      envelope.error.issues.map((i) => `detail.${i.path.join('.')}: ${i.message}`),
      { cause: envelope.error },
    );
  }
  return {
    eventId: outer.data.id,
    source: outer.data.source,
    detailType,
    time: outer.data.time ? new Date(outer.data.time) : undefined,
    envelope: envelope.data,
    detail,
  };
}

/**
 * The record the event is about, as the service holds it now: always read from the service (by the
 * envelope's id, whose shape the schema checked), never taken from the event. An event's copy may
 * be stale, or forged by anyone who can put events on the bus; actions act on the service's state.
 * `NotFoundError` when the record no longer exists.
 */
export async function resolveRecord(api: AccountingApi, envelope: ActionEnvelope): Promise<ApiRecord> {
  const collection = collectionOf(envelope.recordType);
  if (!collection) throw new InvalidActionEventError(envelope.recordType, ['unknown record type']);
  return api.get(collection.name as Parameters<AccountingApi['get']>[0], envelope.id);
}

/**
 * Fields of `paths` whose value in the event's copy of the record differs from the service's
 * (names only, for a log line; an event without a copy differs in nothing).
 */
export function differingFields(carried: unknown, current: ApiRecord, paths: readonly string[]): string[] {
  if (carried === undefined) return [];
  return paths.filter(
    (path) => JSON.stringify(readPath(carried, path)) !== JSON.stringify(readPath(current, path)),
  );
}

/** Reads a dotted path (`BusinessPartnerAddress.IdentificationNumber`) from a record. */
export function readPath(record: unknown, path: string): unknown {
  let node: unknown = record;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export function stringField(record: unknown, path: string): string | null {
  const value = readPath(record, path);
  return typeof value === 'string' && value.length > 0 ? value : null;
}
