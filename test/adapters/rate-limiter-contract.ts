/**
 * One contract for every `RateLimiter`: the in-memory limiter of the local runtime and the DynamoDB
 * limiter of AWS both run it. `make` returns two limiters over one store (for the memory limiter,
 * the same instance twice): what one takes, the other cannot.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { RateLimit } from '#functions/core/connections/connection-entry.js';
import type { RateLimiter } from '#functions/core/connections/token-bucket.js';
import { createManualClock, type ManualClock } from '#functions/shared/clock.js';
import { SERVER_WAIT } from '../support/wait.js';

export type RateLimiterFactory = (options: {
  clock: ManualClock;
  limits: Record<string, RateLimit>;
}) => Promise<{ limiter: RateLimiter; twin: RateLimiter }> | { limiter: RateLimiter; twin: RateLimiter };

/** Lets I/O (an embedded server) run without moving the manual clock. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

function track(promise: Promise<void>) {
  const state = { done: false, error: undefined as unknown };
  promise.then(
    () => {
      state.done = true;
    },
    (error: unknown) => {
      state.error = error;
    },
  );
  return state;
}

export function describeRateLimiterContract(name: string, make: RateLimiterFactory): void {
  describe(`RateLimiter contract: ${name}`, () => {
    const conn = () => `conn-${randomUUID().slice(0, 8)}`;

    it('lets the burst through, then one request per 1/rate seconds; another connection has its own bucket', async () => {
      const clock = createManualClock();
      const [a, b] = [conn(), conn()];
      const { limiter } = await make({ clock, limits: { [a]: { requestsPerSecond: 2, burst: 3 } } });
      for (let i = 0; i < 3; i++) await limiter.take(a);
      const fourth = track(limiter.take(a));
      await limiter.take(b);
      await settle();
      expect(fourth.done).toBe(false);
      clock.advance(499);
      await settle();
      expect(fourth.done).toBe(false);
      clock.advance(1);
      await vi.waitFor(() => expect(fourth.done).toBe(true), SERVER_WAIT);
    });

    it('a 429 pause holds back that connection until it ends, and no other', async () => {
      const clock = createManualClock();
      const [a, b] = [conn(), conn()];
      const { limiter } = await make({ clock, limits: { [a]: { requestsPerSecond: 100, burst: 100 } } });
      await limiter.take(a);
      await limiter.pause(a, clock.now().getTime() + 3_000);
      const held = track(limiter.take(a));
      await limiter.take(b);
      await settle();
      expect(held.done).toBe(false);
      clock.advance(2_999);
      await settle();
      expect(held.done).toBe(false);
      clock.advance(1);
      await vi.waitFor(() => expect(held.done).toBe(true), SERVER_WAIT);
    });

    it('a waiter stops with its signal', async () => {
      const clock = createManualClock();
      const a = conn();
      const { limiter } = await make({ clock, limits: { [a]: { requestsPerSecond: 1, burst: 1 } } });
      await limiter.take(a);
      const abort = new AbortController();
      const waiting = limiter.take(a, { signal: abort.signal });
      await settle();
      abort.abort(new Error('stopped'));
      await expect(waiting).rejects.toThrow('stopped');
    });

    it('two takers on one store never hand out more than the burst between them', async () => {
      const clock = createManualClock();
      const a = conn();
      const { limiter, twin } = await make({ clock, limits: { [a]: { requestsPerSecond: 1, burst: 5 } } });
      const takes = Array.from({ length: 8 }, (_, i) => track((i % 2 ? twin : limiter).take(a)));
      await vi.waitFor(() => expect(takes.filter((t) => t.done)).toHaveLength(5), SERVER_WAIT);
      await settle();
      expect(takes.filter((t) => t.done)).toHaveLength(5);
      expect(takes.every((t) => t.error === undefined)).toBe(true);
      clock.advance(1_000);
      await vi.waitFor(
        () => expect(takes.filter((t) => t.done).length).toBeGreaterThanOrEqual(6),
        SERVER_WAIT,
      );
    });

    it("one taker's pause holds back the other", async () => {
      const clock = createManualClock();
      const a = conn();
      const { limiter, twin } = await make({ clock, limits: { [a]: { requestsPerSecond: 10, burst: 10 } } });
      await limiter.pause(a, clock.now().getTime() + 1_000);
      const held = track(twin.take(a));
      await settle();
      expect(held.done).toBe(false);
      clock.advance(1_000);
      await vi.waitFor(() => expect(held.done).toBe(true), SERVER_WAIT);
    });
  });
}
