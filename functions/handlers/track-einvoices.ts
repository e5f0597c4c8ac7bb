/**
 * E-invoice tracker Lambda, invoked by a schedule (the registry entry's `schedules`): polls the
 * status of every open sending of the connection and emits each transition in order. A 429/5xx
 * ends the pass with an error after saving what was learned; the next run continues.
 */
import { trackEInvoicesAction } from '../core/actions/track-einvoices/action.js';
import { defineScheduledActionHandler } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineScheduledActionHandler(trackEInvoicesAction);

export const { createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
