/**
 * Transfer Lambda: consumes the transfer routes' SQS queues (EventBridge events of source
 * documents), runs one step of the transfer chain per event, exactly once per source record.
 */
import type { SQSEvent } from 'aws-lambda';
import { type ActionEntry, createActionEntry } from '../core/actions/run-action.js';
import { type TransferDeps, transferDocument } from '../core/actions/transfer-document.js';
import {
  createSqsActionHandler,
  guardFromEnvironment,
  lazyHandler,
  loadActionEnvironment,
  type SqsActionHandler,
} from './action-runtime.js';

const NAME = 'transfer-documents';

/** The core entry for one EventBridge event (the local runtime calls this; the SQS handler too). */
export function createEventEntry(deps: TransferDeps): ActionEntry {
  return createActionEntry(NAME, deps.logger, (event, options) => transferDocument(deps, event, options));
}

export function createHandler(deps: TransferDeps): SqsActionHandler {
  return createSqsActionHandler(NAME, createEventEntry(deps), deps.logger);
}

export async function createDepsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<TransferDeps> {
  const e = await loadActionEnvironment(env, NAME);
  return {
    api: e.api,
    publisher: e.aws.publisher(),
    clock: e.clock,
    logger: e.logger,
    guard: guardFromEnvironment(e),
    config: e.actions,
  };
}

export const handler = lazyHandler<
  SQSEvent,
  Parameters<SqsActionHandler>[1],
  Awaited<ReturnType<SqsActionHandler>>
>(async () => createHandler(await createDepsFromEnv(process.env)));
