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
 */
import * as z from 'zod';
import type { AccountingApi, ApiRecord } from '../../accounting/api.js';
import { NotFoundError, OutcomeUnknownError, ValidationError } from '../../accounting/errors.js';
import { recordIdSchema } from '../../accounting/record-id.js';
import { ACTION_FAILED, EMAIL_SENT, type SourceRef } from '../events/action-events.js';
import { recordDetailType } from '../events/envelope.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '../ports.js';
import { nestedFilter, offers, type RouteSpec, recordOrClaimCheck } from '../route-spec.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from './action-definition.js';
import { type ActionEvent, differingFields, resolveRecord, stringField } from './action-event.js';
import type { ActionsConfig } from './config.js';
import { EINVOICE_ACTION } from './einvoice-tracking.js';
import { ActionInProgressError, RetryLaterError } from './errors.js';
import {
  type OpenSending,
  type OpenSendings,
  recentlyFinished,
  updateOpenSendings,
} from './open-sendings.js';
import type { ActionOutcome } from './outcomes.js';
import { type OutcomeContext, outcomeBase, problemOf, publishFailure, publishOutcome } from './outcomes.js';
import type { IdempotencyGuard } from './ports.js';

export const EMAIL_ACTION = 'send.email';

export interface SendDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  guard: IdempotencyGuard;
  /** Open sendings for the tracker (required for e-invoicing). */
  sendings?: CheckpointStore<OpenSendings>;
  config: Pick<ActionsConfig, 'sending' | 'eventSource'>;
}

const sendEInvoiceAnswer = z.looseObject({ SendingId: recordIdSchema, Status: z.string().optional() });

export type Channel = { kind: 'einvoice' } | { kind: 'email'; to?: string };

/** Which channel the settings choose for this invoice, if any. */
export function channelFor(config: Pick<ActionsConfig, 'sending'>, record: ApiRecord): Channel | undefined {
  const key = stringField(record, config.sending.partnerField);
  if (key === null) return undefined;
  if (config.sending.einvoicePartners.includes(key)) return { kind: 'einvoice' };
  const email = config.sending.emailPartners.find((p) => p.key === key);
  if (email) return email.to ? { kind: 'email', to: email.to } : { kind: 'email' };
  return undefined;
}

interface SendRecordResult {
  result: 'sent' | 'outcomeUnknown';
  sendingId?: string;
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
  const ctx: OutcomeContext = { action, event, source };
  const log = { action, recordId: envelope.id, eventId: event.eventId };
  const params = { collection: 'IssuedInvoices', id: envelope.id };

  let recipients: string[] = [];
  if (channel.kind === 'email') {
    const to = channel.to ?? stringField(record, 'BusinessPartnerAddress.Email');
    if (!to) {
      await publishFailure(deps, ctx, problemOf('validation', 'no e-mail address for the invoice partner'));
      return { status: 'failed', reason: 'no recipient' };
    }
    recipients = [to];
  }
  if (channel.kind === 'einvoice' && !deps.sendings) {
    throw new Error('e-invoicing needs the open-sendings store (ACTIONS_STATE_TABLE)');
  }

