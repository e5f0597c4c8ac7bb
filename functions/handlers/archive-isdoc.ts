/**
 * ISDOC archive Lambda: consumes the archive route's SQS queue (issued invoice and issued
 * advance invoice events) and stores each version's ISDOC in the archive bucket with the verdict
 * of the official ISDOC 6.0.2 schema. Only this function carries the schema check (libxml2 as
 * WebAssembly and the embedded schema files); it is loaded on the first document.
 */
import { createXsdIsdocSchema } from '../adapters/isdoc/xsd-isdoc-schema.js';
import { archiveIsdocAction } from '../core/actions/archive-isdoc/action.js';
import { defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

/** The schema check of this function (loaded on the first document, once per container). */
export const isdocSchema = createXsdIsdocSchema();

const action = defineSqsAction(archiveIsdocAction, { isdocSchema });

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
