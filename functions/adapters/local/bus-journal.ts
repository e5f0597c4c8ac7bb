/**
 * The journal of the local bus: every published event, numbered (`seq`), and the durable offset
 * of each subscriber (the highest `seq` it has handled, with everything before it). An event is
 * published once its append resolved; subscribers then consume the journal at least once.
 *
 * Two implementations: in memory (tests, one-shot tools) and on disk (`openFileJournal`): an
 * append-only file of JSON lines per segment, `fsync`'d before an append resolves, and the
 * offsets in a small JSON file replaced atomically (write, fsync, rename, fsync the directory).
 * Segments every subscriber has moved past are deleted (compaction), so the journal stays bounded.
 */
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { decodePosition, encodePosition, type SubscriberPosition } from './bus-position.js';
import type { EventBridgeEvent } from './local-bus-types.js';

export interface JournalEntry {
  seq: number;
  event: EventBridgeEvent;
  /** Only for this subscriber (a redriven dead letter); absent = every matching subscriber. */
  target?: string;
}

export interface BusJournal {
  /** Appends durably, in call order; resolves with the numbered entries once they are on disk. */
  append(events: readonly EventBridgeEvent[], target?: string): Promise<JournalEntry[]>;
  /** The retained entries, oldest first. */
  entries(): readonly JournalEntry[];
  /** The `seq` of the newest entry (0 when none was ever written). */
  lastSeq(): number;
  /** A subscriber's offset (its low-water mark); `undefined` for a subscriber the journal does not know. */
  offset(subscriber: string): number | undefined;
  /** A subscriber's position (offset and what is handled above it); `undefined` when unknown. */
  position(subscriber: string): SubscriberPosition | undefined;
  /**
   * Sets the positions (or bare offsets) of this run's subscribers (others are forgotten: they no
   * longer hold back compaction). Written lazily; `flush()` makes them durable.
   */
  commit(positions: ReadonlyMap<string, number | SubscriberPosition>): void;
  /** Writes pending offsets durably and compacts. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown when the journal on disk cannot be read (other than a torn last line, which is dropped). */
export class JournalCorruptError extends Error {
  override readonly name = 'JournalCorruptError';
}

/** Positions keyed by subscriber, bare offsets read as positions with nothing known above them. */
function positionsOf(
  next: ReadonlyMap<string, number | SubscriberPosition>,
): Map<string, SubscriberPosition> {
  return new Map([...next].map(([id, p]) => [id, typeof p === 'number' ? { offset: p } : p]));
}

function lowWater(positions: ReadonlyMap<string, SubscriberPosition>, seq: number): number {
  return positions.size > 0 ? Math.min(...[...positions.values()].map((p) => p.offset)) : seq;
}

export function createMemoryJournal(): BusJournal {
  let entries: JournalEntry[] = [];
  let seq = 0;
  let positions = new Map<string, SubscriberPosition>();
  return {
    async append(events, target) {
      const added = events.map((event) => ({ seq: ++seq, event, ...(target ? { target } : {}) }));
      entries.push(...added);
      return added;
    },
    entries: () => entries,
    lastSeq: () => seq,
    offset: (subscriber) => positions.get(subscriber)?.offset,
    position: (subscriber) => positions.get(subscriber),
    commit(next) {
      positions = positionsOf(next);
      const low = lowWater(positions, seq);
      entries = entries.filter((e) => e.seq > low);
    },
    flush: async () => {},
    close: async () => {},
  };
}

const SEGMENT = /^(\d{12})\.jsonl$/;
const OFFSETS = 'offsets.json';
/** A segment is rolled once it is this large. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Reads one segment. Appends are whole lines, so only the last one can be torn (a crash mid-append,
 * before its fsync resolved: never acknowledged); it is cut off the file.
 */
async function readSegment(path: string): Promise<JournalEntry[]> {
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  if (tail !== '') await truncate(path, Buffer.byteLength(text) - Buffer.byteLength(tail));
  return lines
    .filter((line) => line !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as JournalEntry;
      } catch (error) {
        throw new JournalCorruptError(`bus journal ${path}: line ${i + 1} is not JSON`, { cause: error });
      }
    });
}

interface Segment {
  path: string;
  firstSeq: number;
  lastSeq: number;
  bytes: number;
}

/** Reads every segment in `dir`, oldest first. */
async function loadSegments(dir: string): Promise<{ segments: Segment[]; entries: JournalEntry[] }> {
  const names = (await readdir(dir)).filter((n) => SEGMENT.test(n)).sort();
  const segments: Segment[] = [];
  const entries: JournalEntry[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const read = await readSegment(path);
    const firstSeq = Number(SEGMENT.exec(name)?.[1]);
    segments.push({ path, firstSeq, lastSeq: read.at(-1)?.seq ?? firstSeq - 1, bytes: SEGMENT_BYTES });
    entries.push(...read);
  }
  return { segments, entries };
}

