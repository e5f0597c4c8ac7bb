/**
 * In-memory `CheckpointStore` with the same semantics as the DynamoDB adapter: values are
 * stored as JSON (so callers never share references with the store) and writes are
 * conditional on the version.
 */
import { CheckpointConflictError } from '#functions/core/errors.js';
import type { CheckpointStore, Versioned } from '#functions/core/ports.js';

export interface MemoryCheckpointStore<T = unknown> extends CheckpointStore<T> {
  /** Every key currently stored, for inspection in tests and the local runtime. */
  keys(): string[];
}

export function createMemoryCheckpointStore<T = unknown>(): MemoryCheckpointStore<T> {
  const items = new Map<string, { json: string; version: number }>();
  return {
    async get(key: string): Promise<Versioned<T> | undefined> {
      const item = items.get(key);
      if (item === undefined) return undefined;
      return { value: JSON.parse(item.json) as T, version: item.version };
    },
    async put(key: string, value: T, expectedVersion: number | undefined): Promise<number> {
      const current = items.get(key);
      if (current?.version !== expectedVersion) throw new CheckpointConflictError(key);
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError(`checkpoint '${key}': value is not JSON-serialisable`);
      const version = (expectedVersion ?? 0) + 1;
      items.set(key, { json, version });
      return version;
    },
    keys: () => [...items.keys()],
  };
}
