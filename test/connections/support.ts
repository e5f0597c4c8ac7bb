/** A connection registry in memory, for tests of what reads the registry. */
import type { ConnectionEntry } from '#functions/core/connections/connection-entry.js';
import {
  type ConnectionRegistry,
  DuplicateConnectionError,
  type RegistryScanner,
  UnknownConnectionError,
} from '#functions/core/connections/registry.js';

export function memoryRegistry(
  initial: readonly ConnectionEntry[] = [],
): ConnectionRegistry & RegistryScanner {
  const entries = new Map(initial.map((e) => [e.name, e]));
  const list = async () => [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    list,
    scan: async () => ({ entries: await list(), malformed: [] }),
    get: async (name) => entries.get(name),
    async add(entry) {
      if (entries.has(entry.name)) throw new DuplicateConnectionError(entry.name);
      entries.set(entry.name, entry);
    },
    async setPaused(name, paused) {
      const e = entries.get(name);
      if (!e) throw new UnknownConnectionError(name);
      entries.set(name, { ...e, paused });
      return { ...e, paused };
    },
    async remove(name) {
      if (!entries.delete(name)) throw new UnknownConnectionError(name);
    },
  };
}
