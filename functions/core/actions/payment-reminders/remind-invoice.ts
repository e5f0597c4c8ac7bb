/**
 * One invoice of the reminder list looked at now: the service's record decides (its `DueDate`, its
 * `RestToPay`, its document number and its partner's e-mail address), the stage that came due is
 * sent through `Documents.sendEmail` inside the idempotency guard (once per connection + document +
 * due date + stage; the sent ledger keeps it once when the idempotency record is gone), and the
 * verdict says whether the invoice stays on the list. A document held for a person
 * (`sending-hold.ts`) gets no reminder and stays on the list until released.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { NotFoundError, OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import { type PayableRecordType, paymentDetailType } from '#functions/core/events/payment-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import { type ActionEvent, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, RetryLaterError } from '../errors.js';
import {
  type ActionOutcome,
  type OutcomeOrigin,
  outcomeEnvelope,
  problemOf,
  publishFailure,
  publishOutcome,
} from '../outcomes.js';
import type { IdempotencyGuard } from '../ports.js';
import { heldForPerson } from '../sending-hold.js';
import { claimSending, type SentKey, settleSending } from '../sent-ledger.js';
import { paymentReminderSentEntry, type ReminderStage } from './events.js';
import type { TrackedInvoice } from './reminder-list.js';
import { daysOverdue, stageDue } from './reminder-stages.js';

export const REMINDER_ACTION = 'payment.reminder';

const collectionOf: Record<PayableRecordType, 'IssuedInvoices' | 'IssuedAdvanceInvoices'> = {
  IssuedInvoice: 'IssuedInvoices',
  IssuedAdvanceInvoice: 'IssuedAdvanceInvoices',
};

export interface ReminderDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  config: ActionsConfig;
  guard: IdempotencyGuard;
  /** The action state table (the reminder list, `reminder-list.ts`). */
  state: CheckpointStore<unknown>;
}

export type Verdict =
  | { kind: 'drop'; outcome: ActionOutcome }
  | { kind: 'keep'; tracked: TrackedInvoice; outcome: ActionOutcome };

export interface ReminderRun {
  deps: ReminderDeps;
  tracked: TrackedInvoice;
  connection: string;
  log: Record<string, unknown>;
  options: { remainingTimeMs?: number };
}

