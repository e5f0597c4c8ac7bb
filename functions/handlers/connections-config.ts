/**
 * The environment of the fan-out of many connections, read once at cold start: the dispatcher needs
 * the registry table and the poll queue; the connection poller the registry table, the bus, the
 * checkpoints and claim-check resources, optionally the rate-limit table, and the poll options shared
 * by every connection (`POLLER_*`, docs/poller.md). One `RuntimeConfigError` lists every problem.
 */
import * as z from 'zod';
import { type AdapterConfig, AdapterConfigError, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import type { ConnectionPollSettings } from '../core/connections/poll-connection.js';
import { ENV } from '../shared/env-names.js';
import { DEFAULT_MAX_CLIENTS } from './connection-clients.js';
import { loadPollerSettings, RuntimeConfigError } from './poller-config.js';

type Env = Readonly<Record<string, string | undefined>>;

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

function parse<T extends z.ZodObject>(schema: T, env: Env, problems: string[]): z.output<T> | undefined {
  const input = Object.fromEntries(
    Object.keys(schema.shape).map((k) => [k, env[k]?.trim() ? env[k] : undefined]),
  );
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  problems.push(...parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  return undefined;
}

export interface DispatcherConfig {
  connectionsTable: string;
  pollQueueUrl: string;
}

export function loadDispatcherConfig(env: Env): DispatcherConfig {
  const problems: string[] = [];
  const e = parse(dispatcherEnvSchema, env, problems);
  if (!e) throw new RuntimeConfigError(problems);
  return { connectionsTable: e[ENV.connectionsTable], pollQueueUrl: e[ENV.pollQueueUrl] };
}

export interface ConnectionPollerConfig {
  connectionsTable: string;
  /** Absent: no shared rate limit (the client still honours each 429's `Retry-After`). */
  rateLimitTable?: string;
  perConnectionMetrics: boolean;
  maxClients: number;
  adapters: AdapterConfig;
  settings: ConnectionPollSettings;
}

export function loadConnectionPollerConfig(env: Env): ConnectionPollerConfig {
  const problems: string[] = [];
  const e = parse(pollerEnvSchema, env, problems);
  let adapters: AdapterConfig | undefined;
  let poller: ReturnType<typeof loadPollerSettings> | undefined;
  try {
    adapters = loadAdapterConfig(env, ['eventBus', 'checkpoints', 'claimCheck']);
  } catch (error) {
    if (!(error instanceof AdapterConfigError)) throw error;
    problems.push(...error.problems);
  }
  try {
    poller = loadPollerSettings(env);
  } catch (error) {
    if (!(error instanceof RuntimeConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (!e || !adapters || !poller) throw new RuntimeConfigError(problems);
  const { connection: _c, variant: _v, source: _s, ...options } = poller.options;
  return {
    connectionsTable: e[ENV.connectionsTable],
    ...(e[ENV.rateLimitTable] ? { rateLimitTable: e[ENV.rateLimitTable] } : {}),
    perConnectionMetrics: e[ENV.pollerConnectionMetrics] === 'true',
    maxClients: e[ENV.pollerMaxClients],
    adapters,
    settings: { options, concurrency: poller.concurrency },
  };
}
