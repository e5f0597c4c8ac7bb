/**
 * The ISDOC archive action: for each new or changed issued (advance) invoice, download its ISDOC,
 * check it (structure, then the official ISDOC 6.0.2 schema), and store it under a deterministic
 * key with its SHA-256, the schema's verdict (`isdoc-schema: valid|invalid`) and metadata. A
 * document the schema rejects is archived with the verdict `invalid` and announced so; with
 * `ACTIONS_ISDOC_SCHEMA_STRICT` it is refused (`Action.Failed`) and kept under `rejected/` instead.
 *
 * Why buffer (with a cap) instead of streaming straight to S3: validation needs the whole document
 * before anything is written (a half-validated object must never appear under the final key), and
 * the checksum decides whether the write is needed at all. ISDOC files are small; the cap
 * (`ACTIONS_ISDOC_MAX_BYTES`, default 10 MiB) keeps memory bounded, and the download is aborted
 * as soon as the cap is passed. A temp file would add cleanup for no gain at these sizes.
 *
 * The same version twice is a no-op: the stored object's SHA-256 is compared first, and a new
 * key is written with `If-None-Match: *` so two concurrent deliveries cannot both write it.
 *
 * The run's ports and document are `archive-run.ts`; the object's key, metadata and write once per
 * version are `isdoc-object.ts`.
 */
import type { Readable } from 'node:stream';
import { type AccountingApi, isNotReady } from '#functions/accounting/api.js';
import { collectionOf, hasIsdoc } from '#functions/accounting/collections.js';
import { NotFoundError, ValidationError } from '#functions/accounting/errors.js';
import { readStream, StreamTooLargeError } from '#functions/shared/read-stream.js';
import type { ActionEvent } from '../action-event.js';
import { IsdocInvalidError, RetryLaterError } from '../errors.js';
import type { ActionOutcome } from '../outcomes.js';
import { outcomeBase, problemOf, publishOutcome } from '../outcomes.js';
import { type ArchiveDeps, type ArchiveRun, type Checked, fail, isOutcome, startRun } from './archive-run.js';
import { isdocArchivedEntry } from './events.js';
import { REJECTED_KEY_PREFIX } from './isdoc-key.js';
import { ISDOC_CONTENT_TYPE, objectOf, type Stored, storeOnce } from './isdoc-object.js';
import { checkIsdoc, type IsdocVerdict } from './isdoc-validation.js';

/** 1. Download; 204 means "not ready": a few short waits here, then redelivery until the deadline. */
async function downloadIsdoc(run: ArchiveRun): Promise<Readable | ActionOutcome> {
  const { deps, event, collection } = run;
  const { isdoc } = deps.config;
  let download: Awaited<ReturnType<AccountingApi['isdoc']>>;
  try {
    for (let attempt = 1; ; attempt += 1) {
      download = await deps.api.isdoc({ collection, id: event.envelope.id });
      if (!isNotReady(download) || attempt >= isdoc.notReadyAttempts) break;
      await deps.clock.sleep(isdoc.notReadyDelayMs);
    }
  } catch (error) {
    if (error instanceof ValidationError) {
      return fail(run, problemOf('validation', 'the service refused the ISDOC export', error));
    }
    if (error instanceof NotFoundError) return { status: 'skipped', reason: 'document not found' };
    throw error;
  }
  if (!isNotReady(download)) return download.body;
  const start = event.time ?? new Date(event.envelope.modifiedDate ?? deps.clock.now().toISOString());
  const deadline = start.getTime() + isdoc.notReadyDeadlineSeconds * 1000;
  if (deps.clock.now().getTime() >= deadline) {
    const message = `the ISDOC export was still not ready ${isdoc.notReadyDeadlineSeconds} s after the event`;
    return fail(run, problemOf('notReady', message));
  }
  deps.logger.info('isdoc not ready', run.log);
  throw new RetryLaterError('ISDOC export not ready (204)', isdoc.notReadyDelayMs);
}

/** 2. Buffer (capped) and check before anything is written: structure, then the schema. */
async function readCheckedIsdoc(run: ArchiveRun, body: Readable): Promise<Checked | ActionOutcome> {
  const { maxBytes } = run.deps.config.isdoc;
  let bytes: Buffer;
  try {
    bytes = await readStream(body, { maxBytes });
  } catch (error) {
    if (error instanceof StreamTooLargeError) {
      return fail(run, problemOf('tooLarge', `the ISDOC export exceeds ${maxBytes} bytes`));
    }
    throw error;
  }
  let verdict: IsdocVerdict;
  try {
    verdict = await checkIsdoc(bytes, run.documentNumber, run.deps.schema);
  } catch (error) {
    if (error instanceof IsdocInvalidError) return fail(run, problemOf('invalidDocument', error.message));
    throw error;
  }
  if (!verdict.valid) {
    run.deps.logger.warn('isdoc fails the schema', {
      ...run.log,
      schema: verdict.schema,
      errorCount: verdict.errorCount,
      firstError: verdict.errors[0] ?? '',
      strict: run.deps.config.isdoc.schemaStrict,
    });
  }
  return { bytes, verdict };
}

