/**
 * What the rest of the product uses of the accounting client. `createAccountingClient`
 * (client.ts) implements it; tests of core may pass a fake with the same shape.
 */
import type { Readable } from 'node:stream';
import type { CollectionName } from './collections.js';

export interface ModificationInfo {
  /** Absent on general reference lists of the real service (`ModifiedDate` only). */
  CreatedDate?: string | null;
  CreatedBy?: string;
  ModifiedDate: string;
  ModifiedBy?: string;
}

/** A record as the service returns it: the fields we rely on are typed, every other field passes through. */
export interface ApiRecord {
  Id: string;
  ModificationInfo?: ModificationInfo;
  [field: string]: unknown;
}

export interface ListOptions {
  /** ISO date-time; inclusive lower bound on `ModificationInfo.ModifiedDate`. */
  modifiedSince?: string;
  /** Keyset cursor: start after this `Id` (collections with `acceptsAfter` only). */
  after?: string;
  /** Page-number mode: first page to read (default 1). */
  pageNumber?: number;
  /** Requested page size (default from config). The server may cap it; paging stays correct. */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface Page<T = ApiRecord> {
  items: T[];
  totalItemCount: number;
  /** The page number this page was read with (page-number mode), else undefined. */
  pageNumber?: number;
  /** The page size the server applied (may be below what was asked). */
  pageSize: number;
  /** Cursor to resume after this page: the last item's `Id` (keyset mode) — `undefined` when empty. */
  lastId?: string;
  /** Page-number mode: the page number to resume with after this page. */
  nextPageNumber?: number;
  /** `true` when this is the last page. */
  last: boolean;
  /**
   * The service's clock when it answered (its `Date` header, whole seconds), ISO; absent when the
   * response had none. The poller bounds a window with it.
   */
  serverTime?: string;
}

export interface CallInput {
  /** Path parameters (`{id}`, `{collection}`, `{sendingId}`). */
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface Warning {
  Code: string;
  Message: string;
}

/** `EntityCreatedResponseDtoOf<X>`: create and transfer results. */
export interface Created<T = ApiRecord> {
  data: T | null;
  warnings: Warning[];
}

export interface Download {
  body: Readable;
  contentType: string;
  contentLength?: number;
}

/** ISDOC export answered `204 No Content`: the document is not ready yet. */
export interface NotReady {
  notReady: true;
}

export interface AccountingApi {
  /** Pages of a collection, lazily (one request per page, none before iteration). */
  listPages<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options?: ListOptions,
  ): AsyncIterable<Page<T>>;
  /** Items of a collection across pages. */
  listItems<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options?: ListOptions,
  ): AsyncIterable<T>;
  get<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    id: string,
    signal?: AbortSignal,
  ): Promise<T>;
  /** Create (`<Collection>.create`, `BusinessPartners.create`, bank documents) or transfer: never blindly retried. */
  create<T extends ApiRecord = ApiRecord>(operationId: string, input?: CallInput): Promise<Created<T>>;
  /** Any operation of the catalog by id; parses a JSON body when there is one. */
  call<T = unknown>(operationId: string, input?: CallInput): Promise<T>;
  /** Streams a binary export (PDF, ISDOC); `NotReady` on 204. */
  download(operationId: string, input?: CallInput): Promise<Download | NotReady>;
}

export function isNotReady(result: Download | NotReady): result is NotReady {
  return 'notReady' in result;
}
