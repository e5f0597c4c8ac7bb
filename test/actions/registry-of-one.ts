/**
 * The one per-connection action path (core `connectionActionEntry`) as a single-company deployment
 * runs it: the registry of one read from the environment (`adapters/env-connection-registry.ts`,
 * what the Lambda reads), the tests' connection, and the given ports for it. The action's settings
 * come from that path (the environment's `ACTIONS_*`), as on Lambda.
 */
import { createEnvConnectionRegistry } from '#functions/adapters/env-connection-registry.js';
import type {
  ActionPorts,
  ActionResource,
  EventActionDefinition,
} from '#functions/core/actions/action-definition.js';
import type { ActionsConfig } from '#functions/core/actions/config.js';
import type { ActionEntry } from '#functions/core/actions/run-action.js';
import { connectionActionEntry, type EachConnectionDeps } from '#functions/core/connection-actions.js';
import type { Logger } from '#functions/core/ports.js';
import { ENV } from '#functions/shared/env-names.js';
import { CONNECTION } from './support.js';

/** A connection's ports but its settings, which the path derives from the registry entry (built once). */
export type PortsOf<R extends ActionResource> = (config: ActionsConfig) => Omit<ActionPorts<R>, 'config'>;

/** The deps of the one path: the registry of one for `CONNECTION` with `env`'s settings, and `ports`. */
export function registryOfOne<R extends ActionResource>(
  env: Readonly<Record<string, string>>,
  ports: PortsOf<R>,
  logger: Logger,
): EachConnectionDeps<R> {
  // The service's address is the deployment's setting (sk has no preset); `ports` holds the client.
  const deployment = { [ENV.connection]: CONNECTION, [ENV.baseUrl]: 'https://api.example.sk', ...env };
  // Built once, as a container builds its connection's ports once (its guard, its stores).
  let built: Omit<ActionPorts<R>, 'config'> | undefined;
  return {
    registry: createEnvConnectionRegistry(deployment),
    env: deployment,
    portsFor: async (_entry, config) => {
      built ??= ports(config);
      return { ...built, config } as ActionPorts<R>;
    },
    logger,
  };
}

/** The action's entry on the one path, for the registry of one (`registryOfOne`). */
export function registryOfOneEntry<R extends ActionResource, D>(
  action: EventActionDefinition<R, D>,
  env: Readonly<Record<string, string>>,
  ports: PortsOf<R>,
  logger: Logger,
): ActionEntry {
  return connectionActionEntry(action, registryOfOne(env, ports, logger));
}
