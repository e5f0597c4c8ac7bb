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
 */
import * as z from 'zod';
import type { AccountingApi, ApiRecord } from '../../accounting/api.js';
import { NotFoundError, ValidationError } from '../../accounting/errors.js';
import { recordIdSchema } from '../../accounting/record-id.js';
import { CheckpointConflictError } from '../errors.js';
import { ACTION_FAILED, type SourceRef } from '../events/action-events.js';
import { type PayableRecordType, payableRecordTypes, paymentDetailType } from '../events/payment-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '../ports.js';
import { offers } from '../route-spec.js';
import { defineEventAction, defineScheduledAction, eventSourceOf } from './action-definition.js';
import { type ActionEvent, stringField } from './action-event.js';
import type { ActionsConfig } from './config.js';
import { ActionInProgressError, RetryLaterError } from './errors.js';
import {
  type ActionOutcome,
  type OutcomeOrigin,
  outcomeEnvelope,
  problemOf,
  publishFailure,
  publishOutcome,
} from './outcomes.js';
import {
  type PaymentReminderSentType,
  paymentReminderEvents,
  paymentReminderSentEntry,
  paymentReminderSentType,
  type ReminderStage,
} from './payment-reminder-events.js';
import type { IdempotencyGuard } from './ports.js';

export const REMINDER_ACTION = 'payment.reminder';
const DAY_MS = 86_400_000;
/** Read-modify-write attempts of the reminder list before giving up (the delivery is retried). */
const STATE_ATTEMPTS = 5;

const collectionOf: Record<PayableRecordType, 'IssuedInvoices' | 'IssuedAdvanceInvoices'> = {
  IssuedInvoice: 'IssuedInvoices',
  IssuedAdvanceInvoice: 'IssuedAdvanceInvoices',
};

/** One invoice on a connection's reminder list. */
const trackedSchema = z.object({
  recordType: z.enum(payableRecordTypes),
  id: recordIdSchema,
  /** The due date the stages count from (the service's, when the invoice was last looked at). */
  dueDate: z.string().min(1),
  /** The event source of its connection: the outcome's source. */
  source: z.string().min(1),
  /** Id of the `Overdue` event that put it on the list: the causation of its reminders. */
  causationId: z.string().min(1),
  /** Stages sent (or passed over: a later stage was due when it was first seen). */
  stagesDone: z.array(z.union([z.literal(1), z.literal(2)])),
});
export type TrackedInvoice = z.infer<typeof trackedSchema>;

export const reminderListSchema = z.object({ invoices: z.array(trackedSchema) });
export type ReminderList = z.infer<typeof reminderListSchema>;

/** The reminder list of a connection in the action state table. */
export function reminderListKey(connection: string): string {
  return `payment-reminders#${connection}`;
}

const paymentStatusSchema = z.looseObject({
  RestToPay: z.number({ error: 'expected RestToPay, a number' }),
});

export interface ReminderDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  config: ActionsConfig;
  guard: IdempotencyGuard;
  /** The action state table (values validated with `reminderListSchema`). */
  state: CheckpointStore<unknown>;
}

/** Whole days from `dueDate` (a date or date-time; a date is its start, UTC) to `now`. */
export function daysOverdue(dueDate: string, now: Date): number | undefined {
  const due = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(dueDate) ? `${dueDate}T00:00:00Z` : dueDate);
  if (Number.isNaN(due)) return undefined;
  return Math.floor((now.getTime() - due) / DAY_MS);
}

/** The stage due after `days` overdue (0: none yet). */
export function stageDue(days: number, stageDays: readonly [number, number]): 0 | ReminderStage {
  if (days >= stageDays[1]) return 2;
  if (days >= stageDays[0]) return 1;
  return 0;
}

type Verdict =
  | { kind: 'drop'; outcome: ActionOutcome }
  | { kind: 'keep'; tracked: TrackedInvoice; outcome: ActionOutcome };

interface Run {
  deps: ReminderDeps;
  tracked: TrackedInvoice;
  connection: string;
  log: Record<string, unknown>;
  options: { remainingTimeMs?: number };
}

