/**
 * The routing table: which events trigger which action. The CDK stack turns each route into
 * an EventBridge rule → SQS queue → function; the local runtime's bus applies the same
 * patterns in process. Nothing else decides routing.
 *
 * Patterns use the subset of EventBridge content filtering that `matchesPattern`
 * (`event-pattern.ts`) implements: exact values (arrays = any of), `prefix`,
 * `anything-but`, `exists`, nested objects for `detail`, `$or` of nested filters.
 *
 * Every route matches `source` (the deployment's event source: `accounting.<connection>` or
 * `EVENT_SOURCE`) as well as the detail-type, so an event put on the bus by anyone else triggers
 * nothing. Filters on the record also let a claim-checked event through (its record travels by
 * reference); the actions read the record from the service before acting, whatever the event says.
 *
 * `buildRoutes(config)` derives the table from the action settings (each step can be switched
 * off); `routes` is the table for the defaults. `scheduledActions` lists the functions that run on
 * a schedule instead of on an event (the e-invoice status tracker).
 */

import { findOperation } from '../accounting/endpoints.js';
import { type ActionsConfig, defaultActionsConfig, type TransferStep } from './actions/config.js';
import { transferStepsFor } from './actions/transfer-steps.js';
import type { EventPatternSpec, NestedPattern, PatternValue } from './event-pattern.js';

export interface Route {
  /** Stable id: names the rule, queue and function. */
  readonly id: string;
  /** Handler module under `functions/handlers/` (without extension). */
  readonly handler: string;
  readonly description: string;
  readonly pattern: EventPatternSpec;
  /** Upper bound on concurrent invocations (keeps the service's rate limit). */
  readonly maxConcurrency: number;
  /** Deliveries before a message goes to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** Function timeout in seconds (the queue's visibility timeout derives from it). */
  readonly timeoutSeconds: number;
  /** Detail-types the function may publish (its outcomes and `Action.Failed`); its role may put no other. */
  readonly outcomes: readonly string[];
}

/** A function run on a fixed rate (EventBridge Scheduler on AWS, a timer locally). */
export interface ScheduledAction {
  readonly id: string;
  /** Handler module under `functions/handlers/` (without extension). */
  readonly handler: string;
  readonly description: string;
  /** Minutes between runs (Scheduler's minimum is 1). */
  readonly rateMinutes: number;
  readonly timeoutSeconds: number;
  /** Detail-types the function may publish; its role may put no other. */
  readonly outcomes: readonly string[];
}

/** Detail-type every action publishes when it gives up on a record. */
export const ACTION_FAILED = 'Action.Failed';

/** Route ids, stable across configurations. */
export const ROUTE_IDS = {
  receivedOrderToIssueSlip: 'transfer-received-order',
  receivedOrderToIssuedInvoice: 'transfer-received-order-to-invoice',
  issueSlipToIssuedInvoice: 'transfer-issue-slip',
  issuedOfferToReceivedOrder: 'transfer-issued-offer',
  issuedOrderToReceivedInvoice: 'transfer-issued-order',
  archiveIsdoc: 'archive-isdoc',
  sendEInvoice: 'send-einvoice',
  sendEmail: 'send-email',
} as const satisfies Record<TransferStep | 'archiveIsdoc' | 'sendEInvoice' | 'sendEmail', string>;

/** `a.b.c` + values → `{ a: { b: { c: values } } }` (a nested `detail` filter). */
function nestedFilter(path: string, values: PatternValue[]): NestedPattern {
  const parts = path.split('.');
  let node: NestedPattern = { [parts.at(-1)!]: values };
  for (const part of parts.slice(0, -1).reverse()) node = { [part]: node };
  return node;
}

/**
 * A `detail` filter on the carried record, or a claim-checked event (the record travels by
 * reference in `recordRef`, so nothing of it can be filtered on): the action reads the record
 * from the service either way and decides on that.
 */
