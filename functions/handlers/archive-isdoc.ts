/**
 * ISDOC archive Lambda: consumes the archive route's SQS queue (issued invoice and issued
 * advance invoice events) and stores each version's validated ISDOC in the archive bucket.
 */
import { archiveIsdocAction } from '../core/actions/archive-isdoc.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(archiveIsdocAction);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
