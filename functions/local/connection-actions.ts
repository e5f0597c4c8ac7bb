/**
 * The actions of every connection of the local runtime. Each connection has its own actions — its
 * client (so its rate limit), its action settings, its event source — built by `startLocalActions`
 * as for one connection. The bus gets one route per route id: with one connection its routes as
 * they are; with many, each route id once, matching the detail-types of every connection's route
 * of that id, and a delivery goes to the actions of the event's `detail.connection` only when that
 * connection's own route matches the event (its source, its filters), else it is not for it.
 */
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import type { DeadLetterSink } from '../core/actions/dead-letter-sink.js';
import { matchesPattern } from '../core/event-pattern.js';
import type { Clock, EventPublisher, Logger } from '../core/ports.js';
import type { Route } from '../core/routes.js';
import type { ConnectionPoller } from './connection-poller.js';
import { type LocalActions, startLocalActions } from './local-actions.js';
import type { LocalStores } from './local-stores.js';

export interface ConnectionActions {
  /** The bus's routes: each route id once. */
  readonly routes: Route[];
  bindPublisher(publisher: EventPublisher & { deadLetterSink?(routeId: string): DeadLetterSink }): void;
  deliver(route: Route, event: EventBridgeEvent): Promise<void>;
  /** Starts the actions of a connection that appeared while running (on the routes there are). */
  add(poller: ConnectionPoller): Promise<void>;
  startTimers(intervalMs: number): void;
  stopTimers(): void;
  close(): Promise<void>;
}

export interface ConnectionActionsDeps {
  stores: LocalStores;
  logger: Logger;
  clock: Clock;
}

/** Each route id once; with many connections, matching every connection's detail-types of it. */
function mergeRoutes(all: readonly LocalActions[]): Route[] {
  if (all.length === 1) return (all[0] as LocalActions).routes;
  const byId = new Map<string, Route>();
  for (const actions of all) {
    for (const route of actions.routes) {
      const seen = byId.get(route.id);
      const types = new Set([...(seen?.pattern['detail-type'] ?? []), ...route.pattern['detail-type']]);
      byId.set(route.id, { ...(seen ?? route), pattern: { 'detail-type': [...types] } });
    }
  }
  return [...byId.values()];
}

export async function startConnectionActions(
  pollers: readonly ConnectionPoller[],
  deps: ConnectionActionsDeps,
): Promise<ConnectionActions> {
  const byConnection = new Map<string, LocalActions>();
  let publisher: Parameters<LocalActions['bindPublisher']>[0] | undefined;
  let timersMs: number | undefined;
  const start = async (poller: ConnectionPoller) => {
    const plan = poller.plan();
    const actions = await startLocalActions({
      api: poller.api,
      stores: deps.stores,
      env: { ...plan.env },
      connection: poller.name,
      sandbox: plan.sandbox,
      logger: deps.logger,
      clock: deps.clock,
    });
    if (publisher) actions.bindPublisher(publisher);
    if (timersMs !== undefined) actions.startTimers(timersMs);
    byConnection.set(poller.name, actions);
  };
  for (const poller of pollers) await start(poller);
  const single = pollers.length === 1 ? byConnection.get((pollers[0] as ConnectionPoller).name) : undefined;
  const all = () => [...byConnection.values()];
  return {
    routes: mergeRoutes(all()),
    bindPublisher(p) {
      publisher = p;
      for (const actions of all()) actions.bindPublisher(p);
    },
    async deliver(route, event) {
      if (single) return single.deliver(route, event);
      const connection = (event.detail as { connection?: unknown } | undefined)?.connection;
      const actions = typeof connection === 'string' ? byConnection.get(connection) : undefined;
      const own = actions?.routes.find((r) => r.id === route.id);
      if (!actions || !own || !matchesPattern(own.pattern, event)) return; // not for this connection
      await actions.deliver(own, event);
    },
    async add(poller) {
      if (!byConnection.has(poller.name)) await start(poller);
    },
    startTimers(intervalMs) {
      timersMs = intervalMs;
      for (const actions of all()) actions.startTimers(intervalMs);
    },
    stopTimers() {
      timersMs = undefined;
      for (const actions of all()) actions.stopTimers();
    },
    async close() {
      await Promise.all(all().map((actions) => actions.close()));
    },
  };
}
