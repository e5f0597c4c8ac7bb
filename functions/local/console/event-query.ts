/**
 * The console's event filters (query parameters, checked with zod): detail-type pattern as in
 * `--deliver-to` (`IssuedInvoice.*|ReceivedOrder.Created`), connection, document number, and a
 * time window; and an event's fields with their descriptions from its catalog schema.
 */
import * as z from 'zod';
import { detailTypePattern } from '#functions/core/delivery/delivery-targets.js';
import { findCatalogEntry, toJsonSchemas } from '#functions/core/event-catalog.js';
import { matchesLeaf, type PatternValue } from '#functions/core/event-pattern.js';
import type { FeedEvent } from './console-feed.js';

const iso = z.iso.datetime({ offset: true, error: 'expected an ISO date-time, e.g. 2026-01-31T12:00:00Z' });

export const eventFilterSchema = z.object({
  type: z
    .string()
    .trim()
    .optional()
    .transform((text, ctx): PatternValue[] | undefined => {
      if (!text) return undefined;
      try {
        return detailTypePattern(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  connection: z.string().trim().optional(),
  doc: z.string().trim().optional(),
  since: iso.optional(),
  until: iso.optional(),
  limit: z.coerce.number({ error: 'expected a number 1-2000' }).int().min(1).max(2_000).default(100),
});

export type EventFilter = z.infer<typeof eventFilterSchema>;

/** The filter from URL query parameters; throws the zod error naming each bad parameter. */
export function parseEventFilter(params: URLSearchParams | Record<string, unknown>): EventFilter {
  const input = params instanceof URLSearchParams ? Object.fromEntries(params) : params;
  return eventFilterSchema.parse(input);
}

export function matchesFilter(filter: EventFilter, item: FeedEvent): boolean {
  const { event } = item;
  if (filter.type && !matchesLeaf(filter.type, event['detail-type'])) return false;
  if (filter.connection && item.connection !== filter.connection) return false;
  if (filter.doc && !(item.documentNumber ?? '').includes(filter.doc)) return false;
  const at = Date.parse(event.time);
  if (filter.since && at < Date.parse(filter.since)) return false;
  if (filter.until && at > Date.parse(filter.until)) return false;
  return true;
}

/** The newest matching events first, at most `limit`. */
export function selectEvents(items: readonly FeedEvent[], filter: EventFilter): FeedEvent[] {
  const out: FeedEvent[] = [];
  for (let i = items.length - 1; i >= 0 && out.length < filter.limit; i -= 1) {
    const item = items[i] as FeedEvent;
    if (matchesFilter(filter, item)) out.push(item);
  }
  return out;
}

export interface FieldDoc {
  path: string;
  type: string;
  description: string;
}

const fieldCache = new Map<string, FieldDoc[]>();

/** The alternatives of a schema (`anyOf`/`oneOf`), e.g. an inline record or its claim-check reference. */
function variantsOf(schema: Record<string, unknown>): Record<string, unknown>[] {
  return ((schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined) ?? [];
}

/**
 * The fields under `schema` at `path`: its properties, or, for a schema of alternatives (record
 * events: `anyOf` at the top), the fields of each alternative, each path once (the first's wins).
 */
function walk(schema: Record<string, unknown>, path: string, out: FieldDoc[], depth: number): void {
  if (depth > 6) return;
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!props) {
    for (const variant of variantsOf(schema)) if (variant.type === 'object') walk(variant, path, out, depth);
    return;
  }
  for (const [name, raw] of Object.entries(props)) {
    const variants = variantsOf(raw);
    const prop = variants.find((v) => v.type !== 'null') ?? raw;
    const here = path ? `${path}.${name}` : name;
    if (out.some((f) => f.path === here)) continue;
    const nullable = variants.some((v) => v.type === 'null');
    const own = Array.isArray(prop.type) ? prop.type : [prop.type];
    const type = [...own, nullable ? 'null' : undefined].filter(Boolean).join(' | ') || 'value';
    const description = String(raw.description ?? prop.description ?? '');
    out.push({ path: here, type, description });
    walk(prop, here, out, depth + 1);
    const items = prop.items as Record<string, unknown> | undefined;
    if (items) walk(items, `${here}[]`, out, depth + 1);
  }
}

/** The fields of a detail-type's detail with their types and descriptions (empty when unknown). */
export function fieldDocs(detailType: string): FieldDoc[] {
  const cached = fieldCache.get(detailType);
  if (cached) return cached;
  const entry = findCatalogEntry(detailType);
  const out: FieldDoc[] = [];
  if (entry) walk(toJsonSchemas([entry])[detailType] as Record<string, unknown>, '', out, 0);
  fieldCache.set(detailType, out);
  return out;
}
