/**
 * Sending Lambda: consumes the `send-einvoice` and `send-email` routes' SQS queues (new issued
 * invoices of configured partners) and sends each invoice once through its configured channel.
 */
import { sendInvoiceAction } from '../core/actions/send-invoice/action.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(sendInvoiceAction);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
