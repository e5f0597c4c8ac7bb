/** Our poller wired for the benchmark: the real client and change detector over in-memory stores. */
import { createAccountingClient } from '../functions/accounting/client.js';
import type { CollectionName } from '../functions/accounting/collections.js';
import { parseAccountingConfig } from '../functions/accounting/config.js';
import { createMemoryCheckpointStore } from '../functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '../functions/adapters/local/memory-object-store.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../functions/core/ports.js';
import { type PollAllSummary, pollAll } from '../functions/core/sync/poll-all.js';
import { type PollOptions, pollOptionsSchema } from '../functions/core/sync/poll-options.js';
import { systemClock } from '../functions/shared/clock.js';

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface BenchPoller {
  /** One poll of every collection (one cycle). */
  cycle(): Promise<PollAllSummary>;
  /** Requests sent to the service so far. */
  requests(): number;
  published(): number;
  close(): Promise<void>;
}

export function createBenchPoller(options: {
  baseUrl: string;
  apiKey: string;
  collections: readonly CollectionName[];
  pageSize: number;
  onEvents?: (events: readonly BusEvent[], at: number) => void;
  poll?: Partial<PollOptions>;
  /** The poller's clock (default: the system clock). */
  clock?: Clock;
}): BenchPoller {
  const client = createAccountingClient(
    parseAccountingConfig({ baseUrl: options.baseUrl, apiKey: options.apiKey, pageSize: options.pageSize }),
    { logger: silentLogger },
  );
  let published = 0;
  const publisher: EventPublisher = {
    async publish(events) {
      published += events.length;
      options.onEvents?.(events, Date.now());
    },
  };
  const pollOptions = pollOptionsSchema.parse({
    connection: 'bench',
    pageSize: options.pageSize,
    ...options.poll,
  });
  const deps = {
    api: client,
    checkpoints: createMemoryCheckpointStore(),
    publisher,
    clock: options.clock ?? systemClock,
    logger: silentLogger,
    objectStore: createMemoryObjectStore(),
  };
  return {
    cycle: () => pollAll(deps, pollOptions, options.collections),
    requests: () => client.stats().requests,
    published: () => published,
    close: () => client.close(),
  };
}
