/**
 * The ISDOC archive action: for each new or changed issued (advance) invoice, download its ISDOC,
 * validate it, and store it under a deterministic key with its SHA-256 and metadata.
 *
 * Why buffer (with a cap) instead of streaming straight to S3: validation needs the whole
 * document before anything is written (a half-validated object must never appear under the
 * final key), and the checksum decides whether the write is needed at all. ISDOC files are small
 * (kilobytes to a few MB); the cap (`ACTIONS_ISDOC_MAX_BYTES`, default 10 MiB) keeps memory
 * bounded, and the download is still read as a stream and aborted as soon as the cap is passed.
 * A temp file would add cleanup and /tmp contention for no gain at these sizes.
 *
 * The same version twice is a no-op: the stored object's SHA-256 is compared first, and a new
 * key is written with `If-None-Match: *` so two concurrent deliveries cannot both write it.
 */
import { createHash } from 'node:crypto';
import { type AccountingApi, type ApiRecord, isNotReady } from '../../accounting/api.js';
import { collectionOf, hasIsdoc, isdocRecordTypes } from '../../accounting/collections.js';
import { NotFoundError, ValidationError } from '../../accounting/errors.js';
import { readStream, StreamTooLargeError } from '../../shared/read-stream.js';
import { ObjectExistsError } from '../errors.js';
import { ACTION_FAILED, isdocArchivedType, type SourceRef } from '../events/action-events.js';
import { recordDetailType } from '../events/envelope.js';
import type { Clock, EventPublisher, Logger, ObjectInfo, ObjectStore } from '../ports.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from './action-definition.js';
import { type ActionEvent, resolveRecord, stringField } from './action-event.js';
import type { ActionsConfig } from './config.js';
import { IsdocInvalidError, RetryLaterError } from './errors.js';
import { validateIsdoc } from './isdoc-validation.js';
import type { ActionOutcome } from './outcomes.js';
import { type OutcomeContext, outcomeBase, problemOf, publishFailure, publishOutcome } from './outcomes.js';

export const ARCHIVE_ACTION = 'archive.isdoc';
export const ISDOC_CONTENT_TYPE = 'application/xml';

export interface ArchiveDeps {
  api: AccountingApi;
  objects: ObjectStore;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  config: Pick<ActionsConfig, 'isdoc' | 'archiveBucket' | 'eventSource'>;
}

