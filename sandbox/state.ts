/**
 * The sandbox's state: one sorted index per collection (ordered by `Id`), records generated on
 * demand from the seed until they change, versions that become visible after a configurable
 * commit delay, and the ground truth of every version ever made visible.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { collectionsFor, findCollection, type ServiceVariant } from '../functions/accounting/collections.js';
import { type CollectionState, type Entry, seededCollection, settle } from './collection-state.js';
import { documentTypes, iso } from './documents.js';
import {
  type GeneratorContext,
  generateDocument,
  generatePartner,
  type Precision,
  SANDBOX_USER_ID,
  truncate,
} from './generator.js';
import {
  type ChangeKind,
  GROUND_TRUTH_COPIES,
  type GroundTruthFilter,
  type GroundTruthVersion,
  hashRecord,
  type LoggedVersion,
  loggedVersions,
  seededVersion,
} from './ground-truth.js';
import type { SandboxClock } from './options.js';
import { Rng } from './random.js';
import { generateReferenceData, isGeneralInfoList, type ReferenceData } from './reference-data.js';

export interface ListQuery {
  pageSize: number;
  pageNumber: number;
  after?: string;
  /** Inclusive lower bound on ModifiedDate (ms). Ignored for collections without ModificationInfo. */
  modifiedSince?: number;
  /** Only records this accepts count and are paged (applied to the visible version). */
  filter?: (record: ApiRecord) => boolean;
}

export interface ListResult {
  items: ApiRecord[];
  total: number;
}

export interface StateSettings {
  /** The national variant served: which collections exist. */
  variant: ServiceVariant;
  seed: number;
  documents: number;
  partners: number;
  perCollection: Record<string, number>;
  precision: Precision;
  anchorMs: number;
  clockSkewMs: number;
  lateVisibilityMs: number;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Counts of seeded documents per collection for a total, spread by weight. */
export function spreadDocuments(
  total: number,
  perCollection: Record<string, number>,
  variant: ServiceVariant = 'sk',
): Map<string, number> {
  const docs = collectionsFor(variant)
    .filter((c) => c.kind === 'document')
    .map((c) => c.name);
  const free = docs.filter((d) => perCollection[d] === undefined);
  const weightSum = free.reduce((s, d) => s + (documentTypes[d]?.weight ?? 1), 0);
  const out = new Map<string, number>();
  let assigned = 0;
  for (const d of free) {
    const n = Math.floor((total * (documentTypes[d]?.weight ?? 1)) / weightSum);
    out.set(d, n);
    assigned += n;
  }
  // Remainder to the heaviest collections, one each.
  const byWeight = [...free].sort(
    (a, b) => (documentTypes[b]?.weight ?? 0) - (documentTypes[a]?.weight ?? 0),
  );
  for (let i = 0; assigned < total && byWeight.length > 0; i++) {
    const d = byWeight[i % byWeight.length] as string;
    out.set(d, (out.get(d) ?? 0) + 1);
    assigned++;
  }
  for (const d of docs) if (perCollection[d] !== undefined) out.set(d, perCollection[d] ?? 0);
  return out;
}

export class SandboxState {
  readonly collections = new Map<string, CollectionState>();
  refs!: ReferenceData;
  private ctx!: GeneratorContext;
  private log: LoggedVersion[] = [];
  private removedSeeded = new Map<string, Entry[]>();
  private rng!: Rng;
  settings: StateSettings;

  constructor(
    settings: StateSettings,
    private readonly clock: SandboxClock,
  ) {
    this.settings = { ...settings };
    this.reseed(settings);
  }

  /** Throws away every change and rebuilds the seeded company. */
  reseed(settings: Partial<StateSettings> = {}): void {
    this.settings = { ...this.settings, ...settings };
    const s = this.settings;
    this.refs = generateReferenceData(s.seed, s.anchorMs, s.variant);
    const counts = spreadDocuments(s.documents, s.perCollection, s.variant);
    this.ctx = {
      seed: s.seed,
      anchorMs: s.anchorMs,
      precision: s.precision,
      partnerCount: s.partners,
      refs: this.refs,
      invoiceCount: counts.get('IssuedInvoices') ?? 0,
    };
    this.rng = new Rng(s.seed ^ 0x5eed);
    this.log = [];
    this.removedSeeded = new Map();
    this.collections.clear();
    for (const spec of collectionsFor(s.variant)) {
      const count = spec.kind === 'addressBook' ? s.partners : (counts.get(spec.name) ?? 0);
      this.collections.set(spec.name, seededCollection(spec, this.ctx, this.refs, count));
    }
  }

