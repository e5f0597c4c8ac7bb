/** A connection's `RateLimiter` as the client's per-connection `RequestLimiter`. */
import type { RequestLimiter } from '#functions/accounting/request-limiter.js';
import type { RateLimiter } from './token-bucket.js';

export function requestLimiterFor(limiter: RateLimiter, connection: string): RequestLimiter {
  return {
    beforeRequest: (signal) => limiter.take(connection, signal ? { signal } : {}),
    onRateLimited: (untilMs) => limiter.pause(connection, untilMs),
  };
}
