/**
 * `sync --once --dry-run`: the poll a `sync --once` would make — from the saved checkpoints when
 * the data directory has them — with every effect kept in memory: checkpoints, claim checks and
 * the events themselves. Nothing is published, no checkpoint moves, nothing is created on disk.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox, SandboxOptions } from '#sandbox/index.js';
import type { CollectionName } from '../accounting/collections.js';
import { createMemoryCheckpointStore } from '../adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '../adapters/local/memory-object-store.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import type { BusEvent, Logger } from '../core/ports.js';
import { checkpointKey } from '../core/sync/checkpoint-state.js';
import { paymentCheckpointKey } from '../core/sync/payment-state.js';
import { systemClock } from '../shared/clock.js';
import { loadPollerSettings } from '../wiring/poller-config.js';
import { openLocalConnections } from './local-connections.js';
import { createLocalPolling } from './local-polling.js';
import { startLocalStores } from './local-stores.js';
import { accountingConfigFor, ONCE_POLL_BUDGET_MS } from './runtime-options.js';
import { connectionOfUrl } from './runtime-settings.js';

export interface DryRunInput {
  env: Record<string, string | undefined>;
  /** Sandbox options when the sandbox is used; `false` for the configured service. */
  sandbox: Partial<SandboxOptions> | false;
  baseUrl?: string;
  authUrl?: string;
  dataDir: string;
  collections?: readonly CollectionName[];
  logger: Logger;
  signal: AbortSignal;
}

export interface DryRunResult {
  events: BusEvent[];
  requests: number;
  failed: number;
  connection: string;
  /** Collections whose saved checkpoint the preview started from. */
  resumed: number;
}

/**
 * The cycle of `sync --once` over stores in memory: the one connection's collections read to
 * their end, cycle after cycle while a collection has work left.
 */
export async function dryRunSync(input: DryRunInput): Promise<DryRunResult> {
  let sandbox: Sandbox | undefined;
  if (input.sandbox !== false) {
    const { startSandbox } = await import('#sandbox/index.js');
    sandbox = await startSandbox(input.sandbox);
  }
  try {
    const settings = loadPollerSettings(input.env);
    const connections = await openLocalConnections({
      env: input.env,
      clock: systemClock,
      logger: input.logger,
      emit: () => {},
      settings,
      intervalMs: 0,
      collections: input.collections,
      sandbox,
      configured: () =>
        accountingConfigFor(
          { env: input.env, baseUrl: input.baseUrl, authUrl: input.authUrl } as Parameters<
            typeof accountingConfigFor
          >[0],
          sandbox,
        ),
      configuredName: (config) => (sandbox ? 'sandbox' : connectionOfUrl(config.baseUrl)),
    });
    try {
      const [entry] = (await connections.registry.scan()).entries;
      if (!entry) throw new Error('dry run: no connection');
      const checkpoints = createMemoryCheckpointStore();
      const collections = collectionsOf(entry);
      const resumed = await copySavedCheckpoints(input.dataDir, entry.name, collections, checkpoints);
      const events: BusEvent[] = [];
      // The local runtime's cycle (the Lambda poller's core path), every effect in memory.
      const polling = createLocalPolling({
        connections,
        checkpoints,
        publisher: {
          async publish(batch: readonly BusEvent[]) {
            events.push(...batch);
          },
        },
        objectStore: createMemoryObjectStore(),
        clock: systemClock,
        logger: input.logger,
        emit: () => {},
        halt: input.signal,
        settings,
        budgetMs: ONCE_POLL_BUDGET_MS,
        maxConcurrent: 1,
      });
      let requests = 0;
      let failed = 0;
      for (;;) {
        const summary = await polling.once();
        // Every request the client made (detail reads and retries included), as the poller counts them.
        requests += summary.requests;
        failed += summary.failed + summary.conflicts;
        if (!summary.more || input.signal.aborted) break;
      }
      return { events, requests, failed, connection: entry.name, resumed };
    } finally {
      await connections.close();
    }
  } finally {
    await sandbox?.close();
  }
}

/** The saved checkpoints of the data directory, when it exists, into `target`; how many there were. */
async function copySavedCheckpoints(
  dataDir: string,
  connection: string,
  collections: readonly string[],
  target: { put(key: string, value: unknown, version: number | undefined): Promise<number> },
): Promise<number> {
  // No saved state (or no data directory): a first run; nothing is created to find that out.
  if (!existsSync(join(dataDir, 'dynamodb'))) return 0;
  const stores = await startLocalStores(dataDir, 'sync --dry-run');
  try {
    let n = 0;
    // The change detector's checkpoint of each collection, and the payment detector's of a payable one.
    const keys = collections.flatMap((c) => [
      checkpointKey(connection, c),
      paymentCheckpointKey(connection, c),
    ]);
    for (const key of keys) {
      const saved = await stores.checkpoints.get(key);
      if (!saved) continue;
      await target.put(key, saved.value, undefined);
      n += 1;
    }
    return n;
  } finally {
    await stores.close();
  }
}
