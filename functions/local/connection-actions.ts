/**
 * The actions of every connection of the local runtime, through the one per-connection path
 * (`startLocalActions` → `core/connection-actions.ts`). The pollers are the registry: a delivery is
 * acted on for the event's `detail.connection` only when that connection is known, not paused
 * (its plan, which the registry file may change while running), the event comes from its source,
 * and its own settings route the event to the action — the same checks as on AWS. The bus gets
 * one route per route id: with one connection its routes as they are; with many, each route id
 * once, matching the detail-types of every connection's route of that id.
 */
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import type { DeadLetterSink } from '../core/actions/dead-letter-sink.js';
import type { Clock, EventPublisher, Logger } from '../core/ports.js';
import type { Route } from '../core/routes.js';
import type { ConnectionPoller } from './connection-poller.js';
import { type LocalConnection, startLocalActions } from './local-actions.js';
import type { LocalStores } from './local-stores.js';

export interface ConnectionActions {
  /** The bus's routes: each route id once. */
  readonly routes: Route[];
  bindPublisher(publisher: EventPublisher & { deadLetterSink?(routeId: string): DeadLetterSink }): void;
  deliver(route: Route, event: EventBridgeEvent): Promise<void>;
  /** Acts for a connection that appeared while running too (on the routes there are). */
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

/** A poller as a connection of the action path: its plan in force and its client. */
function connectionOf(poller: ConnectionPoller): LocalConnection {
  const plan = poller.plan();
  return {
    name: poller.name,
    paused: plan.paused,
    variant: plan.variant,
    env: plan.env,
    api: poller.api,
    sandbox: plan.sandbox,
  };
}

export async function startConnectionActions(
  pollers: readonly ConnectionPoller[],
  deps: ConnectionActionsDeps,
): Promise<ConnectionActions> {
  const byName = new Map<string, ConnectionPoller>(pollers.map((p) => [p.name, p]));
  const actions = await startLocalActions({
    connections: {
      get: (name) => {
        const poller = byName.get(name);
        return poller ? connectionOf(poller) : undefined;
      },
      list: () => [...byName.values()].map(connectionOf),
    },
    stores: deps.stores,
    logger: deps.logger,
    clock: deps.clock,
  });
  return {
    routes: actions.routes,
    bindPublisher: (p) => actions.bindPublisher(p),
    deliver: (route, event) => actions.deliver(route, event),
    async add(poller) {
      if (!byName.has(poller.name)) byName.set(poller.name, poller);
    },
    startTimers: (intervalMs) => actions.startTimers(intervalMs),
    stopTimers: () => actions.stopTimers(),
    close: () => actions.close(),
  };
}
