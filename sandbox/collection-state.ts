/**
 * One collection of the sandbox: its records sorted by `Id` (binary search for keyset paging),
 * each generated from the seed until it changes, with the versions committed but not visible yet.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import type { CollectionSpec } from '../functions/accounting/collections.js';
import { type GeneratorContext, seedHead } from './generator.js';
import type { ReferenceData } from './reference-data.js';

export interface PendingVersion {
  record: ApiRecord;
  modified: number;
  visibleAt: number;
}

export interface Entry {
  id: string;
  /** Index of the seeded record, or -1 for records created after seeding. */
  seedIndex: number;
  /** ModifiedDate (ms) of the visible version; NaN while no version is visible. */
  modified: number;
  /** The visible version when it is no longer the generated one. */
  record: ApiRecord | undefined;
  /** Committed versions not visible yet (late visibility), oldest first. */
  pending: PendingVersion[] | undefined;
  /** Clock time (ms) the record was created through the API; 0 for seeded records. */
  createdAt: number;
}

export class CollectionState {
  entries: Entry[] = [];
  nextSequence = 1;

  constructor(readonly spec: CollectionSpec) {}

  /** Index of the first entry whose id is >= `id`. */
  lowerBound(id: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as Entry).id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first entry whose id is > `id`. */
  upperBound(id: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as Entry).id <= id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  find(id: string): Entry | undefined {
    const i = this.lowerBound(id);
    const e = this.entries[i];
    return e && e.id === id ? e : undefined;
  }

  insert(entry: Entry): void {
    this.entries.splice(this.lowerBound(entry.id), 0, entry);
  }
}

/** Promotes pending versions whose visibility time has come. */
export function settle(entry: Entry, now: number): void {
  const pending = entry.pending;
  if (!pending) return;
  while (pending.length > 0 && (pending[0] as PendingVersion).visibleAt <= now) {
    const v = pending.shift() as PendingVersion;
    entry.record = v.record;
    entry.modified = v.modified;
  }
  if (pending.length === 0) entry.pending = undefined;
}

/** A collection as seeded: reference lists from the reference data, others `count` generated records. */
export function seededCollection(
  spec: CollectionSpec,
  ctx: GeneratorContext,
  refs: ReferenceData,
  count: number,
): CollectionState {
  const cs = new CollectionState(spec);
  if (spec.kind === 'reference') {
    for (const record of refs.lists.get(spec.name) ?? []) {
      cs.entries.push({
        id: record.Id,
        seedIndex: -1,
        modified: refs.seededAtMs,
        record,
        pending: undefined,
        createdAt: 0,
      });
    }
  } else {
    cs.entries = new Array<Entry>(count);
    for (let i = 0; i < count; i++) {
      const head = seedHead(ctx, spec.name, i);
      cs.entries[i] = {
        id: head.id,
        seedIndex: i,
        modified: head.modified,
        record: undefined,
        pending: undefined,
        createdAt: 0,
      };
    }
    cs.nextSequence = count + 1;
  }
  cs.entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return cs;
}
