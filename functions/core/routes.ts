/**
 * The routing table: which events trigger which action. The CDK stack turns each route into
 * an EventBridge rule → SQS queue → function; the local runtime's bus applies the same
 * patterns in process. Nothing else decides routing.
 *
 * The routes are the action registry's (`actions/registry.ts`): each entry derives its own from
 * the action settings, and its name is the route's `handler`. Shapes and pattern pieces live in
 * `route-spec.ts`.
 *
 * Every route matches `source` (the deployment's event source: `accounting.<connection>` or
 * `EVENT_SOURCE`) as well as the detail-type, so an event put on the bus by anyone else triggers
 * nothing. Filters on the record also let a claim-checked event through (its record travels by
 * reference); the actions read the record from the service before acting, whatever the event says.
 *
 * `buildRoutes(config)` derives the table from the action settings (each step can be switched
 * off); `routes` is the table for the defaults. With the connection registry
 * (`{ everyConnection: true }`) a route matches the source of every connection (`accounting.`
 * prefix) instead of one: the action function resolves the event's connection from the registry
 * and acts only when the source names that connection (`detail.connection`).
 * `buildScheduledActions` lists the functions that run on a schedule instead of on an event (the
 * e-invoice status tracker).
 */

import { defaultActionsConfig } from './actions/actions-config.js';
import type { ActionsConfig } from './actions/config.js';
import { eventActions, scheduledActionDefinitions } from './actions/registry.js';
import { CONNECTION_SOURCE_PREFIX } from './connection.js';
import type { Route, ScheduledAction } from './route-spec.js';

export type { Route, ScheduledAction } from './route-spec.js';

export interface BuildRoutesOptions {
  /** Routes for every connection of the registry: `source` matches any `accounting.<connection>`. */
  everyConnection?: boolean;
}

/** The routing table for the given action settings. Routes of switched-off steps are left out. */
export function buildRoutes(
  config: ActionsConfig = defaultActionsConfig(),
  options: BuildRoutesOptions = {},
): Route[] {
  return eventActions.flatMap((action) =>
    action.routes(config).map(
      (route): Route => ({
        ...route,
        ...(options.everyConnection
          ? { pattern: { ...route.pattern, source: [{ prefix: CONNECTION_SOURCE_PREFIX }] } }
          : {}),
        handler: action.name,
        outcomes: route.outcomes ?? action.outcomes,
      }),
    ),
  );
}

/** Scheduled functions for the given settings. */
export function buildScheduledActions(config: ActionsConfig = defaultActionsConfig()): ScheduledAction[] {
  return scheduledActionDefinitions.flatMap((action) =>
    action
      .schedules(config)
      .map((schedule): ScheduledAction => ({ ...schedule, handler: action.name, outcomes: action.outcomes })),
  );
}

/** The routing table for the default settings. */
export const routes: Route[] = buildRoutes();

/** Scheduled functions for the default settings (none: e-invoicing is off until partners are configured). */
export const scheduledActions: ScheduledAction[] = buildScheduledActions();