  collection(name: string): CollectionState {
    const spec = findCollection(name, this.settings.variant);
    const cs = spec && this.collections.get(spec.name);
    if (!cs) throw new Error(`unknown collection '${name}'`);
    return cs;
  }

  nowMs(): number {
    return this.clock.now().getTime();
  }

  /** The timestamp the server writes into ModifiedDate now (clock skew and precision applied). */
  stamp(): number {
    return truncate(this.nowMs() + this.settings.clockSkewMs, this.settings.precision);
  }

  random(): Rng {
    return this.rng;
  }

  private generated(cs: CollectionState, entry: Entry): ApiRecord {
    return cs.spec.kind === 'addressBook'
      ? generatePartner(this.ctx, entry.seedIndex)
      : generateDocument(this.ctx, cs.spec.name, entry.seedIndex);
  }

  private visible(cs: CollectionState, entry: Entry): ApiRecord {
    return entry.record ?? this.generated(cs, entry);
  }

  /** The latest committed version (what business rules act on), visible or not. */
  private latest(cs: CollectionState, entry: Entry): ApiRecord {
    const last = entry.pending?.[entry.pending.length - 1];
    return last ? last.record : this.visible(cs, entry);
  }

  list(name: string, query: ListQuery): ListResult {
    const cs = this.collection(name);
    const now = this.nowMs();
    const entries = cs.entries;
    const useSince = query.modifiedSince !== undefined && cs.spec.modificationInfo;
    const since = query.modifiedSince ?? 0;
    let skip = (query.pageNumber - 1) * query.pageSize;
    const page: Entry[] = [];
    let total = 0;
    const start = query.after !== undefined ? cs.upperBound(query.after.toLowerCase()) : 0;
    for (let i = start; i < entries.length; i++) {
      const e = entries[i] as Entry;
      if (e.pending !== undefined) settle(e, now);
      const m = e.modified;
      if (Number.isNaN(m)) continue; // not visible yet
      if (useSince && m < since) continue;
      if (query.filter && !query.filter(this.visible(cs, e))) continue;
      total++;
      if (skip > 0) {
        skip--;
        continue;
      }
      if (page.length < query.pageSize) page.push(e);
    }
    return { items: page.map((e) => this.visible(cs, e)), total };
  }

  /** The visible version of a record, or undefined. */
  get(name: string, id: string): ApiRecord | undefined {
    const cs = this.collection(name);
    const e = cs.find(id.toLowerCase());
    if (!e) return undefined;
    settle(e, this.nowMs());
    if (Number.isNaN(e.modified)) return undefined;
    return this.visible(cs, e);
  }

  /** Every visible record of a collection now (read only). */
  allVisible(name: string): ApiRecord[] {
    const cs = this.collection(name);
    const now = this.nowMs();
    const out: ApiRecord[] = [];
    for (const e of cs.entries) {
      if (e.pending !== undefined) settle(e, now);
      if (!Number.isNaN(e.modified)) out.push(this.visible(cs, e));
    }
    return out;
  }

  /** The latest committed version (visible or not) — a copy the caller may change. */
  getLatest(name: string, id: string): ApiRecord | undefined {
    const cs = this.collection(name);
    const e = cs.find(id.toLowerCase());
    return e ? clone(this.latest(cs, e)) : undefined;
  }

  /** Clock time the record was created through the API (0 for seeded records). */
  createdAt(name: string, id: string): number | undefined {
    return this.collection(name).find(id.toLowerCase())?.createdAt;
  }

  nextDocumentNumberSequence(name: string): number {
    const cs = this.collection(name);
    return cs.nextSequence++;
  }

  /** Random existing ids of a collection (for the activity generator and edits while paging). */
  sampleIds(name: string, count: number): string[] {
    const entries = this.collection(name).entries;
    const out: string[] = [];
    for (let i = 0; i < count && entries.length > 0; i++) {
      out.push((entries[this.rng.int(0, entries.length - 1)] as Entry).id);
    }
    return out;
  }

