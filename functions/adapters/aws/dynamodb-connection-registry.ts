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
} from '#functions/core/connections/connection-entry.js';
import {
  byConnectionName,
  CONNECTION_REGISTRY_TABLE_KEY,
  type ConnectionRegistry,
  ConnectionRegistryError,
  DuplicateConnectionError,
  type RegistryScan,
  type RegistryScanner,
  UnknownConnectionError,
} from '#functions/core/connections/registry.js';
import type { Shard } from '#functions/core/connections/shard.js';

export { CONNECTION_REGISTRY_TABLE_KEY } from '#functions/core/connections/registry.js';

export interface DynamoDbConnectionRegistryOptions {
  client: DynamoDBClient;
  tableName: string;
}

const KEY = CONNECTION_REGISTRY_TABLE_KEY.partitionKey.name;

interface Table {
  documents: DynamoDBDocumentClient;
  tableName: string;
}

/** A stored item as an entry; a malformed one is an error naming the item and its settings. */
function entryOf({ tableName }: Table, item: Record<string, unknown>): ConnectionEntry {
  try {
    return parseConnectionEntry(item, `${tableName} item ${JSON.stringify(String(item[KEY]))}`);
  } catch (error) {
    if (!(error instanceof ConnectionEntryError)) throw error;
    throw new ConnectionRegistryError(`table ${tableName}: ${error.message}`, { cause: error });
  }
}

/** Runs a conditional write; a failed condition becomes `onConflict()`. */
async function conditional<T>(write: () => Promise<T>, onConflict: () => Error): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw onConflict();
    throw error;
  }
}

async function listEntries(table: Table): Promise<ConnectionEntry[]> {
  const entries: ConnectionEntry[] = [];
  const pages = paginateScan(
    { client: table.documents },
    { TableName: table.tableName, ConsistentRead: true },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) entries.push(entryOf(table, item));
  }
  return entries.sort(byConnectionName);
}

/**
 * Every item (or a shard's: its scan segment), each validated on its own: the valid entries, and
 * the malformed items by key. A shard is read eventually consistent (half the read units; a
 * change is seen a moment later, on the next cycle at worst).
 */
async function scanEntries(table: Table, shard?: Shard): Promise<RegistryScan> {
  const scan: RegistryScan = { entries: [], malformed: [] };
  const pages = paginateScan(
    { client: table.documents },
    shard
      ? {
          TableName: table.tableName,
          ...(shard.count > 1 ? { Segment: shard.index, TotalSegments: shard.count } : {}),
        }
      : { TableName: table.tableName, ConsistentRead: true },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      try {
        scan.entries.push(parseConnectionEntry(item));
      } catch (error) {
        if (!(error instanceof ConnectionEntryError)) throw error;
        scan.malformed.push({ key: String(item[KEY]), problems: error.problems });
      }
    }
  }
  scan.entries.sort(byConnectionName);
  return scan;
}

async function getEntry(table: Table, name: string): Promise<ConnectionEntry | undefined> {
  const { Item } = await table.documents.send(
    new GetCommand({ TableName: table.tableName, Key: { [KEY]: name }, ConsistentRead: true }),
  );
  return Item === undefined ? undefined : entryOf(table, Item);
}

async function addEntry(table: Table, entry: ConnectionEntry): Promise<void> {
  const valid = parseConnectionEntry(entry);
  await conditional(
    () =>
      table.documents.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...valid },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY },
        }),
      ),
    () => new DuplicateConnectionError(valid.name),
  );
}

async function setPaused(table: Table, name: string, paused: boolean): Promise<ConnectionEntry> {
  // A malformed stored item is refused before anything changes, as a malformed file is.
  const current = await getEntry(table, name);
  if (current === undefined) throw new UnknownConnectionError(name);
  if (current.paused === paused) return current;
  const { Attributes } = await conditional(
    () =>
      table.documents.send(
        new UpdateCommand({
          TableName: table.tableName,
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
  return entryOf(table, Attributes ?? {});
}

async function removeEntry(table: Table, name: string): Promise<void> {
  await conditional(
    () =>
      table.documents.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: { [KEY]: name },
          ConditionExpression: 'attribute_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY },
        }),
      ),
    () => new UnknownConnectionError(name),
  );
}

export function createDynamoDbConnectionRegistry(
  options: DynamoDbConnectionRegistryOptions,
): ConnectionRegistry & RegistryScanner {
  const table: Table = {
    tableName: options.tableName,
    documents: DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    }),
  };
  return {
    list: () => listEntries(table),
    scan: (shard) => scanEntries(table, shard),
    get: (name) => getEntry(table, name),
    add: (entry) => addEntry(table, entry),
    setPaused: (name, paused) => setPaused(table, name, paused),
    remove: (name) => removeEntry(table, name),
  };
}