/** The service's record and rest to pay; `undefined` when the document no longer exists. */
export async function readDocument(
  deps: ReminderDeps,
  tracked: TrackedInvoice,
): Promise<{ record: ApiRecord; restToPay: number } | undefined> {
  const collection = collectionOf[tracked.recordType];
  try {
    const record = await deps.api.get(collection, tracked.id);
    const status = await deps.api.restToPay({ collection, id: tracked.id });
    return { record, restToPay: status.RestToPay };
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

function originOf(run: ReminderRun, record: ApiRecord): OutcomeOrigin {
  const source: SourceRef = {
    recordType: run.tracked.recordType,
    id: run.tracked.id,
    documentNumber: stringField(record, 'DocumentNumber'),
    modifiedDate: null,
  };
  return {
    action: REMINDER_ACTION,
    connection: run.connection,
    source,
    causationId: run.tracked.causationId,
  };
}

/** Sends one stage inside the guard; `false` when an earlier delivery had sent it. */
async function sendStage(
  run: ReminderRun,
  record: ApiRecord,
  stage: ReminderStage,
  facts: { days: number; restToPay: number; to: string },
): Promise<boolean> {
  const { deps, tracked } = run;
  const documentNumber = stringField(record, 'DocumentNumber');
  const subject = deps.config.paymentReminders.subject.replace('{DocumentNumber}', documentNumber ?? '');
  let ran = false;
  await deps.guard.run(
    // Keyed on connection + document + due date + stage: one mail per stage, whatever the deliveries.
    {
      action: REMINDER_ACTION,
      connection: run.connection,
      recordId: `${tracked.id}#${tracked.dueDate}#${stage}`,
    },
    async () => {
      ran = true;
      const key: SentKey = {
        connection: run.connection,
        kind: `reminder-${stage}`,
        key: `${tracked.id}#${tracked.dueDate}`,
      };
      const claim = await claimSending(deps.state, key, tracked.causationId, deps.clock.now());
      if (claim !== 'go') {
        // Sent before, or claimed by an attempt whose outcome is unknown: never a second mail.
        ran = false;
        deps.logger.warn('payment reminder claimed before; not sent again', { ...run.log, stage, claim });
        return { sent: false };
      }
      try {
        await deps.api.sendEmail({
          collection: collectionOf[tracked.recordType],
          id: tracked.id,
          body: { To: [facts.to], Subject: subject },
        });
      } catch (error) {
        // Known not sent: a later look may send it (unrecorded, the claim stays and nothing is sent twice).
        if (!(error instanceof OutcomeUnknownError)) {
          await settleSending(deps.state, key, 'notSent', deps.clock.now()).catch(() => {});
        }
        throw error;
      }
      await settleSending(deps.state, key, 'sent', deps.clock.now()).catch((error: unknown) => {
        deps.logger.error('sent ledger not settled', { ...run.log, stage, error: String(error) });
      });
      deps.logger.info('payment reminder sent', { ...run.log, stage, daysOverdue: facts.days });
      await publishOutcome(
        deps.publisher,
        tracked.source,
        paymentReminderSentEntry(tracked.recordType),
        {
          ...outcomeEnvelope(
            originOf(run, record),
            'PaymentReminderSent',
            deps.clock,
            tracked.dueDate,
            String(stage),
          ),
          documentNumber,
          stage,
          dueDate: tracked.dueDate,
          daysOverdue: facts.days,
          restToPay: facts.restToPay,
          to: [facts.to],
          subject,
        },
        deps.clock.now(),
      );
      return { sent: true };
    },
    run.options,
  );
  return ran;
}

/** Looks at one invoice of the list now: sends the stage that is due, and says whether it stays. */
export async function remindInvoice(
  run: ReminderRun,
  read?: { record: ApiRecord; restToPay: number } | undefined,
): Promise<Verdict> {
  const { deps, tracked } = run;
  const document = read ?? (await readDocument(deps, tracked));
  if (!document)
    return { kind: 'drop', outcome: { status: 'skipped', reason: 'the document no longer exists' } };
  const { record, restToPay } = document;
  if (restToPay <= 0) return { kind: 'drop', outcome: { status: 'skipped', reason: 'nothing due any more' } };
  const dueDate = stringField(record, 'DueDate');
  if (!dueDate)
    return { kind: 'drop', outcome: { status: 'skipped', reason: 'the document has no due date' } };
  if (dueDate !== tracked.dueDate) {
    // A moved due date is a new one: its own Overdue event puts it on the list again.
    return { kind: 'drop', outcome: { status: 'skipped', reason: 'the due date changed' } };
  }
  const days = daysOverdue(dueDate, deps.clock.now());
  const stage = days === undefined ? 0 : stageDue(days, deps.config.paymentReminders.stageDays);
  if (days === undefined || stage === 0 || tracked.stagesDone.some((s) => s >= stage)) {
    return { kind: 'keep', tracked, outcome: { status: 'skipped', reason: 'no reminder stage due' } };
  }
  const done: TrackedInvoice = {
    ...tracked,
    stagesDone: [...new Set([...tracked.stagesDone, ...([1, 2] as const).filter((s) => s <= stage)])],
  };
  // A document held for a person gets no reminder; it stays on the list, its stages not done.
  const held = await heldForPerson(deps, {
    record,
    ctx: { action: REMINDER_ACTION, event: failureEvent(run), source: originOf(run, record).source },
    channel: 'email',
    log: run.log,
  });
  if (held) return { kind: 'keep', tracked, outcome: held };
  // The partner's address the service holds on the document; the event's copy is never read.
  const to = stringField(record, 'BusinessPartnerAddress.Email');
  if (!to) {
    await publishFailure(
      deps,
      {
        action: REMINDER_ACTION,
        event: failureEvent(run),
        source: originOf(run, record).source,
      },
      problemOf('validation', `no e-mail address for the partner: reminder stage ${stage} not sent`),
    );
    return { kind: 'keep', tracked: done, outcome: { status: 'failed', reason: 'no recipient' } };
  }
  try {
    const ran = await sendStage(run, record, stage, { days, restToPay, to });
    const outcome: ActionOutcome = ran
      ? { status: 'done' }
      : { status: 'duplicate', reason: `stage ${stage} already sent` };
    // After the last stage the invoice leaves the list; the guard still answers a redelivery.
    return stage === 2 ? { kind: 'drop', outcome } : { kind: 'keep', tracked: done, outcome };
  } catch (error) {
    if (error instanceof ActionInProgressError) {
      throw new RetryLaterError('another delivery is sending this reminder', error.retryAfterMs, {
        cause: error,
      });
    }
    if (error instanceof ValidationError) {
      deps.logger.warn('payment reminder rejected', { ...run.log, stage, status: error.status });
      await publishFailure(
        deps,
        { action: REMINDER_ACTION, event: failureEvent(run), source: originOf(run, record).source },
        problemOf('validation', 'the service rejected the reminder', error),
      );
      return { kind: 'keep', tracked: done, outcome: { status: 'failed', reason: 'validation' } };
    }
    throw error;
  }
}

/** The event an `Action.Failed` names: the `Overdue` that put the invoice on the list. */
function failureEvent(run: ReminderRun): ActionEvent {
  const { tracked } = run;
  return {
    eventId: tracked.causationId,
    source: tracked.source,
    detailType: paymentDetailType(tracked.recordType, 'Overdue'),
    time: undefined,
    envelope: {
      version: 1,
      connection: run.connection,
      recordType: tracked.recordType,
      id: tracked.id,
      change: 'Overdue',
      modifiedDate: null,
      idempotencyKey: '0'.repeat(64),
    },
  };
}