  /**
   * Publishes an outcome once the request may have reached the service. A failure is logged, not
   * thrown: a throw inside the guarded run removes the idempotency record, and the redelivery
   * would send the invoice a second time.
   */
  const announce = async (publish: () => Promise<void>): Promise<void> => {
    try {
      await publish();
    } catch (error) {
      deps.logger.error('sending outcome not announced', {
        ...log,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  let ran = false;
  const once = async (): Promise<SendRecordResult> => {
    ran = true;
    try {
      if (channel.kind === 'email') {
        const subject = deps.config.sending.emailSubject.replace('{DocumentNumber}', documentNumber ?? '');
        await deps.api.call('Documents.sendEmail', {
          params,
          body: { To: recipients, Subject: subject },
        });
        deps.logger.info('invoice sent by email', log);
        await announce(() =>
          publishOutcome(
            deps.publisher,
            event.source,
            EMAIL_SENT,
            { ...outcomeBase(ctx, 'EmailSent', deps.clock), to: recipients, subject },
            deps.clock.now(),
          ),
        );
        return { result: 'sent' };
      }
      const store = deps.sendings as CheckpointStore<OpenSendings>;
      const before = await beginSending(store, envelope.connection, envelope.id, deps.clock.now());
      if (before.kind === 'sent') return { result: 'sent', sendingId: before.sendingId };
      if (before.kind === 'unknown') {
        deps.logger.error('einvoice sending interrupted earlier; not sent again', log);
        await announce(() =>
          publishFailure(
            deps,
            ctx,
            problemOf(
              'outcomeUnknown',
              'an earlier attempt stopped after it may have sent the invoice; not sent again, check it',
            ),
          ),
        );
        return { result: 'outcomeUnknown' };
      }
      let raw: unknown;
      try {
        raw = await deps.api.call('Documents.sendEInvoice', { params });
      } catch (error) {
        // Known not to be sent (else OutcomeUnknownError): a redelivery may send it.
        if (!(error instanceof OutcomeUnknownError))
          await endSending(store, envelope.connection, envelope.id);
        throw error;
      }
      const answer = sendEInvoiceAnswer.safeParse(raw);
      if (!answer.success) {
        // The service accepted the sending (2xx) but gave no usable SendingId: it cannot be tracked,
        // and throwing here would remove the idempotency record and send the invoice again.
        const issues = answer.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
        deps.logger.error('einvoice sent but answer not understood', { ...log, issues });
        await endSending(store, envelope.connection, envelope.id).catch(() => {});
        await announce(() =>
          publishFailure(
            deps,
            ctx,
            problemOf(
              'outcomeUnknown',
              `the service accepted the sending but its answer was not understood (${issues.join('; ')}); the status cannot be tracked`,
            ),
          ),
        );
        return { result: 'outcomeUnknown' };
      }
      const now = deps.clock.now();
      const entry: OpenSending = {
        sendingId: answer.data.SendingId,
        connection: envelope.connection,
        eventSource: event.source,
        source,
        causationId: event.eventId,
        sentAt: now.toISOString(),
        deadline: new Date(now.getTime() + deps.config.sending.trackingDeadlineSeconds * 1000).toISOString(),
        emitted: 0,
        lastStatus: null,
        lastCode: null,
      };
      try {
        const next = await updateOpenSendings(deps.sendings!, envelope.connection, (current) => ({
          sendings: current.sendings.some((s) => s.sendingId === entry.sendingId)
            ? current.sendings
            : [...current.sendings, entry],
          intents: (current.intents ?? []).filter((i) => i.recordId !== envelope.id),
        }));
        if (next.sendings.length > deps.config.sending.maxOpenSendings) {
          deps.logger.warn('many open einvoice sendings', { open: next.sendings.length });
        }
      } catch (error) {
        // The invoice was sent: never let this failure cause a second sending.
        deps.logger.error('einvoice sending not registered for tracking', {
          ...log,
          sendingId: entry.sendingId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      deps.logger.info('invoice sent as einvoice', { ...log, sendingId: entry.sendingId });
      return { result: 'sent', sendingId: entry.sendingId };
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      if (channel.kind === 'einvoice' && deps.sendings) {
        await endSending(deps.sendings, envelope.connection, envelope.id).catch(() => {});
      }
      // The request may have reached the service; nothing to read back — do not send twice.
      await announce(() =>
        publishFailure(
          deps,
          ctx,
          problemOf(
            'outcomeUnknown',
            'the sending request may or may not have reached the service; check it',
          ),
        ),
      );
      return { result: 'outcomeUnknown' };
    }
  };

  try {
    const result = await deps.guard.run(
      { action, connection: envelope.connection, recordId: envelope.id },
      once,
      options,
    );
    if (!ran) return { status: 'duplicate', reason: 'already sent' };
    return result.result === 'sent' ? { status: 'done' } : { status: 'failed', reason: 'outcomeUnknown' };
  } catch (error) {
    if (error instanceof ValidationError) {
      deps.logger.warn('sending rejected', { ...log, status: error.status, errors: error.errors });
      await publishFailure(deps, ctx, problemOf('validation', 'the service rejected the sending', error));
      return { status: 'failed', reason: 'validation' };
    }
    if (error instanceof ActionInProgressError) {
      throw new RetryLaterError('another delivery is sending this invoice', error.retryAfterMs, {
        cause: error,
      });
    }
    throw error;
  }
}

type SendingStart = { kind: 'go' } | { kind: 'sent'; sendingId: string } | { kind: 'unknown' };

/**
 * Before an e-invoice request: a sending of the invoice already registered (a run killed after it,
 * before its idempotency record completed) is reused; an intent left by a run killed around the
 * request makes the outcome unknown; else an intent is written and the request may go.
 */
async function beginSending(
  store: CheckpointStore<OpenSendings>,
  connection: string,
  recordId: string,
  now: Date,
): Promise<SendingStart> {
  let start: SendingStart = { kind: 'go' };
  await updateOpenSendings(store, connection, (current) => {
    const finished = recentlyFinished(current, now);
    const sent =
      current.sendings.find((s) => s.source.id === recordId) ?? finished.find((f) => f.recordId === recordId);
    const intents = current.intents ?? [];
    if (sent) start = { kind: 'sent', sendingId: sent.sendingId };
    else if (intents.some((i) => i.recordId === recordId)) start = { kind: 'unknown' };
    else start = { kind: 'go' };
    const others = intents.filter((i) => i.recordId !== recordId);
    return {
      ...current,
      intents: start.kind === 'go' ? [...others, { recordId, at: now.toISOString() }] : others,
      finished,
    };
  });
  return start;
}

/** Removes the intent of a request known not to have been sent. */
async function endSending(store: CheckpointStore<OpenSendings>, connection: string, recordId: string) {
  await updateOpenSendings(store, connection, (current) => ({
    ...current,
    intents: (current.intents ?? []).filter((i) => i.recordId !== recordId),
  }));
}

/** A sending route: new issued invoices of the given partners (by the partner field). */
function sendingRoute(config: ActionsConfig, id: string, description: string, partners: string[]): RouteSpec {
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

export const sendInvoiceAction = defineEventAction({
  name: 'send-invoice',
  uses: ['idempotency', 'actionState'],
  // One sending function: the channel follows the record the service holds, not the event.
  outcomes: [EMAIL_SENT, ACTION_FAILED],
  deps: (p): SendDeps => ({
    ...actionContextDeps(p),
    guard: p.idempotency,
    ...(p.config.sending.einvoicePartners.length > 0 ? { sendings: p.actionState } : {}),
  }),
  run: (deps: SendDeps) => (event, options) => sendInvoice(deps, event, options),
  routes: (config) => {
    const { einvoicePartners, emailPartners } = config.sending;
    const out: RouteSpec[] = [];
    if (einvoicePartners.length > 0 && offers(config, 'Documents.sendEInvoice')) {
      out.push(
        sendingRoute(
          config,
          'send-einvoice',
          'Send each new issued invoice of a partner configured for e-invoicing through the network.',
          [...einvoicePartners],
        ),
      );
    }
    if (emailPartners.length > 0 && offers(config, 'Documents.sendEmail')) {
      out.push(
        sendingRoute(
          config,
          'send-email',
          'Send each new issued invoice of a partner configured for e-mail by e-mail.',
          emailPartners.map((p) => p.key),
        ),
      );
    }
    return out;
  },
});
