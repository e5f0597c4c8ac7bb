/**
 * `ShardLease` on the checkpoints table: one item per shard (`pk` = `@shard#<i>/<n>`), taken with
 * one conditional `PutItem` — it succeeds when the item is absent or its `leaseUntil` (epoch ms)
 * has passed, returning the previous item (who held the shard before) — and given back with
 * another `PutItem`, conditional on the lease's token (a lease that outlived its holder's invocation ends
 * at `leaseUntil` anyway).
 */
import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type ShardLease, shardLeaseKey } from '#functions/core/connections/shard.js';

export interface DynamoDbShardLeaseOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Partition key attribute; default `pk` (the checkpoints table's). */
  keyAttribute?: string;
}

export function createDynamoDbShardLease(options: DynamoDbShardLeaseOptions): ShardLease {
  const key = options.keyAttribute ?? 'pk';
  /** Who took each lease still held by this process (written back on release). */
  const holders = new Map<string, string>();
  return {
    async acquire(shard, nowMs, untilMs, holder) {
      const token = randomUUID();
      try {
        // The previous item comes back with the write (no read): who held the shard before.
        const out = await options.client.send(
          new PutItemCommand({
            TableName: options.tableName,
            Item: {
              [key]: { S: shardLeaseKey(shard) },
              leaseUntil: { N: String(Math.ceil(untilMs)) },
              token: { S: token },
              holder: { S: holder },
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR leaseUntil <= :now',
            ExpressionAttributeNames: { '#pk': key },
            ExpressionAttributeValues: { ':now': { N: String(Math.floor(nowMs)) } },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const previousHolder = out.Attributes?.holder?.S;
        holders.set(token, holder);
        return { token, ...(previousHolder ? { previousHolder } : {}) };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
    async release(shard, token) {
      try {
        const holder = holders.get(token);
        holders.delete(token);
        await options.client.send(
          new PutItemCommand({
            TableName: options.tableName,
            Item: {
              [key]: { S: shardLeaseKey(shard) },
              leaseUntil: { N: '0' },
              token: { S: token },
              ...(holder ? { holder: { S: holder } } : {}),
            },
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': { S: token } },
          }),
        );
      } catch (error) {
        // Taken over after it ran out: the new holder's now.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}
