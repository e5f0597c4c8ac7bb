/**
 * Building and publishing action outcomes. Every detail is validated with its catalog schema
 * before it leaves, so a bug here fails loudly instead of emitting an event consumers reject.
 */
import { ApiError } from '#functions/accounting/errors.js';
import {
  actionFailedEntry,
  actionIdempotencyKey,
  type FailureKind,
  type Problem,
  type SourceRef,
} from '../events/action-events.js';
import { parseWithEntry } from '../events/catalog.js';
import { type CatalogEntry, ENVELOPE_VERSION } from '../events/catalog-entry.js';
import type { BusEvent, CatalogDetailType, Clock, EventPublisher } from '../ports.js';
import type { ActionEvent } from './action-event.js';

/** What running an action on one event came to. */
export type ActionStatus = 'done' | 'duplicate' | 'skipped' | 'failed';

export interface ActionOutcome {
  status: ActionStatus;
  reason?: string;
}

export interface OutcomeContext {
  action: string;
  event: ActionEvent;
  source: SourceRef;
}

/** What an outcome is about, when no triggering event is at hand (the scheduled tracker). */
export interface OutcomeOrigin {
  action: string;
  connection: string;
  source: SourceRef;
  /** Id of the event that started the action. */
  causationId: string;
}

/** The envelope fields every outcome shares. */
export function outcomeEnvelope(origin: OutcomeOrigin, change: string, clock: Clock, ...keyParts: string[]) {
  const { action, connection, source, causationId } = origin;
  return {
    version: ENVELOPE_VERSION,
    connection,
    recordType: source.recordType,
    id: source.id,
    change,
    action,
    source,
    causationId,
    idempotencyKey: actionIdempotencyKey(connection, action, source.id, change, ...keyParts),
    occurredAt: clock.now().toISOString(),
  };
}

/** The envelope fields every outcome shares, for an action run on `ctx.event`. */
export function outcomeBase(ctx: OutcomeContext, change: string, clock: Clock, ...keyParts: string[]) {
  const origin = {
    action: ctx.action,
    connection: ctx.event.envelope.connection,
    source: ctx.source,
    causationId: ctx.event.eventId,
  };
  return outcomeEnvelope(origin, change, clock, ...keyParts);
}

/**
 * An outcome event: its catalog entry (declared beside the action that publishes it, or
 * `Action.Failed`) instead of a bare detail-type, so the detail is checked with the entry's schema.
 */
export interface OutcomeEvent extends Omit<BusEvent, 'detailType'> {
  entry: CatalogEntry;
}

/** Validates `detail` with the schema of its catalog entry and publishes it. */
export async function publishOutcome(
  publisher: EventPublisher,
  source: string,
  entry: CatalogEntry,
  detail: unknown,
  time: Date,
): Promise<void> {
  await publishOutcomes(publisher, [{ source, entry, detail, time }]);
}

export async function publishOutcomes(publisher: EventPublisher, events: OutcomeEvent[]): Promise<void> {
  const checked = events.map(({ entry, ...e }) => ({
    ...e,
    // Every entry an action holds is a catalog entry: the catalog is composed from them.
    detailType: entry.detailType as CatalogDetailType,
    detail: entry.schema.parse(e.detail),
  }));
  if (checked.length > 0) await publisher.publish(checked);
}

/** Problem details of a failure; for an `ApiError` the service's status, title, traceId and errors. */
export function problemOf(kind: FailureKind, message: string, error?: unknown): Problem {
  if (error instanceof ApiError) {
    return {
      kind,
      message,
      status: error.status,
      ...(error.title ? { title: error.title } : {}),
      ...(error.traceId ? { traceId: error.traceId } : {}),
      ...(Object.keys(error.errors).length > 0 ? { errors: error.errors } : {}),
    };
  }
  return { kind, message };
}

export async function publishFailure(
  deps: { publisher: EventPublisher; clock: Clock },
  ctx: OutcomeContext,
  problem: Problem,
): Promise<void> {
  const detail = {
    ...outcomeBase(ctx, 'Failed', deps.clock, ctx.event.eventId, problem.kind),
    problem,
  };
  await publishOutcome(
    deps.publisher,
    ctx.event.source,
    actionFailedEntry,
    parseWithEntry(actionFailedEntry, detail),
    deps.clock.now(),
  );
}
