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

import type { EventActionDefinition } from './actions/action-definition.js';
import { defaultActionsConfig } from './actions/actions-config.js';
import type { ActionsConfig } from './actions/config.js';
import { eventActions, scheduledActionDefinitions } from './actions/registry.js';
import { CONNECTION_SOURCE_PREFIX } from './connection.js';
import { isDetailType } from './event-catalog.js';
import { sourceCatalog } from './events/catalog.js';
import type { Route, ScheduledAction } from './route-spec.js';

export type { Route, ScheduledAction } from './route-spec.js';

export interface BuildRoutesOptions {
  /** Routes for every connection of the registry: `source` matches any `accounting.<connection>`. */
  everyConnection?: boolean;
}

/** Thrown when the routing table is malformed: names every route and loop at fault. */
export class RoutingTableError extends Error {
  override readonly name = 'RoutingTableError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid routing table: ${problems.join('; ')}`);
  }
}

/** The routes of `actions` for the given settings, checked (`checkRoutes`). Routes of switched-off steps are left out. */
export function routesOf(
  actions: readonly EventActionDefinition[],
  config: ActionsConfig,
  options: BuildRoutesOptions = {},
): Route[] {
  const table = actions.flatMap((action) =>
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
  checkRoutes(table, actions);
  return table;
}

/**
 * Every detail-type a route names is in the catalog, and one its action can check (a poller event,
 * or one of its `triggers`); no action is triggered, directly or through others, by its own outcome.
 */
export function checkRoutes(table: readonly Route[], actions: readonly EventActionDefinition[]): void {
  const problems: string[] = [];
  const byName = new Map(actions.map((a) => [a.name, a]));
  for (const route of table) {
    const triggers = byName.get(route.handler)?.triggers ?? [];
    for (const detailType of route.pattern['detail-type']) {
      if (!isDetailType(detailType)) {
        problems.push(`${route.id}: '${detailType}' is no detail-type of the event catalog`);
      } else if (
        !sourceCatalog.isDetailType(detailType) &&
        !triggers.some((t) => t.detailType === detailType)
      ) {
        problems.push(`${route.id}: '${detailType}' is not among the triggers of ${route.handler}`);
      }
    }
  }
  // An edge a → b when an outcome a may publish triggers b.
  const triggeredBy = new Map<string, Set<string>>();
  for (const route of table) {
    for (const detailType of route.pattern['detail-type']) {
      const set = triggeredBy.get(detailType) ?? new Set<string>();
      set.add(route.handler);
      triggeredBy.set(detailType, set);
    }
  }
  const next = (name: string) =>
    [...new Set(table.filter((r) => r.handler === name).flatMap((r) => r.outcomes))].flatMap((o) => [
      ...(triggeredBy.get(o) ?? []),
    ]);
  const reported = new Set<string>();
  const visit = (name: string, path: readonly string[]): void => {
    for (const target of next(name)) {
      const at = path.indexOf(target);
      if (at >= 0) {
        const loop = [...path.slice(at), target].join(' → ');
        const key = [...path.slice(at)].sort().join(',');
        if (!reported.has(key)) problems.push(`loop: ${loop}`);
        reported.add(key);
      } else {
        visit(target, [...path, target]);
      }
    }
  };
  for (const name of new Set(table.map((r) => r.handler))) visit(name, [name]);
  if (problems.length > 0) throw new RoutingTableError(problems);
}

/** The routing table of the registry for the given action settings. */
export function buildRoutes(
  config: ActionsConfig = defaultActionsConfig(),
  options: BuildRoutesOptions = {},
): Route[] {
  return routesOf(eventActions, config, options);
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
