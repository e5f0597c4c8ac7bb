/**
 * `ImportAttempts` in the idempotency table (partition key `id`, TTL attribute `expiration`, as
 * Powertools keeps it): one conditional `PutItem` per attempt, under `intake-attempt#<key>`.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ImportAttempts } from '#functions/core/intake/ports.js';
import type { Clock } from '#functions/core/ports.js';

export function createDynamoDbImportAttempts(options: {
  client: DynamoDBClient;
  tableName: string;
  /** How long an attempt is remembered (the idempotency records' lifetime). */
  expiresAfterSeconds: number;
  clock: Clock;
}): ImportAttempts {
  return {
    async begin(key: string): Promise<boolean> {
      const expiration = Math.floor(options.clock.now().getTime() / 1000) + options.expiresAfterSeconds;
      try {
        await options.client.send(
          new PutItemCommand({
            TableName: options.tableName,
            Item: { id: { S: `intake-attempt#${key}` }, expiration: { N: String(expiration) } },
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
