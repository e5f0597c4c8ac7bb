import { isdocRecordTypes } from '#functions/accounting/collections.js';
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { recordDetailType } from '#functions/core/events/envelope.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from '../action-definition.js';
import { archiveIsdoc } from './archive-isdoc.js';
import type { ArchiveDeps } from './archive-run.js';
import { isdocArchivedEvents, isdocArchivedType } from './events.js';
import { isdocSettings } from './settings.js';

/** The registry entry (registry.ts): one route for the ISDOC record types while the archive is on. */
export const archiveIsdocAction = defineEventAction({
  name: 'archive-isdoc',
  module: import.meta.url,
  capabilities: ['isdocSchema'],
  uses: ['archive'],
  settings: isdocSettings,
  events: isdocArchivedEvents,
  outcomes: [...isdocRecordTypes.map(isdocArchivedType), ACTION_FAILED],
  // Without the schema check the archive cannot give its verdict, so it does not start.
  deps: (p): ArchiveDeps => {
    if (!p.isdocSchema)
      throw new Error('archive-isdoc: no ISDOC schema check given (the handler passes isdocSchema)');
    return { ...actionContextDeps(p), objects: p.archive, schema: p.isdocSchema };
  },
  run: (deps: ArchiveDeps) => (event) => archiveIsdoc(deps, event),
  routes: (config) =>
    config.isdoc.enabled
      ? [
          {
            id: 'archive-isdoc',
            description:
              'Archive the ISDOC (and optionally the PDF) of each new or changed issued (advance) invoice to S3.',
            pattern: {
              source: eventSourceOf(config),
              'detail-type': isdocRecordTypes.flatMap((t) => [
                recordDetailType(t, 'Created'),
                recordDetailType(t, 'Updated'),
              ]),
            },
            maxConcurrency: 4,
            // 204 "not ready" is retried by redelivery until the deadline, so allow more receives.
            maxReceiveCount: 12,
            timeoutSeconds: 60,
          },
        ]
      : [],
});
