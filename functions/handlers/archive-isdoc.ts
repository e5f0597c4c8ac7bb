/**
 * ISDOC archive Lambda: consumes the archive route's SQS queue (issued invoice and issued
 * advance invoice events) and stores each version's validated ISDOC in the archive bucket.
 */
import { type ArchiveDeps, archiveIsdoc } from '../core/actions/archive-isdoc.js';
import { requireSetting } from '../core/actions/config.js';
import { ENV } from '../shared/env-names.js';
import { actionDeps, defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const action = defineSqsAction(
  'archive-isdoc',
  (deps: ArchiveDeps) => (event) => archiveIsdoc(deps, event),
  (e): ArchiveDeps => ({
    ...actionDeps(e),
    objects: e.aws.objectStore(requireSetting(e.actions.archiveBucket, ENV.actionsArchiveBucket)),
  }),
);

export const { createEventEntry, createHandler } = action;

export const handler = lazyHandler(() => action.handlerFromEnv(process.env));
