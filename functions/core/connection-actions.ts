/**
 * Actions for every connection of the registry (a deployment with `connectionRegistry`): one action
 * function serves the events of all connections. For each event, the connection it names
 * (`detail.connection`, which its `source` must name too — `createActionEntry` with
 * `EACH_CONNECTION` checks that) is read from the registry, and the action runs with that
 * connection's ports — its client (credentials, rate limit), its settings — only when the
 * connection is registered, not paused, and its settings route the event to this action. Otherwise
 * nothing is done: the outcome is `skipped` and a warning names the connection and the reason.
 *
 * A connection's action settings are the deployment's (the function's `ACTIONS_*`) overridden by
 * its entry's `actions`. The deployment's settings decide which routes exist at all: a connection
 * can narrow or switch off an action, not switch on one the deployment has no route for.
 */
import { ENV } from '../shared/env-names.js';
import type {
  ActionPorts,
  ActionResource,
  EventActionDefinition,
  ScheduledActionDefinition,
} from './actions/action-definition.js';
import type { ActionEvent } from './actions/action-event.js';
import { type ActionsConfig, loadActionsConfig } from './actions/config.js';
import type { ActionOutcome } from './actions/outcomes.js';
import type { ActionFn } from './actions/run-action.js';
import type { ConnectionEntry } from './connections/connection-entry.js';
import type { ConnectionRegistry, RegistryScanner } from './connections/registry.js';
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
 * The action settings of one connection: the deployment's environment, overridden by the entry's
 * `actions`, with the entry's name and variant (so `eventSource` is `accounting.<name>`).
 */
export function connectionActionsConfig(
  env: Env,
  entry: Pick<ConnectionEntry, 'name' | 'variant' | 'actions'>,
): ActionsConfig {
  return loadActionsConfig({
    ...env,
    ...entry.actions,
    [ENV.connection]: entry.name,
    [ENV.serviceVariant]: entry.variant,
    [ENV.eventSource]: undefined,
  });
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

export interface EachConnectionDeps<R extends ActionResource> {
  registry: Pick<ConnectionRegistry, 'get'>;
  /** The deployment's environment: every connection's default action settings. */
  env: Env;
  /** One connection's ports: its client and context with these settings, and the stores. */
  portsFor(entry: ConnectionEntry, config: ActionsConfig): Promise<ActionPorts<R>>;
  logger: Logger;
}

/** The action as one `ActionFn` for the events of every connection of the registry. */
export function actionForEachConnection<R extends ActionResource, D>(
  action: EventActionDefinition<R, D>,
  deps: EachConnectionDeps<R>,
): ActionFn {
  const refuse = (event: ActionEvent, refusal: ConnectionRefusal): ActionOutcome => {
    const { connection } = event.envelope;
    deps.logger.warn('action refused for connection', {
      action: action.name,
      connection,
      refusal,
      eventId: event.eventId,
      detailType: event.detailType,
    });
    return { status: 'skipped', reason: `connection '${connection}' ${REFUSALS[refusal]}` };
  };
  return async (event, options) => {
    const entry = await deps.registry.get(event.envelope.connection);
    if (!entry) return refuse(event, 'unknown');
    if (entry.paused) return refuse(event, 'paused');
    const config = connectionActionsConfig(deps.env, entry);
    if (!routesEventTo(action, config, event)) return refuse(event, 'switched-off');
    const ports = await deps.portsFor(entry, config);
    return action.run(action.deps(ports))(event, options);
  };
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
export async function scheduledForEachConnection<R extends ActionResource, D, T>(
  action: ScheduledActionDefinition<R, D, T>,
  deps: Omit<EachConnectionDeps<R>, 'registry'> & { registry: RegistryScanner },
): Promise<Record<string, T>> {
  const { entries } = await deps.registry.scan();
  const results: Record<string, T> = {};
  const failed: string[] = [];
  for (const entry of entries.filter((e) => !e.paused)) {
    const config = connectionActionsConfig(deps.env, entry);
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
