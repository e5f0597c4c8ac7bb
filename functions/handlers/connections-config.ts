/**
 * The environment of the fan-out of many connections, read once at cold start: the dispatcher needs
 * the registry table and the poll queue; the connection poller the registry table, the bus, the
 * checkpoints and claim-check resources, optionally the rate-limit table, and the poll options shared
 * by every connection (`POLLER_*`, docs/poller.md); each its `LOG_LEVEL`. One `ConfigError` lists
 * every problem of every section.
 */
import * as z from 'zod';
import { type AdapterConfig, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import type { ConnectionPollSettings } from '../core/connections/poll-connection.js';
import { type Env, loadLogLevel, loadSections, parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import type { LogLevel } from '../shared/logger.js';
import { DEFAULT_MAX_CLIENTS } from './connection-clients.js';
import { loadPollerSettings } from './poller-config.js';

const name = z.string().trim().min(1, 'required but not set');

const dispatcherEnvSchema = z.object({
  [ENV.connectionsTable]: name,
  [ENV.pollQueueUrl]: z.url({ error: 'expected the queue URL' }),
});

const pollerEnvSchema = z.object({
  [ENV.connectionsTable]: name,
  [ENV.rateLimitTable]: z.string().trim().optional(),
  [ENV.pollerConnectionMetrics]: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('true'),
  [ENV.pollerMaxClients]: z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .default(DEFAULT_MAX_CLIENTS),
});

export interface DispatcherConfig {
  connectionsTable: string;
  pollQueueUrl: string;
  logLevel: LogLevel;
}

export function loadDispatcherConfig(env: Env): DispatcherConfig {
  const { e, logLevel } = loadSections({
    e: () => parseEnvSection(dispatcherEnvSchema, env),
    logLevel: () => loadLogLevel(env),
  });
  return { connectionsTable: e[ENV.connectionsTable], pollQueueUrl: e[ENV.pollQueueUrl], logLevel };
}

export interface ConnectionPollerConfig {
  connectionsTable: string;
  /** Absent: no shared rate limit (the client still honours each 429's `Retry-After`). */
  rateLimitTable?: string;
  perConnectionMetrics: boolean;
  maxClients: number;
  adapters: AdapterConfig;
  settings: ConnectionPollSettings;
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
    connectionsTable: e[ENV.connectionsTable],
    ...(e[ENV.rateLimitTable] ? { rateLimitTable: e[ENV.rateLimitTable] } : {}),
    perConnectionMetrics: e[ENV.pollerConnectionMetrics] === 'true',
    maxClients: e[ENV.pollerMaxClients],
    adapters,
    settings: { options, concurrency: poller.concurrency },
    logLevel,
  };
}
