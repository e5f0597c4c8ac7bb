/**
 * Payment Lambda: consumes the `liquidate-payments` route's SQS queue (bank transactions of
 * imported statements) and liquidates the invoice each pays, once, or reports it unmatched.
 */
import { liquidatePaymentsAction } from '../core/actions/liquidate-payments/action.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(liquidatePaymentsAction);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
