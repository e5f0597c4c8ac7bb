import { payableRecordTypes, paymentDetailType } from '#functions/core/events/payment-events.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { defineEventAction, defineScheduledAction, eventSourceOf } from '../action-definition.js';
import { paymentReminderEvents } from './events.js';
import { outcomes, remindersOn, remindOnOverdue, remindPass } from './payment-reminder.js';
import type { ReminderDeps } from './remind-invoice.js';
import { reminderSettings } from './settings.js';

/** The registry entry of the event side: `<Invoice>.Overdue` of the connection's own source. */
export const paymentRemindersAction = defineEventAction({
  name: 'payment-reminders',
  module: import.meta.url,
  uses: ['idempotency', 'actionState'],
  settings: reminderSettings,
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
  module: import.meta.url,
  uses: ['idempotency', 'actionState'],
  settings: reminderSettings,
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
