/**
 * One run of the ISDOC archive: its ports, the document as the service holds it, and how a run
 * ends early (an outcome) or fails (`Action.Failed`).
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import type { CollectionName, IsdocRecordType } from '#functions/accounting/collections.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import type { Problem, SourceRef } from '#functions/core/events/action-events.js';
import type { Clock, EventPublisher, Logger, ObjectStore } from '#functions/core/ports.js';
import { type ActionEvent, resolveRecord, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { type ActionOutcome, type OutcomeContext, problemOf, publishFailure } from '../outcomes.js';
import type { IsdocSchema } from '../ports.js';
import type { IsdocVerdict } from './isdoc-validation.js';

export const ARCHIVE_ACTION = 'archive.isdoc';

export interface ArchiveDeps {
  api: AccountingApi;
  objects: ObjectStore;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  /** The official ISDOC schema check. */
  schema: IsdocSchema;
  config: Pick<ActionsConfig, 'isdoc' | 'archiveBucket' | 'eventSource' | 'connection'>;
}

/** One archive run: the event, the document as the service holds it, and how to report. */
export interface ArchiveRun {
  deps: ArchiveDeps;
  event: ActionEvent;
  recordType: IsdocRecordType;
  /** The collection of the record type (`IssuedInvoices`, `IssuedAdvanceInvoices`). */
  collection: CollectionName;
  record: ApiRecord;
  documentNumber: string;
  ctx: OutcomeContext;
  log: Record<string, string>;
}

/** An early end of a run: its outcome. */
export const isOutcome = (value: unknown): value is ActionOutcome =>
  typeof value === 'object' && value !== null && 'status' in value;

export async function fail(run: ArchiveRun, problem: Problem): Promise<ActionOutcome> {
  run.deps.logger.warn('isdoc archive failed', { ...run.log, kind: problem.kind, message: problem.message });
  await publishFailure(run.deps, run.ctx, problem);
  return { status: 'failed', reason: problem.kind };
}

/** The document from the service: the run, or why there is nothing to archive. */
export async function startRun(
  deps: ArchiveDeps,
  event: ActionEvent,
  recordType: IsdocRecordType,
  collection: CollectionName,
): Promise<ArchiveRun | ActionOutcome> {
  const { envelope } = event;
  let record: ApiRecord;
  try {
    record = await resolveRecord(deps.api, envelope);
  } catch (error) {
    if (error instanceof NotFoundError) return { status: 'skipped', reason: 'document not found' };
    throw error;
  }
  const documentNumber = stringField(record, 'DocumentNumber');
  const source: SourceRef = {
    recordType,
    id: envelope.id,
    documentNumber,
    modifiedDate: envelope.modifiedDate,
  };
  const ctx: OutcomeContext = { action: ARCHIVE_ACTION, event, source };
  const log = { action: ARCHIVE_ACTION, recordId: envelope.id, eventId: event.eventId };
  const run = { deps, event, recordType, collection, record, documentNumber: documentNumber ?? '', ctx, log };
  if (!documentNumber) return fail(run, problemOf('invalidDocument', 'the document has no DocumentNumber'));
  return run;
}

/** The downloaded ISDOC, buffered, with the schema's verdict. */
export interface Checked {
  bytes: Buffer;
  verdict: IsdocVerdict;
}
