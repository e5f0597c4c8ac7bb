/**
 * The client's pooled keep-alive connections. After a long idle (a thawed Lambda) the pooled
 * sockets may all be dead while undici's own idle timers have not fired yet: the pool then starts
 * over with fresh connections, so no request (above all no side effect, which must not be
 * repeated) is sent on a socket the server already closed. An injected dispatcher is used as is.
 */
import type { Dispatcher } from 'undici';
import type { Clock } from '../shared/clock.js';
import { createAgent } from './transport.js';

/** Pooled sockets idle longer than this are not trusted after a pause (undici closes them at this age too). */
export const KEEP_ALIVE_MS = 4_000;

export interface ConnectionPool {
  /** The dispatcher for the next request (fresh connections after a long idle). */
  dispatcher(): Dispatcher;
  /** Marks an answer received now. */
  touch(): void;
  /** Times the pooled connections were replaced after a long idle. */
  refreshes(): number;
  /** Closes the pool's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

export interface PoolOptions {
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  clock: Clock;
  /** An undici dispatcher to use instead of the pool's own agent. */
  injected?: Dispatcher | undefined;
}

export function createConnectionPool(options: PoolOptions): ConnectionPool {
  const newAgent = () =>
    createAgent({
      connectTimeoutMs: options.connectTimeoutMs,
      bodyTimeoutMs: options.requestTimeoutMs,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
    });
  const owned = options.injected === undefined;
  let dispatcher: Dispatcher = options.injected ?? newAgent();
  let lastActivity = 0;
  let refreshes = 0;
  return {
    dispatcher() {
      const now = options.clock.now().getTime();
      if (owned && lastActivity > 0 && now - lastActivity > KEEP_ALIVE_MS) {
        refreshes++;
        const old = dispatcher;
        dispatcher = newAgent();
        old.close().catch(() => {});
      }
      return dispatcher;
    },
    touch() {
      lastActivity = options.clock.now().getTime();
    },
    refreshes: () => refreshes,
    async close() {
      if (owned) await dispatcher.close();
    },
  };
}
