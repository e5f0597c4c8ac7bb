/**
 * The connection registry port: where the deployment's connections live (DynamoDB on AWS, a JSON
 * file locally). Writes are validated with `connectionEntrySchema` before anything changes;
 * a refused write leaves the registry as it was.
 */
import type { ConnectionEntry } from './connection-entry.js';
import type { Shard } from './shard.js';

/**
 * The DynamoDB registry table's key: one item per connection, partition key `name` (string), no
 * sort key. The CDK construct and the adapter both read it from here.
 */
export const CONNECTION_REGISTRY_TABLE_KEY = {
  partitionKey: { name: 'name', type: 'S' },
} as const;

/** The order `list` returns: by name, code point order (the same in every locale). */
export function byConnectionName(a: ConnectionEntry, b: ConnectionEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export interface ConnectionRegistry {
  /** Every connection, paused ones included, ordered by name. */
  list(): Promise<ConnectionEntry[]>;
  get(name: string): Promise<ConnectionEntry | undefined>;
  /** Adds a new connection; throws `DuplicateConnectionError` when the name is taken. */
  add(entry: ConnectionEntry): Promise<void>;
  /** Sets the paused flag; throws `UnknownConnectionError` when there is no such connection. */
  setPaused(name: string, paused: boolean): Promise<ConnectionEntry>;
  /** Removes a connection; throws `UnknownConnectionError` when there is no such connection. */
  remove(name: string): Promise<void>;
}

/** A stored item that is no valid entry: its key and every bad setting (field and expectation, no value). */
export interface MalformedEntry {
  key: string;
  problems: readonly string[];
}

/** Every valid entry of a registry, and the stored items that are not valid entries. */
export interface RegistryScan {
  entries: ConnectionEntry[];
  malformed: MalformedEntry[];
}

/**
 * A registry read item by item (the DynamoDB table): one malformed item is reported, not fatal,
 * so the poller still polls every other connection. With a shard, only that shard's connections.
 */
export interface RegistryScanner {
  scan(shard?: Shard): Promise<RegistryScan>;
}

export class DuplicateConnectionError extends Error {
  override readonly name = 'DuplicateConnectionError';
  constructor(readonly connection: string) {
    super(`connection '${connection}' already exists (names are unique; remove it first to replace it)`);
  }
}

export class UnknownConnectionError extends Error {
  override readonly name = 'UnknownConnectionError';
  constructor(readonly connection: string) {
    super(`connection '${connection}' is not in the registry`);
  }
}

/** The registry could not be read or written (unreadable file, malformed stored entry, store error). */
export class ConnectionRegistryError extends Error {
  override readonly name: string = 'ConnectionRegistryError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
