import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServers, type TestServers } from '../support/embedded.js';

describe('embedded servers', () => {
  let servers: TestServers;
  beforeAll(async () => {
    servers = await startTestServers();
  });
  afterAll(() => servers.close());

  it('binds both servers to 127.0.0.1 on ephemeral ports', () => {
    expect(servers.dynamoDbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(servers.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(servers.dynamoDbEndpoint).not.toBe(servers.s3Endpoint);
  });

  it('creates checkpoint and idempotency tables, idempotently', async () => {
    const checkpoints = await servers.checkpointTable();
    const idempotency = await servers.idempotencyTable();
    const { TableNames } = await servers.dynamoDb.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining([checkpoints, idempotency]));
  });

  it('stores and returns an object in a bucket', async () => {
    const bucket = await servers.bucket();
    await servers.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a/b.txt', Body: 'hello' }));
    const got = await servers.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/b.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
  });
});
