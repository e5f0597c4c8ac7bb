/**
 * The shapes of the routing table (`routes.ts`) and the pattern pieces the actions' routes are
 * built from. The CDK stack turns each route into an EventBridge rule → SQS queue → function;
 * the local bus applies the same patterns in process.
 *
 * Patterns use the subset of EventBridge content filtering that `matchesPattern`
 * (`event-pattern.ts`) implements: exact values (arrays = any of), `prefix`,
 * `anything-but`, `exists`, nested objects for `detail`, `$or` of nested filters.
 */
import { findOperation } from '../accounting/endpoints.js';
import type { ActionsConfig } from './actions/config.js';
import type { EventPatternSpec, NestedPattern, PatternValue } from './event-pattern.js';

/**
 * A route's pattern: the detail-types it names may be any of the catalog's (records, payments,
 * connection health, the intake's, other actions' outcomes); `buildRoutes` refuses one that is not
 * in the catalog, or that the action cannot check (not a poller event and not among its `triggers`).
 */
export interface RoutePattern extends EventPatternSpec {
  'detail-type': string[];
}

export interface Route {
  /** Stable id: names the rule, queue and function. */
  readonly id: string;
  /** Handler module under `functions/handlers/` (without extension): the action's registry name. */
  readonly handler: string;
  readonly description: string;
  readonly pattern: RoutePattern;
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
  /** Handler module under `functions/handlers/` (without extension): the action's registry name. */
  readonly handler: string;
  readonly description: string;
  /** Minutes between runs (Scheduler's minimum is 1). */
  readonly rateMinutes: number;
  readonly timeoutSeconds: number;
  /** Detail-types the function may publish; its role may put no other. */
  readonly outcomes: readonly string[];
  /**
   * Not run by the local runtime's timer (which runs the other passes on every interval): a daily
   * report is shown on demand there instead (the console's page).
   */
  readonly notLocal?: boolean;
}

/**
 * A route as an action's registry entry states it: the registry fills in `handler` (the entry's
 * name) and, when the route does not narrow them, `outcomes` (the entry's).
 */
export type RouteSpec = Omit<Route, 'handler' | 'outcomes'> & { readonly outcomes?: Route['outcomes'] };

/** A schedule as an action's registry entry states it (the registry fills in `handler` and `outcomes`). */
export type ScheduleSpec = Omit<ScheduledAction, 'handler' | 'outcomes'>;

/** `a.b.c` + values → `{ a: { b: { c: values } } }` (a nested `detail` filter). */
export function nestedFilter(path: string, values: PatternValue[]): NestedPattern {
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
export function recordOrClaimCheck(recordFilter: NestedPattern): NestedPattern {
  return { $or: [{ record: recordFilter }, { recordRef: { key: [{ exists: true }] } }] };
}

/**
 * The service variant has the operation (sending exists only in the Slovak contract): actions the
 * service cannot perform get no route, rather than failing on every event.
 */
export function offers(config: ActionsConfig, operationId: string): boolean {
  return findOperation(operationId, config.variant) !== undefined;
}
