/**
 * Which connection a delivery to the intake is for: `/intake/{connection}/{source}` names it,
 * `/intake/{source}` means the deployment's own connection (`ACCOUNTING_CONNECTION`, the only one
 * of a single-company deployment or of a local run of one); a local run of many has none, and
 * there the connection must be named. The registry — the deployment's
 * registry of one, the DynamoDB table, or the local runtime's — says whether it exists and is
 * paused, and gives its events' `source`. Read only after the signature is verified, so an
 * unsigned request learns nothing of the registry and costs no read.
 */
import { type ConnectionSourceOf, connectionEventSource, connectionSchema } from '../connection.js';

/** The connection an accepted order goes into, and the `source` of its intake events. */
export interface IntakeTarget {
  readonly connection: string;
  readonly eventSource: string;
}

/** Why no order can go into the connection a request names (`unnamed`: it names none, and there is no own one). */
export type IntakeRefusal = 'unknown' | 'paused' | 'unnamed';

export interface IntakeConnections {
  /** `named`: the `{connection}` path segment; absent for `/intake/{source}`. */
  resolve(named: string | undefined): Promise<IntakeTarget | IntakeRefusal>;
}

/**
 * What the intake reads of the connection registry (`ConnectionRegistry['get']`, a layer above the
 * intake): an entry's name, its own `source`, and whether it is paused.
 */
export interface IntakeRegistry {
  get(name: string): Promise<(ConnectionSourceOf & { readonly paused: boolean }) | undefined>;
}

/**
 * The registry of a single-company deployment as the intake reads it: its own connection only,
 * never paused (pausing it is a change of the deployment). Unlike the poller's and the actions'
 * registry of one it needs no service settings: the endpoint never calls the service.
 */
export function ownConnectionRegistry(own: { connection: string; eventSource: string }): IntakeRegistry {
  return {
    get: async (name) =>
      name === own.connection ? { name, source: own.eventSource, paused: false } : undefined,
  };
}

/** The intake's connections read from a registry; `/intake/{source}` means `ownConnection`, if any. */
export function registryIntakeConnections(
  registry: IntakeRegistry,
  ownConnection: string | undefined,
): IntakeConnections {
  return {
    async resolve(named) {
      const name = named ?? ownConnection;
      if (name === undefined) return 'unnamed';
      // A name no connection can have is not looked up (nor is it echoed anywhere).
      if (!connectionSchema.safeParse(name).success) return 'unknown';
      const entry = await registry.get(name);
      if (!entry) return 'unknown';
      if (entry.paused) return 'paused';
      return { connection: entry.name, eventSource: connectionEventSource(entry) };
    },
  };
}
