/**
 * The record of a finished e-invoice sending, kept beside the invoice's archived ISDOC for as long
 * as the archive keeps it: `<isdoc key>.<sending id>.einvoice.json`, one object per sending (an
 * invoice rejected, fixed and sent again has two). The ISDOC itself is never rewritten (Object Lock
 * forbids it, and its metadata cannot change without a rewrite), so what the network answered
 * lives in this sidecar: the sending id, the final transport status, the Invoice Response code or
 * the Message Level Status with its reasons and rule ids, and when.
 *
 * Written once, with `If-None-Match: *`: a pass repeated after a crash finds it written and is
 * done; the tracker may write it and nothing else of the archive (a write-only grant on these keys).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { AccountingApi } from '#functions/accounting/api.js';
import { collectionOf } from '#functions/accounting/collections.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import { ObjectExistsError } from '#functions/core/errors.js';
import type { Clock, Logger, ObjectStore } from '#functions/core/ports.js';
import { isdocKey, isdocKeyOfRecord } from '../archive-isdoc/isdoc-key.js';
import type { OpenSending } from '../open-sendings.js';
import { mlsStatusSchema } from './events.js';

/** What ends every sending record's key (the tracker's grant is on `isdoc/*` + this). */
export const SENDING_RECORD_SUFFIX = '.einvoice.json';

export const SENDING_RECORD_CONTENT_TYPE = 'application/json';

/** The sidecar's key: beside the ISDOC, naming the sending. */
export function sendingRecordKey(isdoc: string, sendingId: string): string {
  return `${isdoc}.${sendingId}${SENDING_RECORD_SUFFIX}`;
}

export const sendingRecordSchema = z.object({
  recordVersion: z.literal(1),
  connection: z.string().min(1),
  recordType: z.string().min(1),
  documentId: z.string().min(1),
  documentNumber: z.string().nullable(),
  /** The archived ISDOC this record belongs to. */
  isdocKey: z.string().min(1),
  sendingId: z.string().min(1),
  /** How the network answered: `mls` (Message Level Status, the Slovak leg) or `invoice-response`. */
  network: z.enum(['mls', 'invoice-response']),
  /** The final transport status (`Delivered`, `Rejected`, `TransportFailed`, `Unknown`, …). */
  status: z.string().min(1),
  /** The Invoice Response code where the network gives one (outside Slovakia), else null. */
  responseCode: z.string().nullable(),
  /** The final Message Level Status: AP, AB or RE with its reasons; null where the network gives none. */
  mls: mlsStatusSchema.nullable(),
  /** Every rule id the network's reasons name, in order, once. */
  ruleIds: z.array(z.string()),
  sentAt: z.string(),
  /** When the network says the final status was reached, where it says. */
  statusDate: z.string().nullable(),
  /** When the tracker saw it. */
  recordedAt: z.string(),
});
export type SendingRecord = z.infer<typeof sendingRecordSchema>;

/** The final step of a sending, as the tracker saw it. */
export interface FinalStep {
  status: string;
  code: string | null;
  mls: z.infer<typeof mlsStatusSchema> | null;
  date: string | null;
}

export interface SendingRecordDeps {
  api: AccountingApi;
  records: ObjectStore;
  clock: Clock;
  logger: Logger;
}

/** The ISDOC key of a sending: from its registered date, else from the invoice (older items). */
async function isdocKeyOf(deps: SendingRecordDeps, sending: OpenSending): Promise<string | undefined> {
  const { source, connection } = sending;
  const identity = {
    connection,
    recordType: source.recordType,
    documentNumber: source.documentNumber ?? '',
    id: source.id,
  };
  if (sending.isdocDate !== undefined) return isdocKey({ ...identity, date: sending.isdocDate });
  const collection = collectionOf(source.recordType);
  if (!collection) return undefined;
  try {
    const record = await deps.api.get(collection.name as Parameters<AccountingApi['get']>[0], source.id);
    return isdocKeyOfRecord({ ...identity, record, modifiedDate: source.modifiedDate });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export function sendingRecordOf(
  sending: OpenSending,
  isdoc: string,
  step: FinalStep,
  recordedAt: Date,
): SendingRecord {
  const ruleIds = [...new Set((step.mls?.reasons ?? []).flatMap((r) => r.ruleIds))];
  return sendingRecordSchema.parse({
    recordVersion: 1,
    connection: sending.connection,
    recordType: sending.source.recordType,
    documentId: sending.source.id,
    documentNumber: sending.source.documentNumber,
    isdocKey: isdoc,
    sendingId: sending.sendingId,
    network: step.mls ? 'mls' : 'invoice-response',
    status: step.status,
    responseCode: step.code,
    mls: step.mls,
    ruleIds,
    sentAt: sending.sentAt,
    statusDate: step.date,
    recordedAt: recordedAt.toISOString(),
  });
}

/**
 * Writes the record of a finished sending once. Already written (an earlier pass that stopped
 * before saving): done. An invoice the service no longer holds, of a sending registered before
 * the key was kept, has no ISDOC key to write beside: logged, and the pass goes on.
 */
export async function writeSendingRecord(
  deps: SendingRecordDeps,
  sending: OpenSending,
  step: FinalStep,
): Promise<'written' | 'present' | 'unplaced'> {
  const isdoc = await isdocKeyOf(deps, sending);
  if (!isdoc) {
    deps.logger.warn('einvoice sending record not placed', {
      sendingId: sending.sendingId,
      recordId: sending.source.id,
    });
    return 'unplaced';
  }
  const body = Buffer.from(
    `${JSON.stringify(sendingRecordOf(sending, isdoc, step, deps.clock.now()), null, 2)}\n`,
  );
  const key = sendingRecordKey(isdoc, sending.sendingId);
  try {
    await deps.records.put({
      key,
      body,
      contentType: SENDING_RECORD_CONTENT_TYPE,
      contentLength: body.length,
      checksumSha256: createHash('sha256').update(body).digest('base64'),
      metadata: { 'sending-id': sending.sendingId, 'document-id': sending.source.id },
      ifNoneMatch: true,
    });
  } catch (error) {
    if (error instanceof ObjectExistsError) return 'present';
    throw error;
  }
  deps.logger.info('einvoice sending record written', { key, sendingId: sending.sendingId });
  return 'written';
}
