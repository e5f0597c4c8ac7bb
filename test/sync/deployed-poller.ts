/**
 * The deployed poller (`poll-connections.ts`, a single-company deployment: shard 0 of 1 of the
 * registry of one its environment describes) over the fake service of `harness.ts`: its own config
 * loader and registry, an in-memory shard lease, the harness's stores.
 */
import { createEnvConnectionRegistry } from '#functions/adapters/env-connection-registry.js';
import { createMemoryShardLease } from '#functions/core/connections/shard.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { type ConnectionPollerDeps, createHandler } from '#functions/handlers/poll-connections.js';
import type { PollMetrics } from '#functions/handlers/poll-metrics.js';
import { createConnectionClients } from '#functions/wiring/connection-clients.js';
import type { setup } from './harness.js';

/**
 * What the stack gives every poller beside its settings (names only: nothing here reaches AWS), and
 * the service URL the sk variant needs (the stack's `accountingBaseUrl`).
 */
export const POLLER_RESOURCES = {
  EVENT_BUS_NAME: 'bus',
  POLLER_CHECKPOINTS_TABLE: 'checkpoints',
  CLAIM_CHECK_BUCKET: 'claims',
  ACCOUNTING_BASE_URL: 'https://api.example.test',
} as const;

/** A metrics sink that keeps every point (name, value, dimensions). */
export function recordingMetrics() {
  const points: Array<{ name: string; value: number; dimensions?: Record<string, string> }> = [];
  const keep = (name: string, value: number, dimensions?: Record<string, string>) =>
    void points.push({ name, value, ...(dimensions ? { dimensions } : {}) });
  const metrics: PollMetrics = { count: keep, milliseconds: keep, flush: () => {} };
  return { points, metrics };
}

/** The poller's handler as deployed for the environment `env`, on the harness's service and stores. */
export function deployedPoller(
  t: ReturnType<typeof setup>,
  env: Record<string, string>,
  overrides: Partial<ConnectionPollerDeps> = {},
) {
  const full = { ...POLLER_RESOURCES, ...env };
  const config = loadConnectionPollerConfig(full);
  const deps: ConnectionPollerDeps = {
    registry: createEnvConnectionRegistry(full),
    lease: createMemoryShardLease(),
    clients: createConnectionClients({ build: async () => t.deps.api }),
    checkpoints: t.deps.checkpoints,
    publisher: t.publisher,
    objectStore: t.objectStore,
    clock: t.clock,
    logger: t.deps.logger,
    settings: config.settings,
    holder: 'this-container',
    healthKnown: new Map(),
    unavailableKnown: new Map(),
    ...overrides,
  };
  return { handler: createHandler(deps), deps, config };
}