function recordOrClaimCheck(recordFilter: NestedPattern): NestedPattern {
  return { $or: [{ record: recordFilter }, { recordRef: { key: [{ exists: true }] } }] };
}
/** The routing table for the given action settings. Routes of switched-off steps are left out. */
export function buildRoutes(config: ActionsConfig = defaultActionsConfig()): Route[] {
  const routes: Route[] = [];
  // Only events of this deployment's poller: a rule never matches a foreign source.
  const source = [config.eventSource];

  for (const step of transferStepsFor(config.variant)) {
    if (!config.transfers[step.step]) continue;
    routes.push({
      id: ROUTE_IDS[step.step],
      handler: 'transfer-documents',
      description: `Transfer each ${step.sourceRecordType} that is ${step.transferableStatuses.join('/')} fully to a ${step.targetRecordType}.`,
      pattern: {
        source,
        'detail-type': [`${step.sourceRecordType}.Created`, `${step.sourceRecordType}.Updated`],
        detail: recordOrClaimCheck({ Status: [...step.transferableStatuses] }),
      },
      outcomes: [`${step.sourceRecordType}.Transferred`, ACTION_FAILED],
      // Transfers create documents: few at a time keeps the service's rate limit.
      maxConcurrency: 2,
      maxReceiveCount: 5,
      timeoutSeconds: 60,
    });
  }

  if (config.isdoc.enabled) {
    routes.push({
      id: ROUTE_IDS.archiveIsdoc,
      handler: 'archive-isdoc',
      description:
        'Archive the ISDOC (and optionally the PDF) of each new or changed issued (advance) invoice to S3.',
      pattern: {
        source,
        'detail-type': [
          'IssuedInvoice.Created',
          'IssuedInvoice.Updated',
          'IssuedAdvanceInvoice.Created',
          'IssuedAdvanceInvoice.Updated',
        ],
      },
      outcomes: ['IssuedInvoice.IsdocArchived', 'IssuedAdvanceInvoice.IsdocArchived', ACTION_FAILED],
      maxConcurrency: 4,
      // 204 "not ready" is retried by redelivery until the deadline, so allow more receives.
      maxReceiveCount: 12,
      timeoutSeconds: 60,
    });
  }

  const field = config.sending.partnerField;
  if (config.sending.einvoicePartners.length > 0 && offers(config, 'Documents.sendEInvoice')) {
    routes.push({
      id: ROUTE_IDS.sendEInvoice,
      handler: 'send-invoice',
      description:
        'Send each new issued invoice of a partner configured for e-invoicing through the network.',
      pattern: {
        source,
        'detail-type': ['IssuedInvoice.Created'],
        detail: recordOrClaimCheck(nestedFilter(field, [...config.sending.einvoicePartners])),
      },
      // One sending function: the channel follows the record the service holds, not the event.
      outcomes: ['IssuedInvoice.EmailSent', ACTION_FAILED],
      maxConcurrency: 2,
      maxReceiveCount: 5,
      timeoutSeconds: 60,
    });
  }
  if (config.sending.emailPartners.length > 0 && offers(config, 'Documents.sendEmail')) {
    routes.push({
      id: ROUTE_IDS.sendEmail,
      handler: 'send-invoice',
      description: 'Send each new issued invoice of a partner configured for e-mail by e-mail.',
      pattern: {
        source,
        'detail-type': ['IssuedInvoice.Created'],
        detail: recordOrClaimCheck(
          nestedFilter(
            field,
            config.sending.emailPartners.map((p) => p.key),
          ),
        ),
      },
      outcomes: ['IssuedInvoice.EmailSent', ACTION_FAILED],
      maxConcurrency: 2,
      maxReceiveCount: 5,
      timeoutSeconds: 60,
    });
  }

  return routes;
}

/**
 * The service variant has the operation (sending exists only in the Slovak contract): actions the
 * service cannot perform get no route, rather than failing on every event.
 */
function offers(config: ActionsConfig, operationId: string): boolean {
  return findOperation(operationId, config.variant) !== undefined;
}

/** Scheduled functions for the given settings. */
export function buildScheduledActions(config: ActionsConfig = defaultActionsConfig()): ScheduledAction[] {
  if (config.sending.einvoicePartners.length === 0 || !offers(config, 'EInvoicing.status')) return [];
  return [
    {
      id: 'track-einvoices',
      handler: 'track-einvoices',
      description: 'Poll the status of open e-invoice sendings and emit each transition.',
      rateMinutes: 5,
      timeoutSeconds: 120,
      outcomes: ['IssuedInvoice.EInvoiceStatusChanged', ACTION_FAILED],
    },
  ];
}

/** The routing table for the default settings. */
export const routes: Route[] = buildRoutes();

/** Scheduled functions for the default settings (none: e-invoicing is off until partners are configured). */
export const scheduledActions: ScheduledAction[] = buildScheduledActions();
