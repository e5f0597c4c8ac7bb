/**
 * The action registry: one entry per action, read by infra (routes, schedules, grants, what each
 * function may publish), by the Lambda handlers (`functions/handlers/<name>.ts`) and by the local
 * runtime. Each entry (shape: `action-definition.ts`) is defined beside its action's code, so a
 * Lambda bundle holds its own action only, and states its name, its routes (derived from the
 * transfer table, the ISDOC record types and the sending settings), the stores it uses, how its
 * dependencies are built from one connection's ports, how it runs, and the detail-types it may
 * publish, with their schemas (`events`: the catalog takes them from here).
 *
 * Adding an action: its core module with its entry and its `*-events.ts`, one line here, its
 * handler file (docs/actions.md).
 */

import type { CatalogEntry } from '../events/catalog-entry.js';
import {
  type ActionDefinition,
  type EventActionDefinition,
  type ScheduledActionDefinition,
  validateRegistry,
} from './action-definition.js';
import { archiveIsdocAction } from './archive-isdoc/action.js';
import { liquidatePaymentsAction } from './liquidate-payments/action.js';
import { liquidateShopPaymentAction } from './liquidate-shop-payment/action.js';
import { paymentReminderPassAction, paymentRemindersAction } from './payment-reminders/action.js';
import { reportEInvoicingReadinessAction } from './report-einvoicing-readiness/action.js';
import { sendInvoiceAction } from './send-invoice/action.js';
import { trackEInvoicesAction } from './track-einvoices/action.js';
import { transferDocumentsAction } from './transfer-documents/action.js';

/** Every action, in routing-table order. */
const actions = [
  transferDocumentsAction,
  archiveIsdocAction,
  sendInvoiceAction,
  trackEInvoicesAction,
  reportEInvoicingReadinessAction,
  paymentRemindersAction,
  paymentReminderPassAction,
  liquidatePaymentsAction,
  liquidateShopPaymentAction,
];

export const actionRegistry: readonly ActionDefinition[] = validateRegistry(actions);

/** Every detail-type an action may publish (its own outcomes and `Action.Failed`). */
export type ActionOutcomeDetailType = (typeof actions)[number]['outcomes'][number];

/** The outcome catalog entries every action declares beside its code, in registry order. */
export const actionOutcomeEntries = actionRegistry.flatMap(
  (a) => a.events as readonly CatalogEntry<ActionOutcomeDetailType>[],
);

export const eventActions = actionRegistry.filter((a): a is EventActionDefinition => a.kind === 'event');
export const scheduledActionDefinitions = actionRegistry.filter(
  (a): a is ScheduledActionDefinition => a.kind === 'scheduled',
);

/** The registry entry of a handler name, or `undefined`. */
export function findAction(name: string): ActionDefinition | undefined {
  return actionRegistry.find((a) => a.name === name);
}
