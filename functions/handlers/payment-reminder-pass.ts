/**
 * Payment reminder pass Lambda, invoked hourly by a schedule: sends the reminder stages that came
 * due since the `Overdue` events, for every connection with reminders switched on
 * (core/actions/payment-reminders/).
 */
import { paymentReminderPassAction } from '../core/actions/payment-reminders/action.js';
import { defineScheduledActionHandler } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineScheduledActionHandler(paymentReminderPassAction);

export const { createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
