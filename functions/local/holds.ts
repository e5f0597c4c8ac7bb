/**
 * The holds of a local run (`sending-hold.ts`): what the CLI's `holds` and the console's Holds view
 * list and release, on the runtime's own action state and bus. A release is published as
 * `IssuedInvoice.SendingReleased` through the bus like any other event.
 */
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { type Hold, readHolds, releaseHold } from '../core/actions/sending-hold.js';
import type { CheckpointStore } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import { LOCAL_RESOURCES } from './local-stores.js';
import type { Runtime } from './runtime-options.js';

export interface HoldRow extends Hold {
  connection: string;
}

export interface LocalHolds {
  /** Every hold of the runtime's connections, held ones first. */
  list(): Promise<HoldRow[]>;
  /** A person releases the held invoice `id` of `connection`; `NoHoldError` when none is held. */
  release(request: { connection: string; id: string; by: string; via: 'cli' | 'console' }): Promise<Hold>;
}

export function localHolds(
  runtime: Pick<Runtime, 'stores' | 'bus' | 'connections' | 'connection'>,
): LocalHolds {
  const state: CheckpointStore<unknown> = createDynamoDbCheckpointStore({
    client: runtime.stores.servers.dynamoDb,
    tableName: LOCAL_RESOURCES.stateTable,
  });
  return {
    async list() {
      const names = [...new Set([runtime.connection, ...runtime.connections()])];
      const rows: HoldRow[] = [];
      for (const connection of names) {
        for (const hold of await readHolds(state, connection)) rows.push({ ...hold, connection });
      }
      return rows.sort(
        (a, b) =>
          Number(a.status !== 'held') - Number(b.status !== 'held') || a.heldAt.localeCompare(b.heldAt),
      );
    },
    release: (request) => releaseHold({ state, publisher: runtime.bus, clock: systemClock }, request),
  };
}
