/**
 * `ConnectionRegistry` on a DynamoDB table: one item per connection, partition key `name`
 * (`CONNECTION_REGISTRY_TABLE_KEY`, which the CDK construct reads too), the entry's settings as
 * native attributes (a console or `aws dynamodb get-item` shows them as they are). Writes are
 * conditional — `attribute_not_exists` to add, `attribute_exists` to pause, resume or remove — so a
 * refused write changes nothing; every item read is validated with the entry schema.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type ConnectionEntry,
  ConnectionEntryError,
  parseConnectionEntry,
} from '../../core/connections/connection-entry.js';
import {
  byConnectionName,
  CONNECTION_REGISTRY_TABLE_KEY,
  type ConnectionRegistry,
  ConnectionRegistryError,
  DuplicateConnectionError,
  UnknownConnectionError,
} from '../../core/connections/registry.js';

export { CONNECTION_REGISTRY_TABLE_KEY } from '../../core/connections/registry.js';

export interface DynamoDbConnectionRegistryOptions {
  client: DynamoDBClient;
  tableName: string;
}

const KEY = CONNECTION_REGISTRY_TABLE_KEY.partitionKey.name;

export function createDynamoDbConnectionRegistry(
  options: DynamoDbConnectionRegistryOptions,
): ConnectionRegistry {
  const { tableName } = options;
  const documents = DynamoDBDocumentClient.from(options.client, {
    marshallOptions: { removeUndefinedValues: true },
  });

  /** A stored item as an entry; a malformed one is an error naming the item and its settings. */
  const entryOf = (item: Record<string, unknown>): ConnectionEntry => {
    try {
      return parseConnectionEntry(item, `${tableName} item ${JSON.stringify(String(item[KEY]))}`);
    } catch (error) {
      if (!(error instanceof ConnectionEntryError)) throw error;
      throw new ConnectionRegistryError(`table ${tableName}: ${error.message}`, { cause: error });
    }
  };

  /** Runs a conditional write; a failed condition becomes `onConflict()`. */
  const conditional = async <T>(write: () => Promise<T>, onConflict: () => Error): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw onConflict();
      throw error;
    }
  };

  const get = async (name: string): Promise<ConnectionEntry | undefined> => {
    const { Item } = await documents.send(
      new GetCommand({ TableName: tableName, Key: { [KEY]: name }, ConsistentRead: true }),
    );
    return Item === undefined ? undefined : entryOf(Item);
  };

  return {
    async list() {
      const entries: ConnectionEntry[] = [];
      for await (const page of paginateScan(
        { client: documents },
        { TableName: tableName, ConsistentRead: true },
      )) {
        for (const item of page.Items ?? []) entries.push(entryOf(item));
      }
      return entries.sort(byConnectionName);
    },

    get,

    async add(entry) {
      const valid = parseConnectionEntry(entry);
      await conditional(
        () =>
          documents.send(
            new PutCommand({
              TableName: tableName,
              Item: { ...valid },
              ConditionExpression: 'attribute_not_exists(#key)',
              ExpressionAttributeNames: { '#key': KEY },
            }),
          ),
        () => new DuplicateConnectionError(valid.name),
      );
    },

    async setPaused(name, paused) {
      // A malformed stored item is refused before anything changes, as a malformed file is.
      const current = await get(name);
      if (current === undefined) throw new UnknownConnectionError(name);
      if (current.paused === paused) return current;
      const { Attributes } = await conditional(
        () =>
          documents.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { [KEY]: name },
              UpdateExpression: 'SET #paused = :paused',
              ConditionExpression: 'attribute_exists(#key)',
              ExpressionAttributeNames: { '#key': KEY, '#paused': 'paused' },
              ExpressionAttributeValues: { ':paused': paused },
              ReturnValues: 'ALL_NEW',
            }),
          ),
        () => new UnknownConnectionError(name),
      );
      return entryOf(Attributes ?? {});
    },

    async remove(name) {
      await conditional(
        () =>
          documents.send(
            new DeleteCommand({
              TableName: tableName,
              Key: { [KEY]: name },
              ConditionExpression: 'attribute_exists(#key)',
              ExpressionAttributeNames: { '#key': KEY },
            }),
          ),
        () => new UnknownConnectionError(name),
      );
    },
  };
}
