/**
 * Transfer Lambda: consumes the transfer routes' SQS queues (EventBridge events of source
 * documents), runs one step of the transfer chain per event, exactly once per source record.
 */
import { transferDocumentsAction } from '../core/actions/transfer-documents/action.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(transferDocumentsAction);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
