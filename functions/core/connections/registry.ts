/**
 * The connection registry port: where the deployment's connections live (DynamoDB on AWS, a JSON
 * file locally). Writes are validated with `connectionEntrySchema` before anything changes;
 * a refused write leaves the registry as it was.
 */
import type { ConnectionEntry } from './connection-entry.js';

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
  override readonly name = 'ConnectionRegistryError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