  private commit(cs: CollectionState, entry: Entry, record: ApiRecord, change: ChangeKind): ApiRecord {
    const now = this.nowMs();
    const modified = this.stamp();
    const info = (record.ModificationInfo ?? {}) as Record<string, unknown>;
    if (isGeneralInfoList(cs.spec.name)) {
      record.ModificationInfo = { ModifiedDate: iso(modified) } as ApiRecord['ModificationInfo'];
    } else if (cs.spec.modificationInfo || cs.spec.kind === 'reference') {
      record.ModificationInfo = {
        CreatedDate: change === 'created' ? iso(modified) : String(info.CreatedDate ?? iso(modified)),
        CreatedBy: String(info.CreatedBy ?? ''),
        ModifiedDate: iso(modified),
        ModifiedBy: String(info.ModifiedBy ?? info.CreatedBy ?? ''),
      };
      if (!record.ModificationInfo.CreatedBy) record.ModificationInfo.CreatedBy = SANDBOX_USER_ID;
      record.ModificationInfo.ModifiedBy = SANDBOX_USER_ID;
    }
    const frozen = clone(record);
    // Versions of one record become visible in commit order: never before an older pending one.
    const visibleAt = Math.max(
      now + this.settings.lateVisibilityMs,
      entry.pending?.[entry.pending.length - 1]?.visibleAt ?? now,
    );
    if (visibleAt <= now) {
      entry.record = frozen;
      entry.modified = modified;
      entry.pending = undefined; // any older pending version is due already and superseded
    } else {
      entry.pending ??= [];
      entry.pending.push({ record: frozen, modified, visibleAt });
    }
    this.log.push({
      collection: cs.spec.name,
      id: entry.id,
      change,
      modified,
      visibleAt,
      hash: hashRecord(frozen),
      record: frozen,
    });
    // Bounded memory under long activity: only the newest versions keep their copies (hashes stay).
    const old = this.log[this.log.length - 1 - GROUND_TRUTH_COPIES];
    if (old) old.record = undefined;
    return clone(frozen);
  }

  /** Creates a record (its `Id` is set here); answers the stored copy. */
  create(name: string, record: Omit<ApiRecord, 'Id'> & { Id?: string }): ApiRecord {
    const cs = this.collection(name);
    let id = record.Id?.toLowerCase() ?? this.rng.guid();
    while (cs.find(id)) id = this.rng.guid();
    const { Id: _given, ...fields } = record;
    const full = { Id: id, ...fields } as ApiRecord;
    const entry: Entry = {
      id,
      seedIndex: -1,
      modified: Number.NaN,
      record: undefined,
      pending: undefined,
      createdAt: this.nowMs(),
    };
    cs.insert(entry);
    return this.commit(cs, entry, full, 'created');
  }

  /** Applies `change` to a copy of the latest version and commits it as a new version. */
  update(name: string, id: string, change: (record: ApiRecord) => void): ApiRecord | undefined {
    const cs = this.collection(name);
    const e = cs.find(id.toLowerCase());
    if (!e) return undefined;
    const next = clone(this.latest(cs, e));
    change(next);
    next.Id = e.id;
    return this.commit(cs, e, next, 'updated');
  }

  /** Deletes a record at once (deletions are not delayed). */
  remove(name: string, id: string): boolean {
    const cs = this.collection(name);
    const i = cs.lowerBound(id.toLowerCase());
    const e = cs.entries[i];
    if (!e || e.id !== id.toLowerCase()) return false;
    cs.entries.splice(i, 1);
    if (e.seedIndex >= 0) {
      const removed = this.removedSeeded.get(cs.spec.name) ?? [];
      removed.push(e);
      this.removedSeeded.set(cs.spec.name, removed);
    }
    const now = this.nowMs();
    this.log.push({
      collection: cs.spec.name,
      id: e.id,
      change: 'deleted',
      modified: this.stamp(),
      visibleAt: now,
      hash: '',
      record: undefined,
    });
    return true;
  }

  /**
   * Every version ever made visible (up to now), optionally with copies: seeded versions first
   * (unless `includeSeed` is false), then changes in commit order.
   */
  groundTruth(filter: GroundTruthFilter = {}): GroundTruthVersion[] {
    const wanted = filter.collection
      ? findCollection(filter.collection, this.settings.variant)?.name
      : undefined;
    if (filter.collection && !wanted) return [];
    const id = filter.id?.toLowerCase();
    const out: GroundTruthVersion[] = [];
    if (filter.includeSeed !== false) {
      for (const cs of this.collections.values()) {
        if (cs.spec.kind === 'reference' || (wanted && cs.spec.name !== wanted)) continue;
        for (const entry of [...cs.entries, ...(this.removedSeeded.get(cs.spec.name) ?? [])]) {
          if (entry.seedIndex < 0 || (id && entry.id !== id)) continue;
          out.push(seededVersion(cs.spec.name, entry.id, this.generated(cs, entry), filter.copies === true));
        }
      }
    }
    out.push(...loggedVersions(this.log, this.nowMs(), wanted, id, filter.copies === true));
    return out;
  }

  /** Number of records (visible or not) per collection. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, cs] of this.collections) out[name] = cs.entries.length;
    return out;
  }
}
