import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { recordDetailType } from '#functions/core/events/envelope.js';
import { type RouteSpec, recordOrClaimCheck } from '#functions/core/route-spec.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from '../action-definition.js';
import { transferEvents, transferredType } from './events.js';
import { transferSettings } from './settings.js';
import { type TransferDeps, transferDocument } from './transfer-document.js';
import { allTransferSteps, transferStepsFor } from './transfer-steps.js';

/** The registry entry (registry.ts): one route per transfer step the settings switch on. */
export const transferDocumentsAction = defineEventAction({
  name: 'transfer-documents',
  module: import.meta.url,
  uses: ['idempotency'],
  settings: transferSettings,
  events: transferEvents,
  outcomes: [...allTransferSteps.map((s) => transferredType(s.sourceRecordType)), ACTION_FAILED],
  deps: (p): TransferDeps => ({ ...actionContextDeps(p), guard: p.idempotency }),
  run: (deps: TransferDeps) => (event, options) => transferDocument(deps, event, options),
  routes: (config) =>
    transferStepsFor(config.variant)
      .filter((step) => config.transfers[step.step])
      .map(
        (step): RouteSpec => ({
          id: step.routeId,
          description: `Transfer each ${step.sourceRecordType} that is ${step.transferableStatuses.join('/')} fully to a ${step.targetRecordType}.`,
          pattern: {
            source: eventSourceOf(config),
            'detail-type': [
              recordDetailType(step.sourceRecordType, 'Created'),
              recordDetailType(step.sourceRecordType, 'Updated'),
            ],
            detail: recordOrClaimCheck({ Status: [...step.transferableStatuses] }),
          },
          outcomes: [transferredType(step.sourceRecordType), ACTION_FAILED],
          // Transfers create documents: few at a time keeps the service's rate limit.
          maxConcurrency: 2,
          maxReceiveCount: 5,
          timeoutSeconds: 60,
        }),
      ),
});
