/**
 * The poller's environment, read once at cold start: the registry table (absent: a single-company
 * deployment, whose registry of one is its environment), the bus, the checkpoints (where the shard
 * leases live too) and claim-check resources, optionally the shared rate-limit table (a 429's pause
 * is written there), how many connections it polls at once and each one's budget per cycle, and the
 * poll options shared by every connection (`POLLER_*`, docs/poller.md); its `LOG_LEVEL`. One
 * `ConfigError` lists every problem of every section.
 */
import * as z from 'zod';
import { type AdapterConfig, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import type { ShardPollSettings } from '../core/connections/poll-shard.js';
import { type Env, loadLogLevel, loadSections, parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import type { LogLevel } from '../shared/logger.js';
import { DEFAULT_MAX_CLIENTS } from '../wiring/connection-clients.js';
import { loadPollerSettings } from '../wiring/poller-config.js';

export const SHARD_DEFAULTS = {
  /**
   * Connections of a shard polled at once (each up to `POLLER_CONCURRENCY` requests): a shard of a
   * hundred side by side, so the invocation's billed time is about one connection's poll.
   */
  parallel: 100,
  /** Seconds one connection starts new pages per cycle; a backfill goes on in the next cycles. */
  connectionBudgetSeconds: 20,
} as const;

const positive = (what: string) =>
  z.coerce
    .number({ error: `expected ${what}` })
    .int(`expected ${what}`)
    .positive(`expected ${what}`);

const pollerEnvSchema = z.object({
  [ENV.connectionsTable]: z.string().trim().optional(),
  [ENV.rateLimitTable]: z.string().trim().optional(),
  [ENV.pollerConnectionMetrics]: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('false'),
  [ENV.pollerMaxClients]: positive('a positive integer').default(DEFAULT_MAX_CLIENTS),
  [ENV.pollerParallelConnections]: positive('a positive integer').default(SHARD_DEFAULTS.parallel),
  [ENV.pollerConnectionBudgetSeconds]: positive('a positive number of seconds').default(
    SHARD_DEFAULTS.connectionBudgetSeconds,
  ),
});

export interface ConnectionPollerConfig {
  /** Absent: the single-company deployment's registry of one (its environment). */
  connectionsTable?: string;
  /** Absent: no shared rate limit (the client still honours each 429's `Retry-After`). */
  rateLimitTable?: string;
  perConnectionMetrics: boolean;
  maxClients: number;
  adapters: AdapterConfig;
  settings: ShardPollSettings;
  logLevel: LogLevel;
}

export function loadConnectionPollerConfig(env: Env): ConnectionPollerConfig {
  const { e, adapters, poller, logLevel } = loadSections({
    e: () => parseEnvSection(pollerEnvSchema, env),
    adapters: () => loadAdapterConfig(env, ['eventBus', 'checkpoints', 'claimCheck']),
    poller: () => loadPollerSettings(env),
    logLevel: () => loadLogLevel(env),
  });
  const { connection: _c, variant: _v, source: _s, ...options } = poller.options;
  return {
    ...(e[ENV.connectionsTable] ? { connectionsTable: e[ENV.connectionsTable] } : {}),
    ...(e[ENV.rateLimitTable] ? { rateLimitTable: e[ENV.rateLimitTable] } : {}),
    perConnectionMetrics: e[ENV.pollerConnectionMetrics] === 'true',
    maxClients: e[ENV.pollerMaxClients],
    adapters,
    settings: {
      options,
      concurrency: poller.concurrency,
      parallel: e[ENV.pollerParallelConnections],
      budgetMs: e[ENV.pollerConnectionBudgetSeconds] * 1000,
    },
    logLevel,
  };
}
