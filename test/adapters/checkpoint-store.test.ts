import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointItemError,
  createDynamoDbCheckpointStore,
} from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { describeCheckpointStoreContract } from './checkpoint-store-contract.js';

let servers: TestServers;
let tableName: string;
beforeAll(async () => {
  servers = await startTestServers();
  tableName = await servers.checkpointTable();
});
afterAll(() => servers.close());

describeCheckpointStoreContract('memory', () => createMemoryCheckpointStore());
describeCheckpointStoreContract('DynamoDB (dynalite)', () =>
  createDynamoDbCheckpointStore({ client: servers.dynamoDb, tableName }),
);

describe('DynamoDB checkpoint store', () => {
  it('stores the value as a JSON string beside a numeric version under `pk`', async () => {
    const store = createDynamoDbCheckpointStore({ client: servers.dynamoDb, tableName });
    await store.put('conn#ReceivedOrders', { watermark: 'x' }, undefined);
    const { Item } = await servers.dynamoDb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'conn#ReceivedOrders' } } }),
    );
    expect(Item).toEqual({
      pk: { S: 'conn#ReceivedOrders' },
      version: { N: '1' },
      value: { S: '{"watermark":"x"}' },
    });
  });

  it('names the key when a stored item is malformed', async () => {
    await servers.dynamoDb.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'broken' }, version: { S: 'one' } } }),
    );
    const store = createDynamoDbCheckpointStore({ client: servers.dynamoDb, tableName });
    const error = await store.get('broken').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointItemError);
    expect((error as Error).message).toContain("'broken'");
  });
});
