/** Query binding of the sandbox's paged lists: `PageSize`, `PageNumber`, `After`, `ModifiedSince`. */
import { ProblemError } from './http.js';
import { GUID_PATTERN } from './random.js';
import type { ListQuery } from './state.js';

const INT32 = /^[+-]?\d{1,10}$/;

/** Query parameters by lower-case name (the service's names are case-insensitive); first value wins. */
export function queryMap(url: URL): Map<string, string> {
  const map = new Map<string, string>();
  for (const [k, v] of url.searchParams) if (!map.has(k.toLowerCase())) map.set(k.toLowerCase(), v);
  return map;
}

function parseInt32(name: string, raw: string | undefined, errors400: Record<string, string[]>): number {
  if (raw === undefined || raw === '') return 0; // an absent int binds to 0, as on the real service
  const n = Number(raw);
  if (!INT32.test(raw.trim()) || n > 2147483647 || n < -2147483648) {
    errors400[name] = [`The value '${raw}' is not valid for ${name}.`];
    return 0;
  }
  return n;
}

function parseDateTime(raw: string): number {
  const hasZone = /([zZ]|[+-]\d{2}:?\d{2})$/.test(raw);
  return Date.parse(hasZone || !/T/.test(raw) ? raw : `${raw}Z`);
}

/**
 * Binds a list query: 400 when a value cannot be bound, 422 when a rule fails (page numbers and
 * sizes below 1, `After` on a list that pages by number only). `PageSize` is capped silently.
 */
export function parseListQuery(
  url: URL,
  list: { name: string; acceptsAfter: boolean },
  maxPageSize: number,
): ListQuery {
  const q = queryMap(url);
  const errors400: Record<string, string[]> = {};
  const pageSize = parseInt32('PageSize', q.get('pagesize'), errors400);
  const pageNumber = parseInt32('PageNumber', q.get('pagenumber'), errors400);
  const afterRaw = q.get('after');
  const after = afterRaw === undefined || afterRaw === '' ? undefined : afterRaw;
  if (after !== undefined && !GUID_PATTERN.test(after))
    errors400.After = [`The value '${after}' is not valid for After.`];
  const sinceRaw = q.get('modifiedsince');
  let modifiedSince: number | undefined;
  if (sinceRaw !== undefined && sinceRaw !== '') {
    modifiedSince = parseDateTime(sinceRaw);
    if (Number.isNaN(modifiedSince))
      errors400.ModifiedSince = [`The value '${sinceRaw}' is not valid for ModifiedSince.`];
  }
  if (Object.keys(errors400).length > 0) throw new ProblemError(400, errors400);
  const errors: Record<string, string[]> = {};
  if (pageNumber <= 0) errors.PageNumber = ["'PageNumber' must be greater than '0'."];
  if (pageSize <= 0) errors.PageSize = ["'PageSize' must be greater than '0'."];
  if (after !== undefined && !list.acceptsAfter) {
    errors.After = [`'After' is not supported by ${list.name}; page with 'PageNumber'.`];
  }
  if (Object.keys(errors).length > 0) throw new ProblemError(422, errors);
  return {
    pageSize: Math.min(pageSize, maxPageSize),
    pageNumber,
    ...(after !== undefined ? { after } : {}),
    ...(modifiedSince !== undefined ? { modifiedSince } : {}),
  };
}
