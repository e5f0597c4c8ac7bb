/**
 * The one per-connection action path, for one connection and for many, on Lambda and locally. For
 * each event, the connection it names (`detail.connection`) is read from the connection registry
 * port — a DynamoDB table or a file of many, or the environment-backed registry of one for a
 * single-company deployment — and the action runs with that connection's ports (its client, its
 * settings) only when the connection is registered, not paused, the event comes from that
 * connection's own event source, and its settings route the event to this action. An unknown,
 * paused or switched-off connection is refused the same way everywhere: the outcome is `skipped`
 * and a log line names the connection and the reason (a warning for an unknown or paused one; at
 * info for an action its settings switch off, which is configuration, not a fault). An event whose `source` is not its
 * connection's is invalid (dead-lettered): the idempotency and archive keys are built from
 * `detail.connection`, so a replay naming another connection must not act.
 *
 * A connection's action settings are the deployment's (`ACTIONS_*`) overridden by its entry's
 * `actions`. The deployment's settings decide which routes exist at all: a connection can narrow
 * or switch off an action, not switch on one the deployment has no route for.
 *
 * Only adapters differ between the runtimes: the registry port, and `portsFor`, which builds one
 * connection's client and stores (Lambda: `handlers/action-runtime.ts`; local: `local/local-actions.ts`).
 */

import { ENV } from '../shared/env-names.js';
import type {
  ActionPorts,
  ActionResource,
  EventActionDefinition,
  ScheduledActionDefinition,
} from './actions/action-definition.js';
import type { ActionEvent } from './actions/action-event.js';
import type { ActionSettings } from './actions/action-settings.js';
import { type ActionsConfig, loadActionsConfigOf } from './actions/config.js';
import { InvalidActionEventError } from './actions/errors.js';
import type { ActionOutcome } from './actions/outcomes.js';
import { type ActionEntry, type ActionFn, createActionEntry } from './actions/run-action.js';
import { connectionEventSource } from './connection.js';
import type { ConnectionEntry } from './connections/connection-entry.js';
import { matchesPattern } from './event-pattern.js';
import type { Logger } from './ports.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Why an event of a connection is not acted on. */
export type ConnectionRefusal = 'unknown' | 'paused' | 'switched-off';

const REFUSALS: Record<ConnectionRefusal, string> = {
  unknown: 'is not in the connection registry',
  paused: 'is paused',
  'switched-off': 'has this action switched off for this event (its actions settings)',
};

/**
 * What the action path reads of a connection's registry entry; its events' source is
 * `connectionEventSource(entry)` (the entry's own `source`, or `accounting.<name>`).
 */
export type ActionConnection = Pick<ConnectionEntry, 'name' | 'variant' | 'actions' | 'paused' | 'source'>;

/** The registry port of the action path: any connection registry (DynamoDB, file, environment). */
export interface ActionConnections<C extends ActionConnection = ActionConnection> {
  get(name: string): Promise<C | undefined>;
}

/** The registry port of the scheduled actions: every connection, paused ones included. */
export interface ActionConnectionScanner<C extends ActionConnection = ActionConnection> {
  scan(): Promise<{ entries: C[] }>;
}

/**
 * The action settings of one connection: the deployment's environment, overridden by the entry's
 * `actions`, with the entry's name, variant and event source (`accounting.<name>` unless the entry
 * names its own): the shared part and the sections of `settings` (an action's own; the local
 * runtime: every action's).
 */
export function connectionActionsConfig(
  env: Env,
  entry: Pick<ActionConnection, 'name' | 'variant' | 'actions' | 'source'>,
  settings: readonly ActionSettings[],
): ActionsConfig {
  return loadActionsConfigOf(
    {
      ...env,
      ...entry.actions,
      [ENV.connection]: entry.name,
      [ENV.serviceVariant]: entry.variant,
      [ENV.eventSource]: connectionEventSource(entry),
    },
    settings,
  );
}

/** The settings an action reads: its own section, or none beyond the shared part. */
export function settingsOf(action: { readonly settings?: ActionSettings }): readonly ActionSettings[] {
  return action.settings ? [action.settings] : [];
}

/** Whether the settings give `action` a route that matches the event (as the rules would). */
export function routesEventTo(
  action: Pick<EventActionDefinition, 'routes'>,
  config: ActionsConfig,
  event: ActionEvent,
): boolean {
  const subject = { source: event.source, 'detail-type': event.detailType, detail: event.envelope };
  return action.routes(config).some((route) => matchesPattern(route.pattern, subject));
}

