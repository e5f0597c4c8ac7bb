/**
 * Payment reminder Lambda (SQS, one route): each `<Invoice>.Overdue` of a connection that has
 * reminders switched on puts the invoice on its reminder list and sends a stage already due
 * (core/actions/payment-reminders/).
 */
import { paymentRemindersAction } from '../core/actions/payment-reminders/action.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(paymentRemindersAction);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
