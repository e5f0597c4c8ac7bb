import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbRateLimiter } from '../../functions/adapters/aws/dynamodb-rate-limiter.js';
import { createManualClock } from '../../functions/shared/clock.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { describeRateLimiterContract } from './rate-limiter-contract.js';

let servers: TestServers;
let tableName: string;
beforeAll(async () => {
  servers = await startTestServers();
  tableName = await servers.checkpointTable('rate-limits');
});
afterAll(() => servers.close());

describeRateLimiterContract('DynamoDB (dynalite)', ({ clock, limits }) => {
  const make = () => createDynamoDbRateLimiter({ client: servers.dynamoDb, tableName, clock, limits });
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
});