export interface EachConnectionDeps<R extends ActionResource, C extends ActionConnection = ActionConnection> {
  registry: ActionConnections<C>;
  /** The deployment's environment: every connection's default action settings. */
  env: Env;
  /** One connection's ports: its client and context with these settings, and the stores. */
  portsFor(entry: C, config: ActionsConfig): Promise<ActionPorts<R>>;
  logger: Logger;
}

/** The action as one `ActionFn` for the events of every connection of the registry. */
export function actionForEachConnection<R extends ActionResource, D, C extends ActionConnection>(
  action: EventActionDefinition<R, D>,
  deps: EachConnectionDeps<R, C>,
): ActionFn {
  const refuse = (event: ActionEvent, refusal: ConnectionRefusal): ActionOutcome => {
    const { connection } = event.envelope;
    const data = {
      action: action.name,
      connection,
      refusal,
      eventId: event.eventId,
      detailType: event.detailType,
    };
    // An action off for this connection by its own settings is what was asked for: counted as a
    // skipped outcome, logged at info, not a warning. An unknown or paused connection is one.
    if (refusal === 'switched-off') deps.logger.info('action switched off for connection', data);
    else deps.logger.warn('action refused for connection', data);
    return { status: 'skipped', reason: `connection '${connection}' ${REFUSALS[refusal]}` };
  };
  return async (event, options) => {
    const entry = await deps.registry.get(event.envelope.connection);
    if (!entry) {
      // An unknown connection's events come from its own source (a removed connection's late
      // events); one from another source names a connection it is not (a replay): invalid.
      if (event.source !== connectionEventSource({ name: event.envelope.connection })) {
        throw new InvalidActionEventError(event.detailType, [
          'source: not the source of the connection the event names (detail.connection)',
        ]);
      }
      return refuse(event, 'unknown');
    }
    const config = connectionActionsConfig(deps.env, entry, settingsOf(action));
    // Before anything else of the entry: the keys are built from `detail.connection`.
    if (event.source !== config.eventSource) {
      throw new InvalidActionEventError(event.detailType, [
        'source: not the source of the connection the event names (detail.connection)',
      ]);
    }
    if (entry.paused) return refuse(event, 'paused');
    if (!routesEventTo(action, config, event)) return refuse(event, 'switched-off');
    const ports = await deps.portsFor(entry, config);
    return action.run(action.deps(ports))(event, options);
  };
}

/**
 * The entry of an action for the events of every connection: the event is checked (schema, size),
 * then acted on through `actionForEachConnection`. The SQS handler calls it per record, the local
 * bus per delivery.
 */
export function connectionActionEntry<R extends ActionResource, D, C extends ActionConnection>(
  action: EventActionDefinition<R, D>,
  deps: EachConnectionDeps<R, C>,
): ActionEntry {
  return createActionEntry(action.name, deps.logger, actionForEachConnection(action, deps), action.triggers);
}

/** A run of a scheduled action failed for some connections (the others ran); names them. */
export class ConnectionPassesFailedError extends Error {
  override readonly name = 'ConnectionPassesFailedError';
  constructor(
    readonly action: string,
    readonly connections: readonly string[],
  ) {
    super(
      `${action}: the pass failed for ${connections.length} connection(s): ${connections.slice(0, 10).join(', ')}`,
    );
  }
}

/**
 * One run of a scheduled action (the e-invoice tracker) for every connection of the registry: each
 * registered, unpaused connection whose settings schedule it gets one pass on its own ports, one
 * after another. A connection's failure is logged and the others go on; the run then fails with
 * `ConnectionPassesFailedError` (the function's errors alarm), and the next run tries again.
 */
export async function scheduledForEachConnection<R extends ActionResource, D, T, C extends ActionConnection>(
  action: ScheduledActionDefinition<R, D, T>,
  deps: Omit<EachConnectionDeps<R, C>, 'registry'> & { registry: ActionConnectionScanner<C> },
): Promise<Record<string, T>> {
  const { entries } = await deps.registry.scan();
  const results: Record<string, T> = {};
  const failed: string[] = [];
  for (const entry of entries.filter((e) => !e.paused)) {
    const config = connectionActionsConfig(deps.env, entry, settingsOf(action));
    if (action.schedules(config).length === 0) continue;
    try {
      results[entry.name] = await action.run(action.deps(await deps.portsFor(entry, config)))();
    } catch (error) {
      failed.push(entry.name);
      deps.logger.error('scheduled action failed for connection', {
        action: action.name,
        connection: entry.name,
        error: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  if (failed.length > 0) throw new ConnectionPassesFailedError(action.name, failed);
  return results;
}
