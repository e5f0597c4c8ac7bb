/**
 * The action registry: one entry per action, read by infra (routes, schedules, grants, what each
 * function may publish), by the Lambda handlers (`functions/handlers/<name>.ts`) and by the local
 * runtime. An entry states its name, its routes (derived from the transfer table, the ISDOC record
 * types and the sending settings), the stores it uses, how its dependencies are built from one
 * connection's ports, how it runs, and the detail-types it may publish.
 *
 * Adding an action: its core module, one entry here, its handler file (docs/actions.md).
 */
import { isdocRecordTypes } from '../../accounting/collections.js';
import {
  ACTION_FAILED,
  EINVOICE_STATUS_CHANGED,
  EMAIL_SENT,
  isdocArchivedType,
  transferredType,
} from '../events/action-events.js';
import { recordDetailType } from '../events/envelope.js';
import { nestedFilter, offers, type RouteSpec, recordOrClaimCheck } from '../route-spec.js';
import {
  type ActionContext,
  type ActionDefinition,
  defineEventAction,
  defineScheduledAction,
  type EventActionDefinition,
  type ScheduledActionDefinition,
  validateRegistry,
} from './action-definition.js';
import { type ArchiveDeps, archiveIsdoc } from './archive-isdoc.js';
import type { ActionsConfig } from './config.js';
import { type TrackerDeps, trackEInvoices } from './einvoice-tracking.js';
import { type SendDeps, sendInvoice } from './send-invoice.js';
import { type TransferDeps, transferDocument } from './transfer-document.js';
import { allTransferSteps, transferStepsFor } from './transfer-steps.js';

/** What every action takes from the context. */
const common = ({ api, publisher, clock, logger, config }: ActionContext) => ({
  api,
  publisher,
  clock,
  logger,
  config,
});

/** Only events of this deployment's poller: a rule never matches a foreign source. */
const sourceOf = (config: ActionsConfig) => [config.eventSource];

export const transferDocumentsAction = defineEventAction({
  name: 'transfer-documents',
  uses: ['idempotency'],
  outcomes: [...allTransferSteps.map((s) => transferredType(s.sourceRecordType)), ACTION_FAILED],
  deps: (p): TransferDeps => ({ ...common(p), guard: p.idempotency }),
  run: (deps: TransferDeps) => (event, options) => transferDocument(deps, event, options),
  routes: (config) =>
    transferStepsFor(config.variant)
      .filter((step) => config.transfers[step.step])
      .map(
        (step): RouteSpec => ({
          id: step.routeId,
          description: `Transfer each ${step.sourceRecordType} that is ${step.transferableStatuses.join('/')} fully to a ${step.targetRecordType}.`,
          pattern: {
            source: sourceOf(config),
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

export const archiveIsdocAction = defineEventAction({
  name: 'archive-isdoc',
  uses: ['archive'],
  outcomes: [...isdocRecordTypes.map(isdocArchivedType), ACTION_FAILED],
  deps: (p): ArchiveDeps => ({ ...common(p), objects: p.archive }),
  run: (deps: ArchiveDeps) => (event) => archiveIsdoc(deps, event),
  routes: (config) =>
    config.isdoc.enabled
      ? [
          {
            id: 'archive-isdoc',
            description:
              'Archive the ISDOC (and optionally the PDF) of each new or changed issued (advance) invoice to S3.',
            pattern: {
              source: sourceOf(config),
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

/** A sending route: new issued invoices of the given partners (by the partner field). */
function sendingRoute(config: ActionsConfig, id: string, description: string, partners: string[]): RouteSpec {
  return {
    id,
    description,
    pattern: {
      source: sourceOf(config),
      'detail-type': [recordDetailType('IssuedInvoice', 'Created')],
      detail: recordOrClaimCheck(nestedFilter(config.sending.partnerField, partners)),
    },
    maxConcurrency: 2,
    maxReceiveCount: 5,
    timeoutSeconds: 60,
  };
}

export const sendInvoiceAction = defineEventAction({
  name: 'send-invoice',
  uses: ['idempotency', 'actionState'],
  // One sending function: the channel follows the record the service holds, not the event.
  outcomes: [EMAIL_SENT, ACTION_FAILED],
  deps: (p): SendDeps => ({
    ...common(p),
    guard: p.idempotency,
    ...(p.config.sending.einvoicePartners.length > 0 ? { sendings: p.actionState } : {}),
  }),
  run: (deps: SendDeps) => (event, options) => sendInvoice(deps, event, options),
  routes: (config) => {
    const { einvoicePartners, emailPartners } = config.sending;
    const out: RouteSpec[] = [];
    if (einvoicePartners.length > 0 && offers(config, 'Documents.sendEInvoice')) {
      out.push(
        sendingRoute(
          config,
          'send-einvoice',
          'Send each new issued invoice of a partner configured for e-invoicing through the network.',
          [...einvoicePartners],
        ),
      );
    }
    if (emailPartners.length > 0 && offers(config, 'Documents.sendEmail')) {
      out.push(
        sendingRoute(
          config,
          'send-email',
          'Send each new issued invoice of a partner configured for e-mail by e-mail.',
          emailPartners.map((p) => p.key),
        ),
      );
    }
    return out;
  },
});

export interface TrackActionDeps extends TrackerDeps {
  /** The connection whose open sendings a pass polls. */
  connection: string;
}

export const trackEInvoicesAction = defineScheduledAction({
  name: 'track-einvoices',
  uses: ['actionState'],
  outcomes: [EINVOICE_STATUS_CHANGED, ACTION_FAILED],
  deps: ({ api, publisher, clock, logger, config, actionState }): TrackActionDeps => ({
    api,
    sendings: actionState,
    publisher,
    clock,
    logger,
    connection: config.connection,
  }),
  run: (deps: TrackActionDeps) => () => trackEInvoices(deps, deps.connection),
  schedules: (config) =>
    config.sending.einvoicePartners.length > 0 && offers(config, 'EInvoicing.status')
      ? [
          {
            id: 'track-einvoices',
            description: 'Poll the status of open e-invoice sendings and emit each transition.',
            rateMinutes: 5,
            timeoutSeconds: 120,
          },
        ]
      : [],
});

/** Every action, in routing-table order. */
export const actionRegistry: readonly ActionDefinition[] = validateRegistry([
  transferDocumentsAction,
  archiveIsdocAction,
  sendInvoiceAction,
  trackEInvoicesAction,
]);

export const eventActions = actionRegistry.filter((a): a is EventActionDefinition => a.kind === 'event');
export const scheduledActionDefinitions = actionRegistry.filter(
  (a): a is ScheduledActionDefinition => a.kind === 'scheduled',
);

/** The registry entry of a handler name, or `undefined`. */
export function findAction(name: string): ActionDefinition | undefined {
  return actionRegistry.find((a) => a.name === name);
}
