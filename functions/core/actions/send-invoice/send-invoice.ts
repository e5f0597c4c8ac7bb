/**
 * The sending action: it reads the invoice from the service first and acts only on that record —
 * the channel, the recipient and whether the invoice still exists come from the service, never
 * from the event's copy. A new issued invoice of a partner configured for e-invoicing goes through
 * the network (`Documents.sendEInvoice`) and is registered for status tracking; one of a partner
 * configured for e-mail is sent by `Documents.sendEmail`. The channel is chosen by the partner
 * key (`ACTIONS_PARTNER_FIELD` of the invoice) — the same settings the routing table filters on.
 *
 * Sending carries no idempotency key at the service and leaves no domain state we can read back,
 * so a sending is guarded by an idempotency record keyed by channel + invoice id and, once the
 * request may have reached the service, is never repeated: an unknown outcome becomes
 * `Action.Failed` (kind `outcomeUnknown`) for a person to check, not a second sending.
 *
 * An invoice made from an e-shop order whose partner was matched on checkout input is not sent:
 * `IssuedInvoice.SendingHeld` says it waits for a person (`sending-hold.ts`).
 */
import type { ApiRecord } from '../../../accounting/api.js';
import { NotFoundError, OutcomeUnknownError, ValidationError } from '../../../accounting/errors.js';
import type { SourceRef } from '../../events/action-events.js';
import { recordDetailType } from '../../events/envelope.js';
import { nestedFilter, type RouteSpec, recordOrClaimCheck } from '../../route-spec.js';
import { eventSourceOf } from '../action-definition.js';
import { type ActionEvent, differingFields, resolveRecord, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, RetryLaterError } from '../errors.js';
import { type ActionOutcome, outcomeBase, problemOf, publishFailure, publishOutcome } from '../outcomes.js';
import { holdIfPartnerFromCheckout } from '../sending-hold.js';
import { EINVOICE_ACTION } from '../track-einvoices/einvoice-tracking.js';
import { emailSentEntry } from './events.js';
import { endSending, sendEInvoiceOnce } from './send-einvoice.js';
import {
  announce,
  type Channel,
  reportOutcomeUnknown,
  type SendDeps,
  type SendRecordResult,
  type SendRun,
} from './sending-run.js';

export type { Channel, SendDeps } from './sending-run.js';

export const EMAIL_ACTION = 'send.email';

/** Which channel the settings choose for this invoice, if any. */
export function channelFor(config: Pick<ActionsConfig, 'sending'>, record: ApiRecord): Channel | undefined {
  const key = stringField(record, config.sending.partnerField);
  if (key === null) return undefined;
  if (config.sending.einvoicePartners.includes(key)) return { kind: 'einvoice' };
  const email = config.sending.emailPartners.find((p) => p.key === key);
  if (email) return email.to ? { kind: 'email', to: email.to } : { kind: 'email' };
  return undefined;
}

/** The invoice as the service holds it and its channel: the run, or why nothing is sent. */
async function startRun(deps: SendDeps, event: ActionEvent): Promise<SendRun | ActionOutcome> {
  const { envelope } = event;
  let record: ApiRecord;
  try {
    record = await resolveRecord(deps.api, envelope);
  } catch (error) {
    if (error instanceof NotFoundError) return { status: 'skipped', reason: 'invoice not found' };
    throw error;
  }
  // The service's record decides channel, recipient and number; a different copy in the event is only reported.
  const differing = differingFields(envelope.record, record, [
    deps.config.sending.partnerField,
    'BusinessPartnerAddress.Email',
    'DocumentNumber',
    'ModificationInfo.ModifiedDate',
  ]);
  if (differing.length > 0) {
    deps.logger.warn('event record differs from the service', {
      recordId: envelope.id,
      eventId: event.eventId,
      fields: differing,
    });
  }
  const channel = channelFor(deps.config, record);
  if (!channel) return { status: 'skipped', reason: 'partner not configured for sending' };
  const action = channel.kind === 'einvoice' ? EINVOICE_ACTION : EMAIL_ACTION;
  const documentNumber = stringField(record, 'DocumentNumber');
  const source: SourceRef = {
    recordType: 'IssuedInvoice',
    id: envelope.id,
    documentNumber,
    modifiedDate: envelope.modifiedDate,
  };
  return {
    deps,
    event,
    record,
    channel,
    documentNumber,
    source,
    ctx: { action, event, source },
    log: { action, recordId: envelope.id, eventId: event.eventId },
    params: { collection: 'IssuedInvoices', id: envelope.id },
  };
}

