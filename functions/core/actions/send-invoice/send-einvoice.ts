/**
 * The e-invoicing channel of the sending action: the request through the network
 * (`Documents.sendEInvoice`), preceded by an intent in the open sendings and followed by the
 * sending's registration for the status tracker (`einvoice-tracking.ts`). Each touches the one
 * shard of the invoice (`sendingKey`); the duplicate check also reads the legacy unsharded item.
 */
import type { EInvoiceSending } from '#functions/accounting/answers.js';
import { OutcomeUnknownError, SchemaMismatchError } from '#functions/accounting/errors.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { isdocDateOf } from '../archive-isdoc/isdoc-key.js';
import {
  INTENT_LIMIT_BYTES,
  legacyTrackingKey,
  type OpenSending,
  type OpenSendings,
  openSendingsBytes,
  openSendingsSchema,
  recentlyFinished,
  SHARD_LIMIT_BYTES,
  sendingKey,
  updateOpenSendings,
} from '../open-sendings.js';
import { reportOutcomeUnknown, type SendRecordResult, type SendRun } from './sending-run.js';

type SendingStart = { kind: 'go' } | { kind: 'sent'; sendingId: string } | { kind: 'unknown' };

/** What an item says about the invoice `recordId`: sent already, interrupted, or free to go. */
function startFrom(current: OpenSendings, recordId: string, now: Date): SendingStart {
  const sent =
    current.sendings.find((s) => s.source.id === recordId) ??
    recentlyFinished(current, now).find((f) => f.recordId === recordId);
  if (sent) return { kind: 'sent', sendingId: sent.sendingId };
  if ((current.intents ?? []).some((i) => i.recordId === recordId)) return { kind: 'unknown' };
  return { kind: 'go' };
}

/**
 * The unsharded item an older version wrote: a sending or intent of the invoice there counts as
 * in its shard. An intent is removed once reported; nothing is ever added to that item.
 */
async function legacyStart(
  store: CheckpointStore<OpenSendings>,
  connection: string,
  recordId: string,
  now: Date,
): Promise<SendingStart> {
  const key = legacyTrackingKey(connection);
  const stored = await store.get(key);
  if (!stored) return { kind: 'go' };
  const start = startFrom(openSendingsSchema.parse(stored.value), recordId, now);
  if (start.kind === 'unknown') {
    await updateOpenSendings(store, key, (current) => ({
      intents: (current.intents ?? []).filter((i) => i.recordId !== recordId),
    }));
  }
  return start;
}

/**
 * Before an e-invoice request: a sending of the invoice already registered (a run killed after it,
 * before its idempotency record completed) is reused; an intent left by a run killed around the
 * request makes the outcome unknown; else an intent is written and the request may go. An intent
 * that does not fit its shard throws `OpenSendingsFullError` before anything is sent.
 */
async function beginSending(
  store: CheckpointStore<OpenSendings>,
  connection: string,
  recordId: string,
  now: Date,
): Promise<SendingStart> {
  const legacy = await legacyStart(store, connection, recordId, now);
  if (legacy.kind !== 'go') return legacy;
  let start: SendingStart = { kind: 'go' };
  await updateOpenSendings(
    store,
    sendingKey(connection, recordId),
    (current) => {
      start = startFrom(current, recordId, now);
      const others = (current.intents ?? []).filter((i) => i.recordId !== recordId);
      return {
        intents: start.kind === 'go' ? [...others, { recordId, at: now.toISOString() }] : others,
        finished: recentlyFinished(current, now),
      };
    },
    INTENT_LIMIT_BYTES,
  );
  return start;
}

/** Removes the intent of a request known not to have been sent. */
export async function endSending(
  store: CheckpointStore<OpenSendings>,
  connection: string,
  recordId: string,
): Promise<void> {
  await updateOpenSendings(store, sendingKey(connection, recordId), (current) => ({
    intents: (current.intents ?? []).filter((i) => i.recordId !== recordId),
  }));
}

/** Registers a sent invoice for tracking; a failure is logged, never a reason to send again. */
async function registerSending(run: SendRun, store: CheckpointStore<OpenSendings>, sendingId: string) {
  const { deps, event } = run;
  const { envelope } = event;
  const now = deps.clock.now();
  const entry: OpenSending = {
    sendingId,
    connection: envelope.connection,
    eventSource: event.source,
    source: run.source,
    causationId: event.eventId,
    sentAt: now.toISOString(),
    deadline: new Date(now.getTime() + deps.config.sending.trackingDeadlineSeconds * 1000).toISOString(),
    emitted: 0,
    lastStatus: null,
    lastCode: null,
    isdocDate: isdocDateOf(run.record, envelope.modifiedDate),
  };
  try {
    const key = sendingKey(envelope.connection, envelope.id);
    const next = await updateOpenSendings(store, key, (current) => ({
      sendings: current.sendings.some((s) => s.sendingId === entry.sendingId)
        ? current.sendings
        : [...current.sendings, entry],
      intents: (current.intents ?? []).filter((i) => i.recordId !== envelope.id),
    }));
    const bytes = openSendingsBytes(next);
    if (bytes > SHARD_LIMIT_BYTES / 2) {
      deps.logger.warn('einvoice sendings shard filling', {
        key,
        open: next.sendings.length,
        bytes,
        limitBytes: SHARD_LIMIT_BYTES,
      });
    }
  } catch (error) {
    // The invoice was sent: never let this failure cause a second sending.
    deps.logger.error('einvoice sending not registered for tracking', {
      ...run.log,
      sendingId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * The service accepted the sending (2xx) but its answer gives no usable SendingId: it cannot be
 * tracked, and throwing here would remove the idempotency record and send the invoice again.
 */
async function notUnderstood(
  run: SendRun,
  store: CheckpointStore<OpenSendings>,
  error: SchemaMismatchError,
): Promise<SendRecordResult> {
  const { connection, id } = run.event.envelope;
  const issues = [`${error.field}: ${error.expected}`];
  run.deps.logger.error('einvoice sent but answer not understood', { ...run.log, issues });
  await endSending(store, connection, id).catch(() => {});
  return reportOutcomeUnknown(
    run,
    `the service accepted the sending but its answer was not understood (${issues.join('; ')}); the status cannot be tracked`,
  );
}

/** The guarded e-invoice sending: intent, request, registration. */
export async function sendEInvoiceOnce(
  run: SendRun,
  store: CheckpointStore<OpenSendings>,
): Promise<SendRecordResult> {
  const { deps, event } = run;
  const { connection, id } = event.envelope;
  const before = await beginSending(store, connection, id, deps.clock.now());
  if (before.kind === 'sent') return { result: 'sent', sendingId: before.sendingId };
  if (before.kind === 'unknown') {
    deps.logger.error('einvoice sending interrupted earlier; not sent again', run.log);
    return reportOutcomeUnknown(
      run,
      'an earlier attempt stopped after it may have sent the invoice; not sent again, check it',
    );
  }
  let answer: EInvoiceSending;
  try {
    answer = await deps.api.sendEInvoice(run.params);
  } catch (error) {
    if (error instanceof SchemaMismatchError) return notUnderstood(run, store, error);
    // Known not to be sent (else OutcomeUnknownError): a redelivery may send it.
    if (!(error instanceof OutcomeUnknownError)) await endSending(store, connection, id);
    throw error;
  }
  await registerSending(run, store, answer.SendingId);
  deps.logger.info('invoice sent as einvoice', { ...run.log, sendingId: answer.SendingId });
  return { result: 'sent', sendingId: answer.SendingId };
}
