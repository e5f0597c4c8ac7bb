/**
 * The checkpoints of a shard's connections kept in memory by the container that polls the shard,
 * so an idle cycle reads none of them: what this container last read or wrote is what the store
 * holds, as long as no other container polled the shard since. The shard's lease says whether one
 * did (`previousHolder`): when another container held it last, the cache is dropped and the next
 * cycle reads the store. A write still goes to the store, conditional on the version read; a
 * conflict drops that key (another writer was there) and the next cycle reads it again.
 */
import type { CheckpointStore, Versioned } from '../ports.js';

export interface CheckpointCache<T = unknown> extends CheckpointStore<T> {
  /** Forgets everything (another container polled the shard since this one did). */
  clear(): void;
  /** Keys held. */
  size(): number;
}

export function createCheckpointCache<T = unknown>(store: CheckpointStore<T>): CheckpointCache<T> {
  /** `undefined` as a value: the store had no item under the key. */
  const held = new Map<string, Versioned<T> | undefined>();
  return {
    async get(key) {
      if (held.has(key)) {
        const hit = held.get(key);
        return hit === undefined ? undefined : structuredClone(hit);
      }
      const read = await store.get(key);
      held.set(key, read === undefined ? undefined : structuredClone(read));
      return read;
    },
    async put(key, value, expectedVersion) {
      try {
        const version = await store.put(key, value, expectedVersion);
        held.set(key, { value: structuredClone(value), version });
        return version;
      } catch (error) {
        // A conflict (`CheckpointConflictError`: another writer was there), or a write whose
        // outcome is unknown: read the store next time.
        held.delete(key);
        throw error;
      }
    },
    clear: () => held.clear(),
    size: () => held.size,
  };
}
