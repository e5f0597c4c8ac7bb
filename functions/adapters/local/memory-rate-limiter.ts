/**
 * The `RateLimiter` of one process (the local runtime): a token bucket per connection in memory,
 * decided by the same pure `decideTake` as the DynamoDB limiter. Waiters sleep on the injected
 * clock until their tokens are there; a 429's pause holds back that connection only.
 */
import { setMaxListeners } from 'node:events';
import { CONNECTION_DEFAULTS, type RateLimit } from '#functions/core/connections/connection-entry.js';
import {
  type BucketState,
  decideTake,
  fullBucket,
  type RateLimiter,
} from '#functions/core/connections/token-bucket.js';
import type { Clock } from '#functions/core/ports.js';

export interface MemoryRateLimiter extends RateLimiter {
  /** Sets (or changes) a connection's limit; its bucket keeps its tokens, capped at the new burst. */
  setLimit(connection: string, limit: RateLimit): void;
  /**
   * The process is stopping: a `take` that waits, or would have to, rejects with
   * `RateLimiterHaltedError`, so a request held back by the limit is not sent (its work is left for
   * the next start); one the bucket allows still goes.
   */
  halt(): void;
}

export class RateLimiterHaltedError extends Error {
  override readonly name = 'RateLimiterHaltedError';
  constructor() {
    super('rate limiter halted: the process is stopping');
  }
}

export function createMemoryRateLimiter(options: {
  clock: Clock;
  /** Limits by connection; others get `defaultLimit`. */
  limits?: Readonly<Record<string, RateLimit>>;
  defaultLimit?: RateLimit;
}): MemoryRateLimiter {
  const { clock } = options;
  const halted = new AbortController();
  setMaxListeners(0, halted.signal); // every waiting take listens to it
  const limits = new Map(Object.entries(options.limits ?? {}));
  const buckets = new Map<string, BucketState>();
  const limitOf = (connection: string) =>
    limits.get(connection) ?? options.defaultLimit ?? CONNECTION_DEFAULTS.rateLimit;
  const bucketOf = (connection: string, nowMs: number) => {
    let bucket = buckets.get(connection);
    if (!bucket) {
      bucket = fullBucket(limitOf(connection), nowMs);
      buckets.set(connection, bucket);
    }
    return bucket;
  };
  return {
    async take(connection, { tokens = 1, signal } = {}) {
      const both = signal ? AbortSignal.any([signal, halted.signal]) : halted.signal;
      for (;;) {
        if (signal?.aborted) throw signal.reason;
        const nowMs = clock.now().getTime();
        const decision = decideTake(bucketOf(connection, nowMs), limitOf(connection), nowMs, tokens);
        if (decision.kind === 'take') {
          buckets.set(connection, decision.next);
          return;
        }
        buckets.set(connection, decision.current);
        if (halted.signal.aborted) throw new RateLimiterHaltedError();
        await clock.sleep(decision.waitMs, both).catch((error: unknown) => {
          if (!signal?.aborted && halted.signal.aborted) throw new RateLimiterHaltedError();
          throw error;
        });
      }
    },
    async pause(connection, untilMs) {
      const bucket = bucketOf(connection, clock.now().getTime());
      buckets.set(connection, { ...bucket, pausedUntilMs: Math.max(bucket.pausedUntilMs, untilMs) });
    },
    halt: () => halted.abort(),
    setLimit(connection, limit) {
      limits.set(connection, limit);
      const bucket = buckets.get(connection);
      if (bucket) buckets.set(connection, { ...bucket, tokens: Math.min(bucket.tokens, limit.burst) });
    },
  };
}