/** A key segment: keeps letters, digits, `-`, `_`, `.`; anything else becomes `-`. */
function segment(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** `isdoc/<connection>/<type>/<yyyy>/<mm>/<DocumentNumber>_<Id>.isdoc`; year and month of the issue date. */
export function isdocKey(input: {
  connection: string;
  recordType: string;
  documentNumber: string;
  id: string;
  date: string;
}): string {
  const match = /^(\d{4})-(\d{2})/.exec(input.date);
  const [yyyy, mm] = match ? [match[1], match[2]] : ['0000', '00'];
  return `isdoc/${segment(input.connection)}/${input.recordType}/${yyyy}/${mm}/${segment(input.documentNumber)}_${segment(input.id)}.isdoc`;
}

function sameContent(info: ObjectInfo, sha256Hex: string, sha256Base64: string): boolean {
  return info.metadata.sha256 === sha256Hex || info.checksumSha256 === sha256Base64;
}

/** The existing object is of a later version than ours (so ours must not replace it). */
function isNewer(info: ObjectInfo, modifiedDate: string | null): boolean {
  const theirs = info.metadata['modified-date'];
  if (!theirs || !modifiedDate) return false;
  return Date.parse(decodeURIComponent(theirs)) > Date.parse(modifiedDate);
}

export async function archiveIsdoc(deps: ArchiveDeps, event: ActionEvent): Promise<ActionOutcome> {
  const { envelope } = event;
  const { recordType } = envelope;
  const collection = collectionOf(recordType)?.name;
  if (!hasIsdoc(recordType) || !collection) {
    return { status: 'skipped', reason: `no ISDOC for ${envelope.recordType}` };
  }
  if (!deps.config.isdoc.enabled) return { status: 'skipped', reason: 'ISDOC archive is off' };
  const log = { action: ARCHIVE_ACTION, recordId: envelope.id, eventId: event.eventId };

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
  const fail = async (problem: ReturnType<typeof problemOf>): Promise<ActionOutcome> => {
    deps.logger.warn('isdoc archive failed', { ...log, kind: problem.kind, message: problem.message });
    await publishFailure(deps, ctx, problem);
    return { status: 'failed', reason: problem.kind };
  };
  if (!documentNumber) return fail(problemOf('invalidDocument', 'the document has no DocumentNumber'));

  // 1. Download; 204 means "not ready": a few short waits here, then redelivery until the deadline.
  const { isdoc } = deps.config;
  let download: Awaited<ReturnType<AccountingApi['download']>>;
  try {
    for (let attempt = 1; ; attempt += 1) {
      download = await deps.api.download(`${collection}.isdoc`, { params: { id: envelope.id } });
      if (!isNotReady(download) || attempt >= isdoc.notReadyAttempts) break;
      await deps.clock.sleep(isdoc.notReadyDelayMs);
    }
  } catch (error) {
    if (error instanceof ValidationError) {
      return fail(problemOf('validation', 'the service refused the ISDOC export', error));
    }
    if (error instanceof NotFoundError) return { status: 'skipped', reason: 'document not found' };
    throw error;
  }
  if (isNotReady(download)) {
    const start = event.time ?? new Date(envelope.modifiedDate ?? deps.clock.now().toISOString());
    const deadline = start.getTime() + isdoc.notReadyDeadlineSeconds * 1000;
    if (deps.clock.now().getTime() >= deadline) {
      return fail(
        problemOf(
          'notReady',
          `the ISDOC export was still not ready ${isdoc.notReadyDeadlineSeconds} s after the event`,
        ),
      );
    }
    deps.logger.info('isdoc not ready', log);
    throw new RetryLaterError('ISDOC export not ready (204)', isdoc.notReadyDelayMs);
  }

  // 2. Buffer (capped) and validate before anything is written.
  let bytes: Buffer;
  try {
    bytes = await readStream(download.body, { maxBytes: isdoc.maxBytes });
  } catch (error) {
    if (error instanceof StreamTooLargeError) {
      return fail(problemOf('tooLarge', `the ISDOC export exceeds ${isdoc.maxBytes} bytes`));
    }
    throw error;
  }
  try {
    validateIsdoc(bytes.toString('utf8'), documentNumber);
  } catch (error) {
    if (error instanceof IsdocInvalidError) return fail(problemOf('invalidDocument', error.message));
    throw error;
  }

  // 3. Write once per version.
  const sha256Hex = createHash('sha256').update(bytes).digest('hex');
  const sha256Base64 = Buffer.from(sha256Hex, 'hex').toString('base64');
  const key = isdocKey({
    connection: envelope.connection,
    recordType,
    documentNumber,
    id: envelope.id,
    date:
      stringField(record, 'IssueDate') ?? record.ModificationInfo?.CreatedDate ?? envelope.modifiedDate ?? '',
  });
  const metadata = {
    'document-id': envelope.id,
    'document-number': encodeURIComponent(documentNumber),
    'modified-date': encodeURIComponent(envelope.modifiedDate ?? ''),
    'event-id': encodeURIComponent(event.eventId),
    sha256: sha256Hex,
  };
  const put = (ifNoneMatch: boolean) =>
    deps.objects.put({
      key,
      body: bytes,
      contentType: ISDOC_CONTENT_TYPE,
      contentLength: bytes.length,
      checksumSha256: sha256Base64,
      metadata,
      ifNoneMatch,
    });

  const decide = async (): Promise<'write-new' | 'replace' | 'same' | 'stale' | 'republish'> => {
    const existing = await deps.objects.head(key);
    if (!existing) return 'write-new';
    if (sameContent(existing, sha256Hex, sha256Base64)) {
      // Written by an earlier attempt of this very event (which then failed to publish): publish again.
      return existing.metadata['event-id'] === metadata['event-id'] ? 'republish' : 'same';
    }
    return isNewer(existing, envelope.modifiedDate) ? 'stale' : 'replace';
  };
  let decision = await decide();
  if (decision === 'write-new') {
    try {
      await put(true);
    } catch (error) {
      if (!(error instanceof ObjectExistsError)) throw error;
      // Someone wrote the key between our check and our write: compare again.
      decision = await decide();
      if (decision === 'write-new') decision = 'replace';
      if (decision === 'replace') await put(false);
    }
  } else if (decision === 'replace') {
    // A new version of the document: the bucket is versioned, the earlier version stays retrievable.
    await put(false);
  }
  if (decision === 'same' || decision === 'stale') {
    deps.logger.info('isdoc already archived', { ...log, key, decision });
    return { status: 'duplicate', reason: decision === 'same' ? 'same checksum' : 'newer version stored' };
  }

  // 4. Optional PDF beside it (streamed; not validated).
  let pdfKey: string | undefined;
  const wantedPdfKey = key.replace(/\.isdoc$/, '.pdf');
  // On a re-announcement the PDF is written only if the earlier attempt did not get to it.
  if (isdoc.pdf && decision === 'republish' && (await deps.objects.head(wantedPdfKey))) {
    pdfKey = wantedPdfKey;
  } else if (isdoc.pdf) {
    const pdf = await deps.api.download(`${collection}.pdf`, {
      params: { id: envelope.id },
      query: { Language: 'Current' },
    });
    if (isNotReady(pdf)) {
      deps.logger.warn('pdf not ready, archived isdoc only', log);
    } else {
      pdfKey = wantedPdfKey;
      await deps.objects.put({
        key: pdfKey,
        body: pdf.body,
        contentType: 'application/pdf',
        ...(pdf.contentLength !== undefined ? { contentLength: pdf.contentLength } : {}),
        metadata,
      });
    }
  }

  await publishOutcome(
    deps.publisher,
    event.source,
    isdocArchivedType(recordType),
    {
      ...outcomeBase(ctx, 'IsdocArchived', deps.clock, sha256Hex),
      documentNumber,
      archive: {
        ...(deps.config.archiveBucket ? { bucket: deps.config.archiveBucket } : {}),
        key,
        sha256: sha256Hex,
        size: bytes.length,
        contentType: ISDOC_CONTENT_TYPE,
        ...(pdfKey ? { pdfKey } : {}),
      },
    },
    deps.clock.now(),
  );
  if (decision === 'republish') {
    // Nothing written: only the announcement of an earlier attempt of this event is repeated (same key).
    deps.logger.info('isdoc archive re-announced', { ...log, key });
    return { status: 'duplicate', reason: 're-announced' };
  }
  deps.logger.info('isdoc archived', { ...log, key, size: bytes.length });
  return { status: 'done' };
}

/** The registry entry (registry.ts): one route for the ISDOC record types while the archive is on. */
export const archiveIsdocAction = defineEventAction({
  name: 'archive-isdoc',
  uses: ['archive'],
  outcomes: [...isdocRecordTypes.map(isdocArchivedType), ACTION_FAILED],
  deps: (p): ArchiveDeps => ({ ...actionContextDeps(p), objects: p.archive }),
  run: (deps: ArchiveDeps) => (event) => archiveIsdoc(deps, event),
  routes: (config) =>
    config.isdoc.enabled
      ? [
          {
            id: 'archive-isdoc',
            description:
              'Archive the ISDOC (and optionally the PDF) of each new or changed issued (advance) invoice to S3.',
            pattern: {
              source: eventSourceOf(config),
              'detail-type': isdocRecordTypes.flatMap((t) => [
                recordDetailType(t, 'Created'),
                recordDetailType(t, 'Updated'),
              ]),
            },
            maxConcurrency: 4,
            // 204 "not ready" is retried by redelivery until the deadline, so allow more receives.
            maxReceiveCount: 12,
            timeoutSeconds: 60,
          },
        ]
      : [],
});
