/**
 * `CheckpointStore` on a DynamoDB table (partition key `pk`, string). Each item holds the value
 * as a JSON string and a numeric `version`; every write is conditional on the version read, so
 * two pollers racing on one key cannot both advance it.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { CheckpointConflictError } from '#functions/core/errors.js';
import type { CheckpointStore, Versioned } from '#functions/core/ports.js';

export interface DynamoDbCheckpointStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Partition key attribute; default `pk`. */
  keyAttribute?: string;
  /**
   * Strongly consistent reads (default). The poller of a shard reads eventually consistent (half
   * the read units): it owns its connections' checkpoints, and a read that missed the previous
   * minute's write makes the next write conflict (versioned), never a lost change.
   */
  consistentRead?: boolean;
}

const storedItem = z.object({
  version: z.object({ N: z.string().regex(/^\d+$/, 'expected a non-negative integer') }),
  value: z.object({ S: z.string() }),
});

/** Thrown when a stored item does not have the shape this adapter writes. */
export class CheckpointItemError extends Error {
  override readonly name = 'CheckpointItemError';
  constructor(
    readonly key: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`checkpoint item '${key}' is malformed: ${detail}`, options);
  }
}

export function createDynamoDbCheckpointStore<T = unknown>(
  options: DynamoDbCheckpointStoreOptions,
): CheckpointStore<T> {
  const { client, tableName } = options;
  const keyAttribute = options.keyAttribute ?? 'pk';

  return {
    async get(key: string): Promise<Versioned<T> | undefined> {
      const { Item } = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { [keyAttribute]: { S: key } },
          ConsistentRead: options.consistentRead ?? true,
        }),
      );
      if (Item === undefined) return undefined;
      const parsed = storedItem.safeParse(Item);
      if (!parsed.success) {
        throw new CheckpointItemError(key, 'expected `version` (N) and `value` (S)', { cause: parsed.error });
      }
      let value: T;
      try {
        value = JSON.parse(parsed.data.value.S) as T;
      } catch (error) {
        throw new CheckpointItemError(key, '`value` is not JSON', { cause: error });
      }
      return { value, version: Number(parsed.data.version.N) };
    },

    async put(key: string, value: T, expectedVersion: number | undefined): Promise<number> {
      const version = (expectedVersion ?? 0) + 1;
      const serialized = JSON.stringify(value);
      if (serialized === undefined)
        throw new TypeError(`checkpoint '${key}': value is not JSON-serialisable`);
      const condition: Pick<
        PutItemCommandInput,
        'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
      > =
        expectedVersion === undefined
          ? {
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': keyAttribute },
            }
          : {
              ConditionExpression: '#version = :expected',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':expected': { N: String(expectedVersion) } },
            };
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              [keyAttribute]: { S: key },
              version: { N: String(version) },
              value: { S: serialized },
            },
            ...condition,
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) {
          throw new CheckpointConflictError(key, { cause: error });
        }
        throw error;
      }
      return version;
    },
  };
}
