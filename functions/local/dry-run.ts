/**
 * `sync --once --dry-run`: the poll a `sync --once` would make — from the saved checkpoints when
 * the data directory has them — with every effect kept in memory: checkpoints, claim checks and
 * the events themselves. Nothing is published, no checkpoint moves, nothing is created on disk.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox, SandboxOptions } from '../../sandbox/index.js';
import { createAccountingClient } from '../accounting/client.js';
import type { CollectionName } from '../accounting/collections.js';
import { createMemoryCheckpointStore } from '../adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '../adapters/local/memory-object-store.js';
import { pollConnection } from '../core/connections/poll-connection.js';
import type { BusEvent, Logger } from '../core/ports.js';
import { checkpointKey } from '../core/sync/checkpoint-state.js';
import { paymentCheckpointKey } from '../core/sync/payment-state.js';
import { pollOptionsSchema } from '../core/sync/poll-options.js';
import { loadPollerSettings } from '../handlers/poller-config.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import { localEntry } from './local-entry.js';
import { LOCAL_RESOURCES, startLocalStores } from './local-stores.js';
import { accountingConfigFor } from './runtime.js';
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

export async function dryRunSync(input: DryRunInput): Promise<DryRunResult> {
  let sandbox: Sandbox | undefined;
  if (input.sandbox !== false) {
    const { startSandbox } = await import('../../sandbox/index.js');
    sandbox = await startSandbox(input.sandbox);
  }
  try {
    const config = accountingConfigFor(
      { env: input.env, baseUrl: input.baseUrl, authUrl: input.authUrl } as Parameters<
        typeof accountingConfigFor
      >[0],
      sandbox,
    );
    const api = createAccountingClient(config, { logger: input.logger, clock: systemClock });
    try {
      const settings = loadPollerSettings(input.env);
      const connection =
        input.env[ENV.connection]?.trim() || (sandbox ? 'sandbox' : connectionOfUrl(config.baseUrl));
      const collections = [...(input.collections ?? settings.collections)];
      const options = pollOptionsSchema.parse({
        ...settings.options,
        connection,
        claimBucket: LOCAL_RESOURCES.archiveBucket,
      });
      const checkpoints = createMemoryCheckpointStore();
      const resumed = await copySavedCheckpoints(input.dataDir, connection, collections, checkpoints);
      const events: BusEvent[] = [];
      // The core's poll of one connection (the Lambda poller's path), every effect in memory.
      const deps = {
        apiFor: async () => api,
        checkpoints,
        publisher: {
          async publish(batch: readonly BusEvent[]) {
            events.push(...batch);
          },
        },
        objectStore: createMemoryObjectStore(),
        clock: systemClock,
        logger: input.logger,
        unavailable: new Set<string>(),
      };
      const entry = localEntry({
        name: connection,
        variant: options.variant,
        collections,
        source: options.source,
      });
      const before = api.stats().requests;
      let failed = 0;
      for (;;) {
        const { summary } = await pollConnection(deps, entry, { options, concurrency: settings.concurrency });
        failed += summary ? summary.failed + summary.conflicts : collections.length;
        if (!summary?.more || input.signal.aborted) break;
      }
      // Every request the client made (detail reads and retries included), as the poller counts them.
      return { events, requests: api.stats().requests - before, failed, connection, resumed };
    } finally {
      await api.close();
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
