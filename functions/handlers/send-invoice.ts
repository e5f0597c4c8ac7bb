/**
 * Sending Lambda: consumes the `send-einvoice` and `send-email` routes' SQS queues (new issued
 * invoices of configured partners) and sends each invoice once through its configured channel.
 */
import { type SendDeps, sendInvoice } from '../core/actions/send-invoice.js';
import {
  actionDeps,
  defineSqsAction,
  guardFromEnvironment,
  sendingsFromEnvironment,
} from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(
  'send-invoice',
  (deps: SendDeps) => (event, options) => sendInvoice(deps, event, options),
  (e): SendDeps => ({
    ...actionDeps(e),
    guard: guardFromEnvironment(e),
    ...(e.actions.sending.einvoicePartners.length > 0 ? { sendings: sendingsFromEnvironment(e) } : {}),
  }),
);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
