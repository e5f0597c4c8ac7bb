/**
 * `ShardLease` on the checkpoints table: one item per shard (`pk` = `@shard#<i>/<n>`), taken with
 * one conditional `PutItem` — it succeeds when the item is absent or its `leaseUntil` (epoch ms)
 * has passed — and given back with another, conditional on the holder's token (a lease that
 * outlived its holder's invocation ends at `leaseUntil` anyway).
 */
import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type ShardLease, shardLeaseKey } from '../../core/connections/shard.js';

export interface DynamoDbShardLeaseOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Partition key attribute; default `pk` (the checkpoints table's). */
  keyAttribute?: string;
}

export function createDynamoDbShardLease(options: DynamoDbShardLeaseOptions): ShardLease {
  const key = options.keyAttribute ?? 'pk';
  return {
    async acquire(shard, nowMs, untilMs) {
      const token = randomUUID();
      try {
        await options.client.send(
          new PutItemCommand({
            TableName: options.tableName,
            Item: {
              [key]: { S: shardLeaseKey(shard) },
              leaseUntil: { N: String(Math.ceil(untilMs)) },
              holder: { S: token },
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR leaseUntil <= :now',
            ExpressionAttributeNames: { '#pk': key },
            ExpressionAttributeValues: { ':now': { N: String(Math.floor(nowMs)) } },
          }),
        );
        return token;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
    async release(shard, token) {
      try {
        await options.client.send(
          new PutItemCommand({
            TableName: options.tableName,
            Item: { [key]: { S: shardLeaseKey(shard) }, leaseUntil: { N: '0' } },
            ConditionExpression: 'holder = :token',
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