async function loadOffsets(dir: string): Promise<Map<string, SubscriberPosition>> {
  try {
    const stored = JSON.parse(await readFile(join(dir, OFFSETS), 'utf8')) as Record<string, unknown>;
    const positions = new Map<string, SubscriberPosition>();
    for (const [id, value] of Object.entries(stored)) {
      const position = decodePosition(value);
      if (position) positions.set(id, position);
    }
    return positions;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new JournalCorruptError(`bus journal ${join(dir, OFFSETS)} cannot be read`, { cause: error });
    }
    return new Map();
  }
}

/** The open file journal: what is on disk, the segment appended to, and the chain of file work. */
interface FileJournal {
  readonly dir: string;
  readonly segments: Segment[];
  entries: JournalEntry[];
  offsets: Map<string, SubscriberPosition>;
  seq: number;
  /** Appends go to a fresh segment: never after a line a crash may have torn. */
  active: { handle: FileHandle; segment: Segment } | undefined;
  chain: Promise<unknown>;
  dirty: boolean;
  closed: boolean;
}

/** Runs file work one piece at a time, in call order; a failure does not stop later work. */
function serial<T>(j: FileJournal, work: () => Promise<T>): Promise<T> {
  const next = j.chain.then(work);
  j.chain = next.catch(() => {});
  return next;
}

async function roll(j: FileJournal): Promise<{ handle: FileHandle; segment: Segment }> {
  await j.active?.handle.close();
  const path = join(j.dir, `${String(j.seq + 1).padStart(12, '0')}.jsonl`);
  const handle = await open(path, 'a');
  await syncDir(j.dir);
  const segment: Segment = { path, firstSeq: j.seq + 1, lastSeq: j.seq, bytes: 0 };
  j.segments.push(segment);
  j.active = { handle, segment };
  return j.active;
}

async function compact(j: FileJournal): Promise<void> {
  // No subscriber: nobody will read what is there.
  const low = lowWater(j.offsets, j.seq);
  j.entries = j.entries.filter((e) => e.seq > low);
  for (const segment of [...j.segments]) {
    if (segment === j.active?.segment || segment.lastSeq > low) continue;
    await rm(segment.path, { force: true });
    j.segments.splice(j.segments.indexOf(segment), 1);
  }
}

async function writeOffsets(j: FileJournal): Promise<void> {
  const tmp = join(j.dir, `${OFFSETS}.tmp`);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(
      JSON.stringify(Object.fromEntries([...j.offsets].map(([id, p]) => [id, encodePosition(p)]))),
    );
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, join(j.dir, OFFSETS));
  await syncDir(j.dir);
}

async function appendEntries(
  j: FileJournal,
  events: readonly EventBridgeEvent[],
  target: string | undefined,
): Promise<JournalEntry[]> {
  const { handle, segment } = j.active && j.active.segment.bytes < SEGMENT_BYTES ? j.active : await roll(j);
  const added = events.map((event, i) => ({ seq: j.seq + 1 + i, event, ...(target ? { target } : {}) }));
  const text = added.map((e) => `${JSON.stringify(e)}\n`).join('');
  await handle.appendFile(text);
  await handle.sync();
  j.seq += added.length;
  segment.lastSeq = j.seq;
  segment.bytes += Buffer.byteLength(text);
  j.entries.push(...added);
  return added;
}

function flush(j: FileJournal): Promise<void> {
  return serial(j, async () => {
    if (!j.dirty) return;
    j.dirty = false;
    await writeOffsets(j);
    await compact(j);
  });
}

/** Opens (creating) the journal in `dir`. One process at a time: the data directory's lock ensures it. */
export async function openFileJournal(dir: string): Promise<BusJournal> {
  await mkdir(dir, { recursive: true });
  const { segments, entries } = await loadSegments(dir);
  const offsets = await loadOffsets(dir);
  const seq = Math.max(0, ...segments.map((s) => s.lastSeq), ...[...offsets.values()].map((p) => p.offset));
  const j: FileJournal = {
    dir,
    segments,
    entries,
    offsets,
    seq,
    active: undefined,
    chain: Promise.resolve(),
    dirty: false,
    closed: false,
  };
  return {
    append(events, target) {
      if (j.closed) return Promise.reject(new Error('bus journal is closed'));
      return serial(j, () => appendEntries(j, events, target));
    },
    entries: () => j.entries,
    lastSeq: () => j.seq,
    offset: (subscriber) => j.offsets.get(subscriber)?.offset,
    position: (subscriber) => j.offsets.get(subscriber),
    commit(next) {
      j.offsets = positionsOf(next);
      j.dirty = true;
    },
    flush: () => flush(j),
    async close() {
      if (j.closed) return;
      await flush(j);
      j.closed = true;
      await serial(j, async () => {
        await j.active?.handle.close();
        j.active = undefined;
      });
    },
  };
}
