/**
 * Paging over a list operation, as async iterators of pages and of items.
 *
 * - Keyset mode (collections with `acceptsAfter`): `After` = the last `Id` of the previous page,
 *   `PageNumber` stays 1. Ends on an empty page, or on a page shorter than the page size the
 *   server reports it applied (`Pagination.PageSize`). When the server reports nothing and a page
 *   comes back short, the next page is still read: a silent cap must not end the walk early. A page
 *   with at least `TotalItemCount` items is the last one (no closing request for an empty page).
 * - Page-number mode (e.g. `Banks`): `PageNumber` 1, 2, … with the same `PageSize` each time (a
 *   server that caps the size caps it the same way on every page, so page offsets stay consistent).
 *   Ends on an empty page, a page shorter than the applied size, or when `TotalItemCount` is reached.
 * `PageSize`, `PageNumber` and `ModifiedSince` are checked before anything is sent.
 */

import type { ApiRecord, ListOptions, Page } from './api.js';
import type { CollectionSpec } from './collections.js';
import { InvalidArgumentError, PaginationError } from './errors.js';

export interface RawPage<T> {
  items: T[];
  totalItemCount: number | undefined;
  /** `Pagination.PageSize` when the server sent one. */
  appliedPageSize: number | undefined;
  /** The service's clock when it answered (its `Date` header), ISO; absent when it sent none. */
  serverTime?: string;
}

export type PageFetcher<T> = (
  query: Record<string, string | number | undefined>,
  signal?: AbortSignal,
) => Promise<RawPage<T>>;

const INT32_MAX = 2_147_483_647;

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0 || value > INT32_MAX) {
    throw new InvalidArgumentError(name, 'an integer greater than 0 (int32)');
  }
  return value;
}

export function validateListOptions(
  spec: CollectionSpec,
  options: ListOptions,
  defaultPageSize: number,
): { pageSize: number; pageNumber: number; keyset: boolean } {
  const pageSize = positiveInt('PageSize', options.pageSize ?? defaultPageSize);
  const pageNumber = positiveInt('PageNumber', options.pageNumber ?? 1);
  if (options.modifiedSince !== undefined && Number.isNaN(Date.parse(options.modifiedSince))) {
    throw new InvalidArgumentError('ModifiedSince', 'an ISO 8601 date-time');
  }
  if (options.after !== undefined) {
    if (!spec.acceptsAfter) throw new InvalidArgumentError('After', `not accepted by ${spec.name}`);
    if (options.after === '') throw new InvalidArgumentError('After', 'a non-empty record id');
  }
  if (spec.acceptsAfter && options.pageNumber !== undefined && options.pageNumber !== 1) {
    throw new InvalidArgumentError('PageNumber', `1 (${spec.name} pages by After)`);
  }
  return { pageSize, pageNumber, keyset: spec.acceptsAfter };
}

export async function* paginate<T extends ApiRecord>(
  spec: CollectionSpec,
  options: ListOptions,
  defaultPageSize: number,
  fetchPage: PageFetcher<T>,
): AsyncGenerator<Page<T>> {
  const { pageSize, pageNumber: firstPage, keyset } = validateListOptions(spec, options, defaultPageSize);
  let after = options.after;
  let pageNumber = firstPage;
  let seen = 0;

  for (;;) {
    const query: Record<string, string | number | undefined> = {
      PageSize: pageSize,
      PageNumber: keyset ? 1 : pageNumber,
      After: keyset ? after : undefined,
      ModifiedSince: options.modifiedSince,
    };
    const raw = await fetchPage(query, options.signal);
    const count = raw.items.length;
    seen += count;
    const applied = raw.appliedPageSize && raw.appliedPageSize > 0 ? raw.appliedPageSize : undefined;
    const lastId = count > 0 ? raw.items[count - 1]?.Id : undefined;

    // TotalItemCount counts every match of the filter. In page-number mode reaching it ends the walk.
    // In keyset mode it counts either the matches after `After` or all matches; either way a page
    // holding at least that many items holds everything left, so no closing request is needed.
    const totalReached =
      raw.totalItemCount !== undefined &&
      (keyset ? count >= raw.totalItemCount : firstPage === 1 && seen >= raw.totalItemCount);
    // A page shorter than the size the server says it applied is the last one; without that size a
    // short page may be a silent cap, so only an empty page or TotalItemCount ends the walk.
    const last = count === 0 || (applied !== undefined && count < applied) || totalReached;

    if (keyset && !last && lastId !== undefined && lastId === after) {
      throw new PaginationError(spec.name, `the server did not advance past After='${after}'`);
    }

    const page: Page<T> = {
      items: raw.items,
      totalItemCount: raw.totalItemCount ?? seen,
      pageSize: applied ?? (count < pageSize && count > 0 ? count : pageSize),
      last,
      ...(raw.serverTime !== undefined ? { serverTime: raw.serverTime } : {}),
      ...(keyset ? {} : { pageNumber, nextPageNumber: pageNumber + 1 }),
      ...(lastId !== undefined ? { lastId } : after !== undefined ? { lastId: after } : {}),
    };
    yield page;
    if (last) return;
    if (keyset) after = lastId;
    else pageNumber += 1;
  }
}

export async function* items<T extends ApiRecord>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.items;
}