/** The service's record and rest to pay; `undefined` when the document no longer exists. */
async function readDocument(
  deps: ReminderDeps,
  tracked: TrackedInvoice,
): Promise<{ record: ApiRecord; restToPay: number } | undefined> {
  const collection = collectionOf[tracked.recordType];
  try {
    const record = await deps.api.get(collection, tracked.id);
    const status = paymentStatusSchema.parse(
      await deps.api.call(`${collection}.restToPay`, { params: { id: tracked.id } }),
    );
    return { record, restToPay: status.RestToPay };
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

function originOf(run: Run, record: ApiRecord): OutcomeOrigin {
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
  run: Run,
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
      await deps.api.call('Documents.sendEmail', {
        params: { collection: collectionOf[tracked.recordType], id: tracked.id },
        body: { To: [facts.to], Subject: subject },
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
async function remind(
  run: Run,
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
function failureEvent(run: Run): ActionEvent {
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

/** Read-modify-write of a connection's list, retried on a concurrent change. */
async function updateList(
  deps: ReminderDeps,
  connection: string,
  change: (list: ReminderList) => ReminderList,
): Promise<void> {
  const key = reminderListKey(connection);
  for (let attempt = 1; ; attempt += 1) {
    const stored = await deps.state.get(key);
    const list = stored ? reminderListSchema.parse(stored.value) : { invoices: [] };
    try {
      await deps.state.put(key, change(list), stored?.version);
      return;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= STATE_ATTEMPTS) throw error;
    }
  }
}

const sameInvoice = (
  a: Pick<TrackedInvoice, 'recordType' | 'id'>,
  b: Pick<TrackedInvoice, 'recordType' | 'id'>,
) => a.recordType === b.recordType && a.id === b.id;

/** Puts the verdict into the list: the invoice with the stages sent merged in, or removed. */
function apply(list: ReminderList, tracked: TrackedInvoice, verdict: Verdict): ReminderList {
  const others = list.invoices.filter((t) => !sameInvoice(t, tracked));
  if (verdict.kind === 'drop') return { invoices: others };
  const known = list.invoices.find((t) => sameInvoice(t, tracked) && t.dueDate === verdict.tracked.dueDate);
  const stagesDone = [...new Set([...(known?.stagesDone ?? []), ...verdict.tracked.stagesDone])].sort();
  return { invoices: [...others, { ...verdict.tracked, stagesDone }] };
}

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
  const key = reminderListKey(envelope.connection);
  const stored = await deps.state.get(key);
  const list = stored ? reminderListSchema.parse(stored.value) : { invoices: [] };
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
  const run: Run = {
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
    ? await remind(run, document)
    : ({ kind: 'drop', outcome: { status: 'skipped', reason: 'the document no longer exists' } } as const);
  await updateList(deps, envelope.connection, (l) => apply(l, tracked, verdict));
  return verdict.outcome;
}

export interface ReminderPassResult {
  listed: number;
  sent: number;
  dropped: number;
}

/** The `payment-reminder-pass` action: each invoice of the list looked at again; a due stage is sent. */
export async function remindPass(deps: ReminderDeps, connection: string): Promise<ReminderPassResult> {
  const stored = await deps.state.get(reminderListKey(connection));
  const list = stored ? reminderListSchema.parse(stored.value) : { invoices: [] };
  const result: ReminderPassResult = { listed: list.invoices.length, sent: 0, dropped: 0 };
  for (const tracked of list.invoices) {
    const run: Run = {
      deps,
      tracked,
      connection,
      log: { action: REMINDER_ACTION, connection, recordId: tracked.id },
      options: {},
    };
    const verdict = await remind(run);
    if (verdict.outcome.status === 'done') result.sent += 1;
    if (verdict.kind === 'drop') result.dropped += 1;
    await updateList(deps, connection, (l) => apply(l, tracked, verdict));
  }
  deps.logger.info('payment reminder pass', { connection, ...result });
  return result;
}

function remindersOn(config: ActionsConfig): boolean {
  return config.paymentReminders.enabled && offers(config, 'Documents.sendEmail');
}

const outcomes: readonly (PaymentReminderSentType | typeof ACTION_FAILED)[] = [
  ...payableRecordTypes.map(paymentReminderSentType),
  ACTION_FAILED,
];

/** The registry entry of the event side: `<Invoice>.Overdue` of the connection's own source. */
export const paymentRemindersAction = defineEventAction({
  name: 'payment-reminders',
  uses: ['idempotency', 'actionState'],
  events: paymentReminderEvents,
  outcomes,
  deps: ({ api, publisher, clock, logger, config, idempotency, actionState }): ReminderDeps => ({
    api,
    publisher,
    clock,
    logger,
    config,
    guard: idempotency,
    state: actionState as CheckpointStore<unknown>,
  }),
  run: (deps: ReminderDeps) => (event, options) => remindOnOverdue(deps, event, options),
  routes: (config) =>
    remindersOn(config)
      ? [
          {
            id: 'payment-reminders',
            description:
              'Remind the partner of an overdue issued (advance) invoice by e-mail, once per stage.',
            pattern: {
              source: eventSourceOf(config),
              'detail-type': payableRecordTypes.map((t) => paymentDetailType(t, 'Overdue')),
            },
            maxConcurrency: 2,
            maxReceiveCount: 5,
            timeoutSeconds: 60,
          },
        ]
      : [],
});

/** The registry entry of the scheduled side: an hourly pass over the connection's reminder list. */
export const paymentReminderPassAction = defineScheduledAction({
  name: 'payment-reminder-pass',
  uses: ['idempotency', 'actionState'],
  // Its outcomes are declared by `payment-reminders`, the action that owns them.
  events: [],
  outcomes,
  deps: (p): ReminderDeps & { connection: string } => ({
    ...paymentRemindersAction.deps(p),
    connection: p.config.connection,
  }),
  run: (deps: ReminderDeps & { connection: string }) => () => remindPass(deps, deps.connection),
  schedules: (config) =>
    remindersOn(config)
      ? [
          {
            id: 'payment-reminder-pass',
            description: 'Send the payment reminder stages that came due since the Overdue events.',
            rateMinutes: 60,
            timeoutSeconds: 300,
          },
        ]
      : [],
});
