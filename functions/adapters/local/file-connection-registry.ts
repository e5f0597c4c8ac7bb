/**
 * `ConnectionRegistry` on a JSON file, `{ "connections": [ … ] }` (docs/connections.md): what
 * `run --connections FILE` reads and `connections add|pause|resume|remove` change. The whole file
 * is validated on every read. A change runs under `<file>.lock`, checks the whole new document,
 * and replaces the file atomically (temporary file, fsync, rename, fsync of the directory); a
 * refused change writes nothing. Entries other than the one changed keep their JSON as written.
 */

import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseCheckedConnectionEntry } from '#functions/core/connections/checked-entry.js';
import type { ConnectionEntry } from '#functions/core/connections/connection-entry.js';
import {
  ConnectionsFileError,
  parseConnectionsDocument,
} from '#functions/core/connections/connections-file.js';
import {
  type ConnectionRegistry,
  DuplicateConnectionError,
  UnknownConnectionError,
} from '#functions/core/connections/registry.js';
import { withFileLock } from './file-lock.js';

export interface FileConnectionRegistryOptions {
  /** The registry file; created by the first `add` (its directory too). */
  path: string;
  /** How long a change waits for another writer's lock; default 5000 ms. */
  lockTimeoutMs?: number;
}

/** The file as read: its raw document (kept for writing back) and its validated entries. */
interface Snapshot {
  document: { connections: Record<string, unknown>[]; [key: string]: unknown };
  entries: ConnectionEntry[];
}

async function readSnapshot(path: string): Promise<Snapshot> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { document: { connections: [] }, entries: [] };
    throw new ConnectionsFileError(path, [`cannot be read (${(error as Error).message})`], { cause: error });
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // The parser's message quotes the file's text: not kept.
    throw new ConnectionsFileError(path, ['is not valid JSON']);
  }
  const entries = parseConnectionsDocument(document, path);
  return { document: document as Snapshot['document'], entries };
}

/** Writes `text` to `path` atomically: a reader sees the old file or the new one, never a part. */
async function replaceFile(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temporary = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const directory = await open(dir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

export function createFileConnectionRegistry(
  options: FileConnectionRegistryOptions,
): ConnectionRegistry & { readonly path: string } {
  const { path } = options;

  /**
   * Reads under the lock, lets `change` build the new list (or throw: nothing written; or return no
   * list: nothing to change), and writes it.
   */
  const mutate = <T>(change: (snapshot: Snapshot) => { connections?: unknown[]; result: T }): Promise<T> =>
    withFileLock(
      path,
      async () => {
        const snapshot = await readSnapshot(path);
        const { connections, result } = change(snapshot);
        if (connections === undefined) return result;
        const next = { ...snapshot.document, connections };
        // The whole new document must pass too; a file this adapter cannot read again is never written.
        parseConnectionsDocument(next, path);
        await replaceFile(path, `${JSON.stringify(next, null, 2)}\n`);
        return result;
      },
      options.lockTimeoutMs,
    );

  const indexOf = (snapshot: Snapshot, name: string): number => {
    const index = snapshot.document.connections.findIndex((raw) => raw.name === name);
    if (index < 0) throw new UnknownConnectionError(name);
    return index;
  };

  return {
    path,
    async list() {
      return (await readSnapshot(path)).entries;
    },
    async get(name) {
      return (await readSnapshot(path)).entries.find((e) => e.name === name);
    },
    async add(entry) {
      const valid = parseCheckedConnectionEntry(entry);
      return mutate(({ document, entries }) => {
        if (entries.some((e) => e.name === valid.name)) throw new DuplicateConnectionError(valid.name);
        return { connections: [...document.connections, valid], result: undefined };
      });
    },
    async setPaused(name, paused) {
      return mutate((snapshot) => {
        const index = indexOf(snapshot, name);
        const entry = snapshot.entries.find((e) => e.name === name) as ConnectionEntry;
        if (entry.paused === paused) return { result: entry };
        const connections = snapshot.document.connections.map((raw, i) =>
          i === index ? { ...raw, paused } : raw,
        );
        return { connections, result: { ...entry, paused } };
      });
    },
    async remove(name) {
      return mutate((snapshot) => {
        const index = indexOf(snapshot, name);
        return {
          connections: snapshot.document.connections.filter((_, i) => i !== index),
          result: undefined,
        };
      });
    },
  };
}
