/**
 * What the rest of the product uses of the accounting client: a typed method for every operation
 * of the endpoint catalog, each answering a parsed, typed value. `createAccountingClient`
 * (client.ts) implements it; tests of core may pass a fake with the same shape.
 */
import type { ApiRecord, CallInput, Created, Download, NotReady } from './call-results.js';
import type { CollectionName } from './collections.js';
import type { OperationMethods } from './operation-methods.js';
import type { RequestBodyOf } from './request-bodies.js';

export type {
  ApiRecord,
  CallInput,
  Created,
  Download,
  ModificationInfo,
  NotReady,
  Warning,
} from './call-results.js';

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

/** A document's file export: which document, and for a PDF its language. */
export interface FileInput {
  readonly collection: CollectionName;
  readonly id: string;
  readonly signal?: AbortSignal;
}

/**
 * The typed methods of the per-collection operations (`<Collection>.list|get|pdf|isdoc|create`);
 * those of every other operation (`OperationMethods`) follow from the endpoint catalog.
 */
export interface CollectionMethods {
  /** `<Collection>.list`: pages of a collection, lazily (one request per page, none before iteration). */
  listPages<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options?: ListOptions,
  ): AsyncIterable<Page<T>>;
  /** `<Collection>.list`: items of a collection across pages. */
  listItems<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options?: ListOptions,
  ): AsyncIterable<T>;
  /** `<Collection>.get`: one record by id. */
  get<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    id: string,
    signal?: AbortSignal,
  ): Promise<T>;
  /** `<Collection>.pdf`: the document as PDF, streamed (`Language` `Current` unless told). */
  pdf(input: FileInput & { readonly language?: 'Current' | 'English' }): Promise<Download | NotReady>;
  /** `<Collection>.isdoc`: the document as ISDOC, streamed; `NotReady` on 204. */
  isdoc(input: FileInput): Promise<Download | NotReady>;
  /** `<Collection>.create`: imports one document; never blindly retried. */
  importDocument<C extends CollectionName>(input: {
    readonly collection: C;
    readonly body: RequestBodyOf<`${C}.create`>;
    readonly signal?: AbortSignal;
  }): Promise<Created>;
}

/** What the rest of the product uses of the client: a typed method for every operation of the catalog. */
export interface AccountingApi extends CollectionMethods, OperationMethods {
  /** Create or transfer by catalog id (`create`/`transfer` operations): never blindly retried. */
  create<T extends ApiRecord = ApiRecord>(operationId: string, input?: CallInput): Promise<Created<T>>;
}

export function isNotReady(result: Download | NotReady): result is NotReady {
  return 'notReady' in result;
}
