/**
 * Per-connection rate limiting. Every caller of one connection's service — the poller, the actions
 * and the intake — draws from the same bucket, so together they stay under the connection's limit.
 * A 429 with `Retry-After` empties that connection's bucket until then; other connections are
 * untouched. `refill` is the pure arithmetic shared by the in-memory and the DynamoDB limiters.
 */
import type { RateLimit } from './connection-entry.js';

/**
 * The DynamoDB rate-limit table's key: one item per connection, partition key `pk` (string) = the
 * connection's name; idle buckets expire by `ttl`. The adapter and the CDK construct read it here.
 */
export const RATE_LIMIT_TABLE_KEY = { partitionKey: 'pk', ttl: 'ttl' } as const;

export interface RateLimiter {
  /**
   * Waits until `tokens` (default 1) can be taken from the connection's bucket and takes them.
   * Rejects with the signal's reason when `signal` aborts first.
   */
  take(connection: string, options?: { tokens?: number; signal?: AbortSignal }): Promise<void>;
  /** The service answered 429: take nothing from this connection's bucket before `untilMs`. */
  pause(connection: string, untilMs: number): Promise<void>;
}

/** A bucket's stored state: tokens at `updatedMs`, and a 429 pause (epoch ms, 0 = none). */
export interface BucketState {
  tokens: number;
  updatedMs: number;
  pausedUntilMs: number;
}

export function fullBucket(limit: RateLimit, nowMs: number): BucketState {
  return { tokens: limit.burst, updatedMs: nowMs, pausedUntilMs: 0 };
}

/** The bucket at `nowMs`: refilled at `requestsPerSecond`, capped at `burst`. */
export function refill(state: BucketState, limit: RateLimit, nowMs: number): BucketState {
  const elapsedMs = Math.max(0, nowMs - state.updatedMs);
  const tokens = Math.min(limit.burst, state.tokens + (elapsedMs * limit.requestsPerSecond) / 1000);
  return { tokens, updatedMs: Math.max(nowMs, state.updatedMs), pausedUntilMs: state.pausedUntilMs };
}

export type TakeDecision =
  | { kind: 'take'; next: BucketState }
  | { kind: 'wait'; waitMs: number; current: BucketState };

/** Takes `tokens` from the refilled bucket, or says how long to wait before they are there. */
export function decideTake(state: BucketState, limit: RateLimit, nowMs: number, tokens = 1): TakeDecision {
  const current = refill(state, limit, nowMs);
  if (current.pausedUntilMs > nowMs) return { kind: 'wait', waitMs: current.pausedUntilMs - nowMs, current };
  const needed = Math.min(tokens, limit.burst);
  if (current.tokens >= needed)
    return { kind: 'take', next: { ...current, tokens: current.tokens - needed } };
  return {
    kind: 'wait',
    waitMs: Math.ceil(((needed - current.tokens) * 1000) / limit.requestsPerSecond),
    current,
  };
}
