/**
 * What the client asks of a rate limiter, for one connection: wait for a turn before each attempt,
 * and hear of a 429's `Retry-After`. The connection's `RateLimiter` (core/connections) bound to its
 * name satisfies it; every client of that connection (poller, actions, intake) shares it.
 */
export interface RequestLimiter {
  /** Resolves when the next attempt may be sent; rejects with the signal's reason when it aborts. */
  beforeRequest(signal?: AbortSignal): Promise<void>;
  /** The service answered 429: send nothing for this connection before `untilMs` (epoch ms). */
  onRateLimited(untilMs: number): Promise<void>;
}
