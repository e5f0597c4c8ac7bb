import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { createDynamoDbRateLimiter } from '#functions/adapters/aws/dynamodb-rate-limiter.js';
import { createMemoryRateLimiter } from '#functions/adapters/local/memory-rate-limiter.js';
import { requestLimiterFor } from '#functions/core/connections/request-limiter.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { startFakeServer } from '../fakes/accounting-server.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { SERVER_WAIT } from '../support/wait.js';
import { describeRateLimiterContract } from './rate-limiter-contract.js';

let servers: TestServers;
let tableName: string;
beforeAll(async () => {
  servers = await startTestServers();
  tableName = await servers.checkpointTable('rate-limits');
});
afterAll(() => servers.close());

describeRateLimiterContract('memory', ({ clock, limits }) => {
  const limiter = createMemoryRateLimiter({ clock, limits });
  return { limiter, twin: limiter };
});
describeRateLimiterContract('DynamoDB (dynalite)', ({ clock, limits }) => {
  const make = () => createDynamoDbRateLimiter({ client: servers.dynamoDb, tableName, clock, limits });
  return { limiter: make(), twin: make() };
});

describeRateLimiterContract('DynamoDB (dynalite), four tokens per write', ({ clock, limits }) => {
  const make = () =>
    createDynamoDbRateLimiter({ client: servers.dynamoDb, tableName, clock, limits, prefetch: 4 });
  return { limiter: make(), twin: make() };
});

describe('DynamoDB rate limiter', () => {
  it('keeps one versioned bucket item per connection, expiring a day after its last use', async () => {
    const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
    const limiter = createDynamoDbRateLimiter({
      client: servers.dynamoDb,
      tableName,
      clock,
      defaultLimit: { requestsPerSecond: 5, burst: 10 },
    });
    await limiter.take('acme');
    await limiter.take('acme');
    const { Item } = await servers.dynamoDb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'acme' } }, ConsistentRead: true }),
    );
    expect(Item).toMatchObject({
      pk: { S: 'acme' },
      tokens: { N: '8' },
      version: { N: '2' },
      ttl: { N: String(Date.parse('2026-03-04T10:00:00.000Z') / 1000 + 86_400) },
    });
    // The second take reused the bucket this limiter had just written: one read, two writes.
    expect(limiter.stats()).toEqual({ reads: 1, writes: 2, conflicts: 0 });
  });

  it('concurrent takes of one container do not race each other; prefetched tokens save writes', async () => {
    const clock = createManualClock();
    const limiter = createDynamoDbRateLimiter({
      client: servers.dynamoDb,
      tableName,
      clock,
      defaultLimit: { requestsPerSecond: 5, burst: 20 },
      prefetch: 4,
    });
    await Promise.all(Array.from({ length: 12 }, () => limiter.take('prefetching')));
    expect(limiter.stats()).toEqual({ reads: 1, writes: 3, conflicts: 0 });
    const { Item } = await servers.dynamoDb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'prefetching' } }, ConsistentRead: true }),
    );
    expect(Item?.tokens).toEqual({ N: '8' });
  });
});

describe('a 429 on one connection, across containers', () => {
  it("pauses that connection's bucket for every function that draws from it, and no other connection", async () => {
    const server = await startFakeServer();
    let refusedA = false;
    server.route('GET', '/v1/BusinessPartners', (req) => {
      if (req.headers['api-key'] === 'key-a' && !refusedA) {
        refusedA = true;
        return { status: 429, headers: { 'Retry-After': '5' }, body: { status: 429 } };
      }
      return { status: 200, body: { Items: [] } };
    });
    const clock = createManualClock();
    // Two containers (the poller's and an action's), each with its own limiter on the one table.
    const container = () =>
      createDynamoDbRateLimiter({
        client: servers.dynamoDb,
        tableName,
        clock,
        defaultLimit: { requestsPerSecond: 100, burst: 100 },
      });
    const [poller, action] = [container(), container()];
    const client = (limiter: ReturnType<typeof container>, connection: string, apiKey: string) =>
      createAccountingClient(apiKeyConfig(server.url, { apiKey }), {
        clock,
        limiter: requestLimiterFor(limiter, connection),
      });
    const pollerA = client(poller, 'a-429', 'key-a');
    const actionA = client(action, 'a-429', 'key-a');
    const pollerB = client(poller, 'b-429', 'key-b');
    const list = (c: typeof pollerA) =>
      c.call('BusinessPartners.list', { query: { PageNumber: 1, PageSize: 1 } });
    const hitsOf = (key: string) => server.requests.filter((r) => r.headers['api-key'] === key).length;
    try {
      const a1 = list(pollerA);
      await vi.waitFor(() => expect(clock.pending()).toBe(1), SERVER_WAIT); // the 429's retry waits 5 s; the pause is written
      const a2 = list(actionA);
      for (let i = 0; i < 3; i++) await list(pollerB);
      await vi.waitFor(() => expect(clock.pending()).toBe(2), SERVER_WAIT); // the action's take waits for the pause
      expect(hitsOf('key-b')).toBe(3);
      expect(hitsOf('key-a')).toBe(1);
      clock.advance(5_000);
      await Promise.all([a1, a2]);
      expect(hitsOf('key-a')).toBe(3);
    } finally {
      await Promise.all([pollerA.close(), actionA.close(), pollerB.close(), server.close()]);
    }
  });
});
