/**
 * Where a subscriber of the local bus stands in the journal. `offset` is the low-water mark: every
 * seq up to it is handled, and compaction may drop it. Above it, a subscriber may have handled
 * later events while an earlier one still waits (a retry, a record left in progress by a killed
 * run); `known` and `unhandled` say which: of the seqs in `(offset, known]`, exactly those listed in
 * `unhandled` still wait, and everything after `known` is new. So a restart delivers again only what
 * was not handled — one stuck event does not bring back everything published after it.
 */

export interface SubscriberPosition {
  offset: number;
  /** The newest seq the subscriber had been handed when the position was taken. */
  known?: number;
  /** Seqs in `(offset, known]` not handled yet, ascending. */
  unhandled?: number[];
}

/** Whether the entry `seq` still needs delivering to a subscriber at `position`. */
export function isUnhandled(
  position: SubscriberPosition,
  seq: number,
  unhandled: ReadonlySet<number>,
): boolean {
  if (seq <= position.offset) return false;
  if (position.known === undefined || seq > position.known) return true;
  return unhandled.has(seq);
}

/** A position as stored: the bare offset when nothing above it is known, else ranges of unhandled seqs. */
export function encodePosition(
  position: SubscriberPosition,
): number | { offset: number; known: number; unhandled: [number, number][] } {
  if (position.known === undefined || position.known <= position.offset) return position.offset;
  const ranges: [number, number][] = [];
  for (const seq of position.unhandled ?? []) {
    const last = ranges.at(-1);
    if (last && seq === last[1] + 1) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return { offset: position.offset, known: position.known, unhandled: ranges };
}

/** Reads a stored position (a bare offset, or the object `encodePosition` writes); `undefined` if malformed. */
export function decodePosition(value: unknown): SubscriberPosition | undefined {
  if (Number.isInteger(value)) return { offset: value as number };
  const v = value as { offset?: unknown; known?: unknown; unhandled?: unknown } | null;
  if (!v || !Number.isInteger(v.offset) || !Number.isInteger(v.known) || !Array.isArray(v.unhandled))
    return undefined;
  const unhandled: number[] = [];
  for (const range of v.unhandled as unknown[]) {
    if (!Array.isArray(range) || !Number.isInteger(range[0]) || !Number.isInteger(range[1])) return undefined;
    for (let seq = range[0] as number; seq <= (range[1] as number); seq += 1) unhandled.push(seq);
  }
  return { offset: v.offset as number, known: v.known as number, unhandled };
}
