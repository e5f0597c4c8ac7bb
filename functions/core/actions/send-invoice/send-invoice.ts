/**
 * The sending action: it reads the invoice from the service first and acts only on that record —
 * the channel, the recipient and whether the invoice still exists come from the service, never
 * from the event's copy. The channel follows the connection's e-invoicing policy
 * (`channel-policy.ts`): under `mandate-sk` (the default of `sk`) a Slovak partner with a DIČ —
 * read from the address book, else the invoice's partner block — receives the e-invoice; the partner
 * lists (`ACTIONS_PARTNER_FIELD` of the invoice) are overrides, and the only rule under `lists`.
 * An e-invoice goes through the network (`Documents.sendEInvoice`) only when the pre-flight
 * (`core/einvoicing`) finds no rule broken; else `IssuedInvoice.EInvoiceBlocked`, and the invoice's
 * `Updated` event checks it again (`einvoice-blocks.ts`). An e-mail goes by `Documents.sendEmail`.
 *
 * Sending carries no idempotency key at the service and leaves no domain state we can read back,
 * so a sending is guarded by an idempotency record keyed by channel + invoice id and, once the
 * request may have reached the service, is never repeated: an unknown outcome becomes
 * `Action.Failed` (kind `outcomeUnknown`) for a person to check, not a second sending.
 *
 * An invoice made from an e-shop order whose partner was matched on checkout input is not sent:
 * `IssuedInvoice.SendingHeld` says it waits for a person (`sending-hold.ts`). And every sending is
 * claimed in the sent ledger (`sent-ledger.ts`) before it goes: an invoice sent before is not sent
 * again when its idempotency record is gone.
 */
import type { ApiRecord } from '#functions/accounting/api.js';
import { NotFoundError, OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import { brokenRules } from '#functions/core/einvoicing/preflight.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import { recordDetailType } from '#functions/core/events/envelope.js';
import { nestedFilter, type RouteSpec, recordOrClaimCheck } from '#functions/core/route-spec.js';
import { eventSourceOf } from '../action-definition.js';
import { type ActionEvent, differingFields, resolveRecord, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, RetryLaterError } from '../errors.js';
import { type ActionOutcome, outcomeBase, problemOf, publishFailure, publishOutcome } from '../outcomes.js';
import { heldForPerson } from '../sending-hold.js';
import { claimSending, type SentKey, settleSending } from '../sent-ledger.js';
import { EINVOICE_ACTION } from '../track-einvoices/einvoice-tracking.js';
import { channelFor, needsPartner, partnerOf } from './channel-policy.js';
import { preflightOf, readBlock, writeBlock } from './einvoice-blocks.js';
import { einvoiceBlockedEntry, emailSentEntry } from './events.js';
import { endSending, sendEInvoiceOnce } from './send-einvoice.js';
import {
  announce,
  reportOutcomeUnknown,
  type SendDeps,
  type SendRecordResult,
  type SendRun,
  stateOf,
} from './sending-run.js';

export type { Channel, SendDeps } from './sending-run.js';

export const EMAIL_ACTION = 'send.email';

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
  const partner = needsPartner(deps.config, record) ? await partnerOf(deps.api, record) : undefined;
  const channel = channelFor(deps.config, record, partner);
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
    ...(channel.kind === 'einvoice' ? { partner: partner ?? (await partnerOf(deps.api, record)) } : {}),
    documentNumber,
    source,
    ctx: { action, event, source },
    log: { action, recordId: envelope.id, eventId: event.eventId },
    params: { collection: 'IssuedInvoices', id: envelope.id },
  };
}

/**
 * The pre-flight of an e-invoice (`core/einvoicing`): an invoice that breaks a rule is not sent,
 * `IssuedInvoice.EInvoiceBlocked` names the rules, fields and partner, and the block is kept so
 * that the invoice's `Updated` event checks it again. An update of an invoice never blocked sends
 * nothing. Returns the outcome when the invoice does not go now.
 */
async function checkBeforeSending(run: SendRun): Promise<ActionOutcome | undefined> {
  const { deps, event } = run;
  const { connection, id } = event.envelope;
  const store = deps.blocks!;
  const before = await readBlock(store, connection, id);
  if (event.envelope.change !== 'Created' && before?.mark.status !== 'blocked') {
    return { status: 'skipped', reason: 'an update sends only a blocked e-invoice' };
  }
  const result = await preflightOf(deps.api, run.record);
  const now = deps.clock.now().toISOString();
  if (result.passed) {
    if (before?.mark.status === 'blocked') {
      await writeBlock(store, connection, id, { status: 'cleared', rules: [], at: now }, before.version);
      deps.logger.info('einvoice pre-flight passed after a fix', run.log);
    }
    return undefined;
  }
  const rules = brokenRules(result);
  const same = before?.mark.status === 'blocked' && before.mark.rules.join(' ') === rules.join(' ');
  if (!same) {
    await writeBlock(store, connection, id, { status: 'blocked', rules, at: now }, before?.version);
    const partner = run.partner!;
    await publishOutcome(
      deps.publisher,
      event.source,
      einvoiceBlockedEntry,
      {
        ...outcomeBase(
          run.ctx,
          'EInvoiceBlocked',
          deps.clock,
          rules.join(' '),
          event.envelope.modifiedDate ?? '',
        ),
        findings: result.findings.map(({ rule, flag, field, message }) => ({ rule, flag, field, message })),
        notChecked: result.notChecked,
        partner: {
          id: partner.id,
          name: partner.name,
          country: partner.country,
          dic: partner.dic,
          participantId: partner.participantId,
          from: partner.from,
        },
      },
      deps.clock.now(),
    );
  }
  deps.logger.warn('einvoice blocked by the pre-flight', { ...run.log, rules });
  return { status: 'skipped', reason: `e-invoice blocked: ${rules.join(', ')}` };
}