/** The guarded e-mail sending, then its `EmailSent`. */
async function sendEmailOnce(run: SendRun, recipients: string[]): Promise<SendRecordResult> {
  const { deps, event } = run;
  const subject = deps.config.sending.emailSubject.replace('{DocumentNumber}', run.documentNumber ?? '');
  await deps.api.call('Documents.sendEmail', {
    params: run.params,
    body: { To: recipients, Subject: subject },
  });
  deps.logger.info('invoice sent by email', run.log);
  await announce(run, () =>
    publishOutcome(
      deps.publisher,
      event.source,
      emailSentEntry,
      { ...outcomeBase(run.ctx, 'EmailSent', deps.clock), to: recipients, subject },
      deps.clock.now(),
    ),
  );
  return { result: 'sent' };
}

/** The guarded run of the channel; a request that may have reached the service is never repeated. */
async function sendOnce(run: SendRun, recipients: string[]): Promise<SendRecordResult> {
  const { deps, event } = run;
  try {
    if (run.channel.kind === 'email') return await sendEmailOnce(run, recipients);
    // Checked before the guarded run (sendInvoice).
    return await sendEInvoiceOnce(run, deps.sendings!);
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    if (run.channel.kind === 'einvoice' && deps.sendings) {
      await endSending(deps.sendings, event.envelope.connection, event.envelope.id).catch(() => {});
    }
    // The request may have reached the service; nothing to read back — do not send twice.
    return reportOutcomeUnknown(run, 'the sending request may or may not have reached the service; check it');
  }
}

/** What an error of the guarded run comes to: an outcome, or a retry later. */
async function settleError(run: SendRun, error: unknown): Promise<ActionOutcome> {
  if (error instanceof ValidationError) {
    run.deps.logger.warn('sending rejected', { ...run.log, status: error.status, errors: error.errors });
    await publishFailure(
      run.deps,
      run.ctx,
      problemOf('validation', 'the service rejected the sending', error),
    );
    return { status: 'failed', reason: 'validation' };
  }
  if (error instanceof ActionInProgressError) {
    throw new RetryLaterError('another delivery is sending this invoice', error.retryAfterMs, {
      cause: error,
    });
  }
  throw error;
}

export async function sendInvoice(
  deps: SendDeps,
  event: ActionEvent,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const { envelope } = event;
  if (envelope.recordType !== 'IssuedInvoice') {
    return { status: 'skipped', reason: `sending is for issued invoices, not ${envelope.recordType}` };
  }
  const run = await startRun(deps, event);
  if ('status' in run) return run;
  let recipients: string[] = [];
  if (run.channel.kind === 'email') {
    const to = run.channel.to ?? stringField(run.record, 'BusinessPartnerAddress.Email');
    if (!to) {
      await publishFailure(
        deps,
        run.ctx,
        problemOf('validation', 'no e-mail address for the invoice partner'),
      );
      return { status: 'failed', reason: 'no recipient' };
    }
    recipients = [to];
  }
  if (run.channel.kind === 'einvoice' && !deps.sendings) {
    throw new Error('e-invoicing needs the open-sendings store (ACTIONS_STATE_TABLE)');
  }
  // Input a shop's customer typed never decides who is sent anything: such an invoice waits.
  const held = await holdIfPartnerFromCheckout(run);
  if (held) return held;
  let ran = false;
  try {
    const result = await deps.guard.run(
      { action: run.ctx.action, connection: envelope.connection, recordId: envelope.id },
      () => {
        ran = true;
        return sendOnce(run, recipients);
      },
      options,
    );
    if (!ran) return { status: 'duplicate', reason: 'already sent' };
    return result.result === 'sent' ? { status: 'done' } : { status: 'failed', reason: 'outcomeUnknown' };
  } catch (error) {
    return settleError(run, error);
  }
}

/** A sending route: new issued invoices of the given partners (by the partner field). */
export function sendingRoute(
  config: ActionsConfig,
  id: string,
  description: string,
  partners: string[],
): RouteSpec {
  return {
    id,
    description,
    pattern: {
      source: eventSourceOf(config),
      'detail-type': [recordDetailType('IssuedInvoice', 'Created')],
      detail: recordOrClaimCheck(nestedFilter(config.sending.partnerField, partners)),
    },
    maxConcurrency: 2,
    maxReceiveCount: 5,
    timeoutSeconds: 60,
  };
}
