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
import type { BusEvent, Logger } from '../core/ports.js';
import { checkpointKey } from '../core/sync/checkpoint-state.js';
import { pollOptionsSchema } from '../core/sync/poll-options.js';
import { createHandler as createPollHandler } from '../handlers/poll-changes.js';
import { loadPollerSettings } from '../handlers/poller-config.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
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
      const handler = createPollHandler({
        api,
        checkpoints,
        publisher: {
          async publish(batch) {
            events.push(...batch);
          },
        },
        objectStore: createMemoryObjectStore(),
        clock: systemClock,
        logger: input.logger,
        settings: { options, collections, concurrency: settings.concurrency },
      });
      let requests = 0;
      let failed = 0;
      for (;;) {
        const summary = await handler({});
        requests += summary.requests;
        failed += summary.failed + summary.conflicts;
        if (!summary.more || input.signal.aborted) break;
      }
      return { events, requests, failed, connection, resumed };
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
    for (const c of collections) {
      const saved = await stores.checkpoints.get(checkpointKey(connection, c));
      if (!saved) continue;
      await target.put(checkpointKey(connection, c), saved.value, undefined);
      n += 1;
    }
    return n;
  } finally {
    await stores.close();
  }
}
