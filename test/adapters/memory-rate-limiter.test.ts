import { afterEach, describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import {
  createMemoryRateLimiter,
  RateLimiterHaltedError,
} from '#functions/adapters/local/memory-rate-limiter.js';
import { requestLimiterFor } from '#functions/core/connections/request-limiter.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { startFakeServer } from '../fakes/accounting-server.js';
import { describeRateLimiterContract } from './rate-limiter-contract.js';

describeRateLimiterContract('in memory', ({ clock, limits }) => {
  const limiter = createMemoryRateLimiter({ clock, limits });
  return { limiter, twin: limiter };
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Waits (real time, at most 5 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await flush();
  expect(condition()).toBe(true);
}

describe('in-memory rate limiter', () => {
  it('lets a burst through, then one token per 1/rate seconds, per connection', async () => {
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({ clock, defaultLimit: { requestsPerSecond: 2, burst: 3 } });
    for (let i = 0; i < 3; i++) await limiter.take('a');
    let fourth = false;
    void limiter.take('a').then(() => {
      fourth = true;
    });
    await limiter.take('b'); // another connection's bucket is full
    await flush();
    expect(fourth).toBe(false);
    expect(clock.sleeps.at(-1)).toBe(500);
    clock.advance(500);
    await flush();
    expect(fourth).toBe(true);
  });

  it('holds a paused connection back until the pause ends, and a waiter stops when its signal aborts', async () => {
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({
      clock,
      limits: { a: { requestsPerSecond: 100, burst: 100 } },
    });
    await limiter.pause('a', clock.now().getTime() + 3_000);
    const abort = new AbortController();
    const waiting = limiter.take('a', { signal: abort.signal });
    abort.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    let taken = false;
    void limiter.take('a').then(() => {
      taken = true;
    });
    clock.advance(2_999);
    await flush();
    expect(taken).toBe(false);
    clock.advance(1);
    await flush();
    expect(taken).toBe(true);
  });

  it('a new limit caps the tokens at its burst', async () => {
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({ clock, defaultLimit: { requestsPerSecond: 1, burst: 10 } });
    await limiter.take('a');
    limiter.setLimit('a', { requestsPerSecond: 1, burst: 1 });
    await limiter.take('a');
    const next = limiter.take('a');
    await flush();
    expect(clock.sleeps.at(-1)).toBe(1000);
    clock.advance(1000);
    await next;
  });
});

describe('a 429 on one connection', () => {
  const servers: Awaited<ReturnType<typeof startFakeServer>>[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it("slows that connection's clients only: the other connection's requests go on", async () => {
    const server = await startFakeServer();
    servers.push(server);
    let refusedA = false;
    server.route('GET', '/v1/BusinessPartners', (req) => {
      if (req.headers['api-key'] === 'key-a' && !refusedA) {
        refusedA = true;
        return { status: 429, headers: { 'Retry-After': '5' }, body: { status: 429 } };
      }
      return { status: 200, body: { Items: [] } };
    });
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({ clock, defaultLimit: { requestsPerSecond: 100, burst: 100 } });
    const client = (connection: string, apiKey: string) =>
      createAccountingClient(apiKeyConfig(server.url, { apiKey }), {
        clock,
        limiter: requestLimiterFor(limiter, connection),
      });
    const pollerA = client('a', 'key-a');
    const actionsA = client('a', 'key-a'); // another client of connection a, sharing its bucket
    const pollerB = client('b', 'key-b');
    const list = (c: typeof pollerA) =>
      c.call('BusinessPartners.list', { query: { PageNumber: 1, PageSize: 1 } });
    const hitsOf = (key: string) => server.requests.filter((r) => r.headers['api-key'] === key).length;
    try {
      let aDone = 0;
      const a1 = list(pollerA).then(() => aDone++);
      await until(() => clock.pending() === 1); // answered 429 (Retry-After 5 s): its retry sleeps
      expect(hitsOf('key-a')).toBe(1);
      const a2 = list(actionsA).then(() => aDone++);
      for (let i = 0; i < 3; i++) await list(pollerB);
      await until(() => clock.pending() === 2);
      expect(hitsOf('key-b')).toBe(3);
      expect(hitsOf('key-a')).toBe(1); // a's other client waits for the pause too
      expect(aDone).toBe(0);
      clock.advance(5_000);
      await Promise.all([a1, a2]);
      expect(hitsOf('key-a')).toBe(3);
    } finally {
      await Promise.all([pollerA.close(), actionsA.close(), pollerB.close()]);
    }
  });
});

describe('a halted in-memory rate limiter (the process is stopping)', () => {
  it('rejects a take that waits or would have to, and lets one the bucket allows through', async () => {
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({ clock, defaultLimit: { requestsPerSecond: 1, burst: 2 } });
    await limiter.take('a');
    await limiter.take('a');
    const held = limiter.take('a');
    await flush();
    limiter.halt();
    await expect(held).rejects.toBeInstanceOf(RateLimiterHaltedError);
    await expect(limiter.take('a')).rejects.toBeInstanceOf(RateLimiterHaltedError);
    await limiter.take('c'); // a full bucket: no wait, so it goes
  });
});
