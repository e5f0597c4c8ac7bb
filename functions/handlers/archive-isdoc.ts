/**
 * ISDOC archive Lambda: consumes the archive route's SQS queue (issued invoice and issued
 * advance invoice events) and stores each version's validated ISDOC in the archive bucket.
 */
import type { SQSEvent } from 'aws-lambda';
import { type ArchiveDeps, archiveIsdoc } from '../core/actions/archive-isdoc.js';
import { requireSetting } from '../core/actions/config.js';
import { type ActionEntry, createActionEntry } from '../core/actions/run-action.js';
import { ENV } from '../shared/env-names.js';
import {
  createSqsActionHandler,
  lazyHandler,
  loadActionEnvironment,
  type SqsActionHandler,
} from './action-runtime.js';

const NAME = 'archive-isdoc';

/** The core entry for one EventBridge event (the local runtime calls this; the SQS handler too). */
export function createEventEntry(deps: ArchiveDeps): ActionEntry {
  return createActionEntry(NAME, deps.logger, (event) => archiveIsdoc(deps, event));
}

export function createHandler(deps: ArchiveDeps): SqsActionHandler {
  return createSqsActionHandler(NAME, createEventEntry(deps), deps.logger);
}

export async function createDepsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<ArchiveDeps> {
  const e = await loadActionEnvironment(env, NAME);
  const bucket = requireSetting(e.actions.archiveBucket, ENV.actionsArchiveBucket);
  return {
    api: e.api,
    objects: e.aws.objectStore(bucket),
    publisher: e.aws.publisher(),
    clock: e.clock,
    logger: e.logger,
    config: e.actions,
  };
}

export const handler = lazyHandler<
  SQSEvent,
  Parameters<SqsActionHandler>[1],
  Awaited<ReturnType<SqsActionHandler>>
>(async () => createHandler(await createDepsFromEnv(process.env)));
