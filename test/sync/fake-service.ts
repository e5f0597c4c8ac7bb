/**
 * An in-memory accounting service for tests of the change detector. It implements the
 * `listPages` part of `AccountingApi` over one collection with the behaviours pollers trip on:
 * ModifiedSince inclusive, keyset order by Id, a service clock of its own (skew), dates at
 * second precision, late visibility (a version visible only some time after its ModifiedDate),
 * and hooks to edit records between pages.
 */
import type { AccountingApi, ApiRecord, ListOptions, Page } from '#functions/accounting/api.js';
import type { CollectionName } from '#functions/accounting/collections.js';
import { answeringRaw } from '../fakes/raw-answers.js';

interface Stored {
  record: ApiRecord;
  visibleAtMs: number;
}

export interface FakeServiceOptions {
  /** Service clock start (ms). */
  startMs?: number;
  /** Truncate ModifiedDate/CreatedDate to whole seconds (the service's precision). */
  secondPrecision?: boolean;
  /** Largest page the server serves. */
  maxPageSize?: number;
  /** Send the service's clock with each page, in whole seconds, as an HTTP `Date` header does. */
  dateHeader?: boolean;
}

export class FakeService {
  /** The service's clock, independent of the poller's. */
  nowMs: number;
  readonly records = new Map<string, Stored>();
  requests = 0;
  /** Called before each page is served: (collection, page index within this iteration). */
  onPage?: (collection: string, index: number) => void;
  /** Throws for a collection, e.g. a 403. */
  failures = new Map<string, () => Error>();
  private seq = 0;

  constructor(private readonly options: FakeServiceOptions = {}) {
    this.nowMs = options.startMs ?? Date.parse('2026-05-01T08:00:00Z');
  }

  private stamp(ms: number): string {
    const t = this.options.secondPrecision ? Math.floor(ms / 1000) * 1000 : ms;
    return new Date(t).toISOString();
  }

  /** Creates a record; `id` sorts by creation order unless given. `lagMs` delays visibility. */
  create(opts: { id?: string; lagMs?: number; fields?: Record<string, unknown> } = {}): string {
    // Sortable GUIDs (the service's id shape) in creation order.
    const id = opts.id ?? `00000000-0000-4000-8000-${String(++this.seq).padStart(12, '0')}`;
    const date = this.stamp(this.nowMs);
    this.records.set(id, {
      record: {
        Id: id,
        Version: 1,
        ...opts.fields,
        ModificationInfo: { CreatedDate: date, ModifiedDate: date },
      },
      visibleAtMs: this.nowMs + (opts.lagMs ?? 0),
    });
    return id;
  }

  edit(id: string, opts: { lagMs?: number; fields?: Record<string, unknown> } = {}): void {
    const stored = this.records.get(id);
    if (!stored) throw new Error(`no record ${id}`);
    const info = stored.record.ModificationInfo!;
    this.records.set(id, {
      record: {
        ...stored.record,
        ...opts.fields,
        Version: (stored.record.Version as number) + 1,
        ModificationInfo: { ...info, ModifiedDate: this.stamp(this.nowMs) },
      },
      visibleAtMs: this.nowMs + (opts.lagMs ?? 0),
    });
  }

  delete(id: string): void {
    this.records.delete(id);
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }

  /** The current (latest) version of every record: what must have been published. */
  latest(): Array<{ id: string; modifiedDate: string }> {
    return [...this.records.values()].map((s) => ({
      id: s.record.Id,
      modifiedDate: s.record.ModificationInfo!.ModifiedDate,
    }));
  }

  private visible(since: number | undefined): ApiRecord[] {
    return [...this.records.values()]
      .filter((s) => s.visibleAtMs <= this.nowMs)
      .map((s) => s.record)
      .filter((r) => since === undefined || Date.parse(r.ModificationInfo!.ModifiedDate) >= since)
      .sort((a, b) => (a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0));
  }

  async *listPages<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options: ListOptions = {},
  ): AsyncIterable<Page<T>> {
    const pageSize = Math.min(options.pageSize ?? 100, this.options.maxPageSize ?? 1000);
    const since = options.modifiedSince === undefined ? undefined : Date.parse(options.modifiedSince);
    let after = options.after;
    let pageNumber = options.pageNumber;
    for (let index = 0; ; index++) {
      this.onPage?.(collection, index);
      this.requests++;
      const failure = this.failures.get(collection);
      if (failure) throw failure();
      const all = this.visible(since);
      let items: ApiRecord[];
      if (pageNumber !== undefined) {
        items = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
      } else {
        const start = after === undefined ? 0 : all.findIndex((r) => r.Id > after!);
        items = start < 0 ? [] : all.slice(start, start + pageSize);
      }
      const last =
        items.length < pageSize ||
        (pageNumber !== undefined
          ? pageNumber * pageSize >= all.length
          : items.at(-1)?.Id === all.at(-1)?.Id);
      const page: Page<T> = {
        items: items.map((r) => structuredClone(r)) as T[],
        totalItemCount: all.length,
        pageSize,
        ...(pageNumber !== undefined ? { pageNumber, nextPageNumber: pageNumber + 1 } : {}),
        ...(items.length > 0 ? { lastId: items.at(-1)!.Id } : {}),
        ...(this.options.dateHeader
          ? { serverTime: new Date(Math.floor(this.nowMs / 1000) * 1000).toISOString() }
          : {}),
        last,
      };
      yield page;
      if (last) return;
      if (pageNumber !== undefined) pageNumber++;
      else after = page.lastId;
    }
  }

  /** An `AccountingApi` whose only working method is `listPages`. */
  api(): AccountingApi {
    const unsupported = async () => {
      throw new Error('not supported by the fake service');
    };
    return {
      ...answeringRaw(unsupported),
      listPages: (c, o) => this.listPages(c, o),
      listItems: () => {
        throw new Error('not supported by the fake service');
      },
      get: unsupported,
      pdf: unsupported,
      isdoc: unsupported,
      importDocument: unsupported,
      create: unsupported,
    } as AccountingApi;
  }
}
