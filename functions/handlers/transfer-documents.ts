/**
 * Transfer Lambda: consumes the transfer routes' SQS queues (EventBridge events of source
 * documents), runs one step of the transfer chain per event, exactly once per source record.
 */
import { type TransferDeps, transferDocument } from '../core/actions/transfer-document.js';
import { actionDeps, defineSqsAction, guardFromEnvironment } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(
  'transfer-documents',
  (deps: TransferDeps) => (event, options) => transferDocument(deps, event, options),
  (e): TransferDeps => ({ ...actionDeps(e), guard: guardFromEnvironment(e) }),
);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
