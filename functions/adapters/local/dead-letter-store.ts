/**
 * Where the local bus keeps its dead letters: in memory, or in a JSON-lines file in the data
 * directory (`openFileDeadLetterStore`), appended and fsync'd before the bus moves past the event,
 * so they survive a restart and `dlq ls|redrive` can read them.
 */
import { mkdir, open, readFile, rename, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DeadLetter } from './local-bus-types.js';

export interface DeadLetterStore {
  /** Keeps one dead letter durably. */
  add(letter: DeadLetter): Promise<void>;
  /** Every kept dead letter, oldest first. */
  list(): Promise<DeadLetter[]>;
  /** Keeps only the dead letters `keep` returns true for (after a redrive). */
  retain(keep: (letter: DeadLetter) => boolean): Promise<void>;
}

export function createMemoryDeadLetterStore(): DeadLetterStore {
  let letters: DeadLetter[] = [];
  return {
    add: async (letter) => {
      letters.push(letter);
    },
    list: async () => [...letters],
    retain: async (keep) => {
      letters = letters.filter(keep);
    },
  };
}

interface StoredLetter extends Omit<DeadLetter, 'at'> {
  at: string;
}

function parse(line: string): DeadLetter | undefined {
  try {
    const stored = JSON.parse(line) as StoredLetter;
    return { ...stored, at: new Date(stored.at) };
  } catch {
    return undefined; // a torn last line (a crash mid-append): that letter is still in the journal
  }
}

/** Cuts a torn last line (a crash mid-append) so the next append starts on a line of its own. */
async function repair(path: string): Promise<void> {
  try {
    const text = await readFile(path);
    const end = text.lastIndexOf(0x0a) + 1;
    if (end < text.length) await truncate(path, end);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export function openFileDeadLetterStore(path: string): DeadLetterStore {
  let chain: Promise<unknown> = repair(path).catch(() => {});
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => {});
    return next;
  };
  const read = async (): Promise<DeadLetter[]> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map(parse)
      .filter((l): l is DeadLetter => l !== undefined);
  };
  const write = async (text: string, flags: 'a' | 'w', file = path) => {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(file, flags);
    try {
      await handle.appendFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  const line = (l: DeadLetter) => `${JSON.stringify({ ...l, at: l.at.toISOString() })}\n`;
  return {
    add: (letter) => serial(() => write(line(letter), 'a')),
    list: () => serial(read),
    retain: (keep) =>
      serial(async () => {
        const kept = (await read()).filter(keep);
        await write(kept.map(line).join(''), 'w', `${path}.tmp`);
        await rename(`${path}.tmp`, path);
      }),
  };
}
