/**
 * Payment reminders for overdue issued invoices and issued advance invoices (opt-in per connection:
 * `ACTIONS_PAYMENT_REMINDERS`). A reminder goes through the service's own e-mail sending
 * (`Documents.sendEmail`) to the partner's address the service holds on the document — never to an
 * address an event carries — after `ACTIONS_PAYMENT_REMINDER_FIRST_DAYS` days overdue (stage 1) and
 * again after `ACTIONS_PAYMENT_REMINDER_SECOND_DAYS` (stage 2, the last), at most once per stage.
 *
 * Two entries of the registry share this module:
 * - `payment-reminders` (event): each `<Invoice>.Overdue` puts the invoice on the connection's
 *   reminder list (the action state table) and sends a stage at once when one is already due
 *   (an invoice detected late).
 * - `payment-reminder-pass` (scheduled, hourly): the stages come due days after the `Overdue`
 *   event, which is published once per invoice and due date, so a pass over the list sends each
 *   stage that came due since. An invoice leaves the list when it is paid, deleted, its due date
 *   moved, or its last stage was sent.
 *
 * Once per stage: the sending runs inside the idempotency guard keyed on connection + document +
 * due date + stage (a redelivered or concurrently delivered event finds the record and sends
 * nothing), and the list remembers the stages sent after the guard's records expire. Before
 * sending, the service's record decides: its `DueDate`, its `RestToPay` (nothing due → no
 * reminder), its document number and its partner's e-mail address.
 *
 * This module holds the two entry points and their registry entries; the list is `reminder-list.ts`,
 * the stage arithmetic `reminder-stages.ts`, the look at one invoice `remind-invoice.ts`.
 */
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { payableRecordTypes } from '#functions/core/events/payment-events.js';
import { offers } from '#functions/core/route-spec.js';
import { type ActionEvent, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import type { ActionOutcome } from '../outcomes.js';
import { type PaymentReminderSentType, paymentReminderSentType } from './events.js';
import {
  REMINDER_ACTION,
  type ReminderDeps,
  type ReminderRun,
  readDocument,
  remindInvoice,
} from './remind-invoice.js';
import { applyDecision, readReminderList, type TrackedInvoice, updateReminderList } from './reminder-list.js';

/** The `payment-reminders` action: an `Overdue` event puts the invoice on the list, a due stage goes at once. */
export async function remindOnOverdue(
  deps: ReminderDeps,
  event: ActionEvent,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const { envelope } = event;
  const recordType = payableRecordTypes.find((t) => t === envelope.recordType);
  if (!recordType || envelope.change !== 'Overdue') {
    return { status: 'skipped', reason: `reminders follow Overdue events, not ${event.detailType}` };
  }
  const list = await readReminderList(deps.state, envelope.connection);
  const known = list.invoices.find((t) => t.recordType === recordType && t.id === envelope.id);
  // The due date is the service's: the first look below replaces a due date the event made up.
  const document = await readDocument(deps, {
    recordType,
    id: envelope.id,
    dueDate: '',
    source: event.source,
    causationId: event.eventId,
    stagesDone: [],
  });
  const dueDate = document ? stringField(document.record, 'DueDate') : null;
  const tracked: TrackedInvoice = {
    recordType,
    id: envelope.id,
    dueDate: dueDate ?? '-',
    source: event.source,
    causationId: known?.dueDate === dueDate ? known.causationId : event.eventId,
    stagesDone: known?.dueDate === dueDate ? known.stagesDone : [],
  };
  const run: ReminderRun = {
    deps,
    tracked,
    connection: envelope.connection,
    log: {
      action: REMINDER_ACTION,
      connection: envelope.connection,
      recordId: envelope.id,
      eventId: event.eventId,
    },
    options,
  };
  const verdict = document
    ? await remindInvoice(run, document)
    : ({ kind: 'drop', outcome: { status: 'skipped', reason: 'the document no longer exists' } } as const);
  await updateReminderList(deps.state, envelope.connection, (l) => applyDecision(l, tracked, verdict));
  return verdict.outcome;
}

export interface ReminderPassResult {
  listed: number;
  sent: number;
  dropped: number;
}

/** The `payment-reminder-pass` action: each invoice of the list looked at again; a due stage is sent. */
export async function remindPass(deps: ReminderDeps, connection: string): Promise<ReminderPassResult> {
  const list = await readReminderList(deps.state, connection);
  const result: ReminderPassResult = { listed: list.invoices.length, sent: 0, dropped: 0 };
  for (const tracked of list.invoices) {
    const run: ReminderRun = {
      deps,
      tracked,
      connection,
      log: { action: REMINDER_ACTION, connection, recordId: tracked.id },
      options: {},
    };
    const verdict = await remindInvoice(run);
    if (verdict.outcome.status === 'done') result.sent += 1;
    if (verdict.kind === 'drop') result.dropped += 1;
    await updateReminderList(deps.state, connection, (l) => applyDecision(l, tracked, verdict));
  }
  deps.logger.info('payment reminder pass', { connection, ...result });
  return result;
}

export function remindersOn(config: ActionsConfig): boolean {
  return config.paymentReminders.enabled && offers(config, 'Documents.sendEmail');
}

export const outcomes: readonly (PaymentReminderSentType | typeof ACTION_FAILED)[] = [
  ...payableRecordTypes.map(paymentReminderSentType),
  ACTION_FAILED,
];