/** The guarded e-mail sending, then its `EmailSent`. */
async function sendEmailOnce(run: SendRun, recipients: string[]): Promise<SendRecordResult> {
  const { deps, event } = run;
  const subject = deps.config.sending.emailSubject.replace('{DocumentNumber}', run.documentNumber ?? '');
  await deps.api.sendEmail({ ...run.params, body: { To: recipients, Subject: subject } });
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

/** The channel's request, claimed in the sent ledger first and settled after. */
async function sendClaimed(run: SendRun, recipients: string[]): Promise<SendRecordResult> {
  const { deps, event } = run;
  const state = stateOf(deps);
  const send = () =>
    run.channel.kind === 'email'
      ? sendEmailOnce(run, recipients)
      : // Checked before the guarded run (sendInvoice).
        sendEInvoiceOnce(run, deps.sendings!);
  if (!state) return send();
  const key: SentKey = {
    connection: event.envelope.connection,
    kind: run.channel.kind,
    key: event.envelope.id,
  };
  const claim = await claimSending(state, key, event.eventId, deps.clock.now());
  if (claim === 'sent') {
    deps.logger.warn('invoice sent before; not sent again', run.log);
    return { result: 'alreadySent' };
  }
  if (claim === 'requested') {
    deps.logger.error('invoice sending claimed earlier without an outcome; not sent again', run.log);
    return reportOutcomeUnknown(
      run,
      'an earlier attempt may have sent the invoice; not sent again, check it',
    );
  }
  let result: SendRecordResult;
  try {
    result = await send();
  } catch (error) {
    // Known not to have reached the service: a later delivery may send it. Should that not be
    // recorded, the claim stays `requested` and a later delivery reports it instead of sending.
    if (!(error instanceof OutcomeUnknownError)) {
      await settleSending(state, key, 'notSent', deps.clock.now()).catch(() => {});
    }
    throw error;
  }
  // An unknown outcome stays claimed (`requested`): nothing sends it again.
  if (result.result === 'sent') {
    await settleSending(state, key, 'sent', deps.clock.now()).catch((error: unknown) => {
      deps.logger.error('sent ledger not settled', {
        ...run.log,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }
  return result;
}

/** The guarded run of the channel; a request that may have reached the service is never repeated. */
async function sendOnce(run: SendRun, recipients: string[]): Promise<SendRecordResult> {
  const { deps, event } = run;
  try {
    return await sendClaimed(run, recipients);
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
  // An update matters only for an invoice the pre-flight blocked: others are left unread.
  if (envelope.change !== 'Created') {
    const block = deps.blocks ? await readBlock(deps.blocks, envelope.connection, envelope.id) : undefined;
    if (block?.mark.status !== 'blocked')
      return { status: 'skipped', reason: 'an update sends only a blocked e-invoice' };
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
  if (run.channel.kind === 'einvoice' && (!deps.sendings || !deps.blocks)) {
    throw new Error('e-invoicing needs the open-sendings store (ACTIONS_STATE_TABLE)');
  }
  // An update sends only an invoice the pre-flight blocked before; its fix is checked again.
  if (envelope.change !== 'Created' && run.channel.kind !== 'einvoice') {
    return { status: 'skipped', reason: 'an update sends only a blocked e-invoice' };
  }
  if (run.channel.kind === 'einvoice') {
    const blocked = await checkBeforeSending(run);
    if (blocked) return blocked;
  }
  // Input a shop's customer typed never decides who is sent anything: such an invoice waits.
  const held = await heldForPerson(
    { ...deps, state: stateOf(deps) },
    { record: run.record, ctx: run.ctx, channel: run.channel.kind, log: run.log },
  );
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
    if (result.result === 'alreadySent') return { status: 'duplicate', reason: 'already sent (sent ledger)' };
    return result.result === 'sent' ? { status: 'done' } : { status: 'failed', reason: 'outcomeUnknown' };
  } catch (error) {
    return settleError(run, error);
  }
}

/**
 * A sending route: new issued invoices (of the given partners by the partner field, or all of
 * them), or their updates (`change`: `Updated`, which send only an invoice the pre-flight blocked).
 */
export function sendingRoute(
  config: ActionsConfig,
  id: string,
  description: string,
  partners: string[] | 'all',
  change: 'Created' | 'Updated' = 'Created',
): RouteSpec {
  return {
    id,
    description,
    pattern: {
      source: eventSourceOf(config),
      'detail-type': [recordDetailType('IssuedInvoice', change)],
      ...(partners === 'all'
        ? {}
        : { detail: recordOrClaimCheck(nestedFilter(config.sending.partnerField, partners)) }),
    },
    maxConcurrency: 2,
    maxReceiveCount: 5,
    timeoutSeconds: 60,
  };
}
