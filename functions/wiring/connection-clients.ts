/**
 * The accounting clients of the connections a poller container has served, one per connection,
 * kept between invocations (their keep-alive pools, OAuth tokens and cached secrets with them) and
 * bounded: the least recently used is closed when there are more than `max`. A client is built
 * anew when its connection's entry changed where it matters (variant, URLs, secret reference).
 */
import type { Dispatcher } from 'undici';
import type { AccountingApi } from '../accounting/api.js';
import { createAccountingClient } from '../accounting/client.js';
import { createAgent } from '../accounting/transport.js';
import type { ConnectionSecretResolver } from '../adapters/connection-secrets.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { connectionAccountingConfig } from '../core/connections/connection-secret.js';
import { requestLimiterFor } from '../core/connections/request-limiter.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { Clock, Logger } from '../core/ports.js';

export interface ConnectionClient extends AccountingApi {
  stats?(): { requests: number; rateLimited: number };
  close?(): Promise<void>;
}

export interface ConnectionClients {
  apiFor(entry: ConnectionEntry): Promise<ConnectionClient>;
  /** Clients held now. */
  size(): number;
  close(): Promise<void>;
}

export const DEFAULT_MAX_CLIENTS = 64;

const fingerprint = (e: ConnectionEntry) =>
  [e.name, e.variant, e.baseUrl ?? '', e.authUrl ?? '', e.credentialsSecret].join('\u0000');

export function createConnectionClients(options: {
  build: ((entry: ConnectionEntry) => Promise<ConnectionClient>) & { close?(): Promise<void> };
  max?: number;
}): ConnectionClients {
  const max = Math.max(1, options.max ?? DEFAULT_MAX_CLIENTS);
  const held = new Map<string, { fingerprint: string; client: Promise<ConnectionClient> }>();
  const dispose = (client: Promise<ConnectionClient>) => {
    client.then((c) => c.close?.()).catch(() => {});
  };
  return {
    apiFor(entry) {
      const current = held.get(entry.name);
      held.delete(entry.name);
      if (current && current.fingerprint === fingerprint(entry)) {
        held.set(entry.name, current); // most recently used last
        return current.client;
      }
      if (current) dispose(current.client);
      const client = options.build(entry);
      const slot = { fingerprint: fingerprint(entry), client };
      held.set(entry.name, slot);
      // A failed build is not kept: the next poll tries again (a secret may have been put meanwhile).
      client.catch(() => {
        if (held.get(entry.name) === slot) held.delete(entry.name);
      });
      while (held.size > max) {
        const [oldest, value] = held.entries().next().value as [
          string,
          { client: Promise<ConnectionClient> },
        ];
        held.delete(oldest);
        dispose(value.client);
      }
      return client;
    },
    size: () => held.size,
    async close() {
      const all = [...held.values()];
      held.clear();
      await Promise.all(all.map((v) => v.client.then((c) => c.close?.()).catch(() => {})));
      await options.build.close?.();
    },
  };
}

export interface ConnectionClientBuilderOptions {
  /** Tuning settings of every client (timeouts, retries, page size); never credentials. */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  logger: Logger;
  secrets: ConnectionSecretResolver;
  /** The connections' shared token buckets: every request of the client takes from its connection's. */
  limiter?: RateLimiter;
  /** The invocation's time left, bounding each request's deadline. */
  remainingMs?: () => number | undefined;
  /**
   * One keep-alive pool shared by every client the builder makes (made with the first), instead of
   * a pool per client that starts over after 4 s idle. Only for clients that read (the poller): a
   * read sent on a socket the service closed meanwhile (a thawed container) is repeated once at
   * once on a fresh one, while a side effect must never meet such a socket.
   */
  sharedReads?: SharedReadsOptions;
}

export interface SharedReadsOptions {
  /** Sockets per origin (every connection of one service shares them). */
  connections: number;
  /** Idle time a socket is kept (a shorter `Keep-Alive` hint of the service wins). */
  keepAliveMs: number;
}

/** How the poller's clients share their sockets: enough for every poll of a shard at once, kept across invocations a minute apart. */
export const pollerSharedReads = (parallel: number, concurrency: number): SharedReadsOptions => ({
  connections: parallel * concurrency,
  keepAliveMs: 90_000,
});

/**
 * Builds one connection's client: variant and URLs from its entry, credentials from its secret
 * (read again past the cache after the service refused them), its requests drawn from the
 * connection's token bucket. The poller and the actions build their clients alike.
 */
export function connectionClientBuilder(options: ConnectionClientBuilderOptions) {
  const { env, clock, logger, secrets, limiter, remainingMs, sharedReads } = options;
  let shared: Dispatcher | undefined;
  const build = async (entry: ConnectionEntry): Promise<ConnectionClient> => {
    const source = secrets.sourceFor(entry);
    const reread = source.refresh ?? source.get;
    const config = connectionAccountingConfig(entry, await source.get(), env);
    if (sharedReads && !shared) {
      shared = createAgent({
        connectTimeoutMs: config.connectTimeoutMs,
        bodyTimeoutMs: config.requestTimeoutMs,
        keepAliveTimeoutMs: sharedReads.keepAliveMs,
        connections: sharedReads.connections,
      });
    }
    return createAccountingClient(config, {
      clock,
      logger,
      ...(shared ? { dispatcher: shared } : {}),
      // After an authentication failure: the secret again, past its cache (it may have been replaced).
      reloadCredentials: async () => connectionAccountingConfig(entry, await reread(), env).credentials,
      ...(limiter ? { limiter: requestLimiterFor(limiter, entry.name) } : {}),
      ...(remainingMs ? { remainingMs } : {}),
    });
  };
  /** Closes the shared pool (the clients close their own). */
  const close = async () => {
    const open = shared;
    shared = undefined;
    await open?.close();
  };
  return Object.assign(build, { close });
}

/** A registry of one connection whose client is built already (a benchmark, a test's service). */
export function registryOfOne(entry: ConnectionEntry, api: AccountingApi) {
  return {
    registry: {
      get: async (name: string) => (name === entry.name ? structuredClone(entry) : undefined),
      scan: async () => ({ entries: [structuredClone(entry)], malformed: [] }),
    },
    apiFor: async (_entry: ConnectionEntry): Promise<ConnectionClient> => api,
  };
}