/**
 * Strict mode, a document the schema rejects: kept under `rejected/` for inspection (a later
 * delivery writes a new version), then refused with the schema's first errors.
 */
async function reject(run: ArchiveRun, checked: Checked): Promise<ActionOutcome> {
  const { key, sha256Base64, metadata } = objectOf(run, checked);
  const rejectedKey = `${REJECTED_KEY_PREFIX}${key}`;
  await run.deps.objects.put({
    key: rejectedKey,
    body: checked.bytes,
    contentType: ISDOC_CONTENT_TYPE,
    contentLength: checked.bytes.length,
    checksumSha256: sha256Base64,
    metadata,
  });
  const { verdict } = checked;
  const message = `the ISDOC fails the ${verdict.schema} schema (${verdict.errorCount} error${
    verdict.errorCount === 1 ? '' : 's'
  }): ${verdict.errors.slice(0, 3).join('; ')}; kept as ${rejectedKey}`;
  return fail(run, { ...problemOf('invalidDocument', message), errors: { schema: verdict.errors } });
}

/** 4. Optional PDF beside it (streamed; not validated); on a re-announcement only if still missing. */
async function archivePdf(run: ArchiveRun, stored: Stored): Promise<string | undefined> {
  const { deps, event, collection } = run;
  if (!deps.config.isdoc.pdf) return undefined;
  const pdfKey = stored.key.replace(/\.isdoc$/, '.pdf');
  if (stored.decision === 'republish' && (await deps.objects.head(pdfKey))) return pdfKey;
  const pdf = await deps.api.pdf({ collection, id: event.envelope.id, language: 'Current' });
  if (isNotReady(pdf)) {
    deps.logger.warn('pdf not ready, archived isdoc only', run.log);
    return undefined;
  }
  await deps.objects.put({
    key: pdfKey,
    body: pdf.body,
    contentType: 'application/pdf',
    ...(pdf.contentLength !== undefined ? { contentLength: pdf.contentLength } : {}),
    metadata: stored.metadata,
  });
  return pdfKey;
}

async function announceArchived(
  run: ArchiveRun,
  stored: Stored,
  verdict: IsdocVerdict,
  pdfKey: string | undefined,
) {
  const { deps, event } = run;
  await publishOutcome(
    deps.publisher,
    event.source,
    isdocArchivedEntry(run.recordType),
    {
      ...outcomeBase(run.ctx, 'IsdocArchived', deps.clock, stored.sha256Hex),
      documentNumber: run.documentNumber,
      archive: {
        ...(deps.config.archiveBucket ? { bucket: deps.config.archiveBucket } : {}),
        key: stored.key,
        sha256: stored.sha256Hex,
        size: stored.bytes.length,
        contentType: ISDOC_CONTENT_TYPE,
        ...(pdfKey ? { pdfKey } : {}),
      },
      schema: verdict.schema,
      schemaValid: verdict.valid,
      schemaErrors: verdict.errors,
      schemaErrorCount: verdict.errorCount,
    },
    deps.clock.now(),
  );
}

export async function archiveIsdoc(deps: ArchiveDeps, event: ActionEvent): Promise<ActionOutcome> {
  const { recordType } = event.envelope;
  const collection = collectionOf(recordType)?.name;
  if (!hasIsdoc(recordType) || !collection) {
    return { status: 'skipped', reason: `no ISDOC for ${recordType}` };
  }
  if (!deps.config.isdoc.enabled) return { status: 'skipped', reason: 'ISDOC archive is off' };
  const run = await startRun(deps, event, recordType, collection);
  if (isOutcome(run)) return run;
  const body = await downloadIsdoc(run);
  if (isOutcome(body)) return body;
  const checked = await readCheckedIsdoc(run, body);
  if (isOutcome(checked)) return checked;
  if (!checked.verdict.valid && deps.config.isdoc.schemaStrict) return reject(run, checked);
  const stored = await storeOnce(run, checked);
  if (stored.decision === 'same' || stored.decision === 'stale') {
    deps.logger.info('isdoc already archived', { ...run.log, key: stored.key, decision: stored.decision });
    return {
      status: 'duplicate',
      reason: stored.decision === 'same' ? 'same checksum' : 'newer version stored',
    };
  }
  await announceArchived(run, stored, checked.verdict, await archivePdf(run, stored));
  if (stored.decision === 'republish') {
    // Nothing written: only the announcement of an earlier attempt of this event is repeated (same key).
    deps.logger.info('isdoc archive re-announced', { ...run.log, key: stored.key });
    return { status: 'duplicate', reason: 're-announced' };
  }
  deps.logger.info('isdoc archived', {
    ...run.log,
    key: stored.key,
    size: checked.bytes.length,
    schemaValid: checked.verdict.valid,
  });
  return { status: 'done' };
}
