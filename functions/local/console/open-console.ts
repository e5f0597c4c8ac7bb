/**
 * The console of a running `run`: its feed listens to the bus (events with the routes they
 * matched, every delivery attempt) and its server reads the runtime's own stores, the same ones
 * the CLI's `dlq`, `archive` and `checkpoints` read.
 */
import { createLazyIsdocSchema } from '#functions/adapters/isdoc/lazy-isdoc-schema.js';
import type { Logger } from '#functions/core/ports.js';
import { checkpointRows } from '../commands/checkpoints.js';
import { localHolds } from '../holds.js';
import { readPollStatus } from '../poll-status.js';
import type { Runtime } from '../runtime-options.js';
import type { ConsoleFeed } from './console-feed.js';
import { type ConsoleServer, startConsoleServer } from './console-server.js';

export interface OpenConsoleOptions {
  port: number;
  logger: Logger;
  token?: string;
}

export async function openConsole(
  runtime: Runtime,
  feed: ConsoleFeed,
  options: OpenConsoleOptions,
): Promise<ConsoleServer> {
  const stopEvents = runtime.bus.onEvent((event, routeIds) => feed.onEvent(event, routeIds));
  const stopDeliveries = runtime.bus.onDelivery((outcome) => feed.onDelivery(outcome));
  try {
    const server = await startConsoleServer(
      {
        feed,
        bus: runtime.bus,
        deadLetters: runtime.deadLetterStore,
        archive: runtime.stores.archive,
        isdocSchema: createLazyIsdocSchema(),
        checkpoints: async () => checkpointRows(runtime.stores, await readPollStatus(runtime.stores.dataDir)),
        holds: localHolds(runtime),
        readiness: () => runtime.readiness(),
      },
      options,
    );
    return {
      url: server.url,
      port: server.port,
      async close() {
        stopEvents();
        stopDeliveries();
        await server.close();
      },
    };
  } catch (error) {
    stopEvents();
    stopDeliveries();
    throw error;
  }
}
