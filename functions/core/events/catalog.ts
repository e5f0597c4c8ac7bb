/**
 * Catalog machinery: a catalog of detail-types built from families of entries (zod schema,
 * description, example), with lookup, parsing and JSON Schema. This module knows no action and no
 * intake: each declares its own entries beside its code, and the full catalog is composed one layer
 * up (`core/event-catalog.ts`). What this layer owns itself are the events the poller and the
 * connection health publish: record changes, payment state and connection health (`sourceCatalog`).
 */
import * as z from 'zod';
import { EventValidationError } from '../errors.js';
import { type BankDetailType, bankEvents } from './bank-events.js';
import type { CatalogEntry } from './catalog-entry.js';
import { type ConnectionDetailType, connectionEvents } from './connection-events.js';
import type { RecordDetailType } from './envelope.js';
import { type PaymentDetailType, paymentEvents } from './payment-events.js';
import { recordEvents } from './record-events.js';

type Issue = z.core.$ZodIssue;

/** `field: message` lines; for a union, the issues of the closest alternative. */
function describeIssues(issues: readonly Issue[], prefix: PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      return describeIssues(closest, path);
    }
    return [`${path.map(String).join('.') || '(detail)'}: ${issue.message}`];
  });
}

/** Parses a detail with one entry's schema; `EventValidationError` names every field at fault. */
export function parseWithEntry<S extends z.ZodType>(
  entry: CatalogEntry<string, S>,
  detail: unknown,
): z.output<S> {
  const result = entry.schema.safeParse(detail);
  if (!result.success) {
    throw new EventValidationError(entry.detailType, describeIssues(result.error.issues), {
      cause: result.error,
    });
  }
  return result.data;
}

/** JSON Schema (draft 2020-12) of every entry, keyed by detail-type. */
export function toJsonSchemas(catalog: readonly CatalogEntry[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of catalog) {
    const schema = z.toJSONSchema(entry.schema, { target: 'draft-2020-12', io: 'input' }) as Record<
      string,
      unknown
    >;
    out[entry.detailType] = {
      ...schema,
      $id: `urn:accounting-events:${entry.detailType}`,
      title: entry.detailType,
      description: entry.description,
      examples: [entry.example],
    };
  }
  return out;
}

/** A catalog over some families of entries: lookup by detail-type, parsing, the detail-type schema. */
export interface Catalog<D extends string> {
  readonly entries: readonly CatalogEntry<D>[];
  /** Every detail-type, in catalog order. */
  readonly detailTypes: readonly D[];
  /** A detail-type given as input (a CLI flag, a replayed line, a registry entry): one of the catalog's. */
  readonly detailTypeSchema: z.ZodType<D>;
  isDetailType(value: string): value is D;
  /** The entry of a detail-type given as text (an incoming event); `undefined` when the catalog has none. */
  find(detailType: string): CatalogEntry<D> | undefined;
  /** The entry of a detail-type of the catalog. */
  entry(detailType: D): CatalogEntry<D>;
  /** Parses a detail with the schema of its detail-type. */
  parseDetail(detailType: string, detail: unknown): unknown;
}

/** Thrown when two families declare the same detail-type. */
export class CatalogConflictError extends Error {
  override readonly name = 'CatalogConflictError';
  constructor(readonly detailType: string) {
    super(`the detail-type '${detailType}' is declared twice in the event catalog`);
  }
}

/** Builds a catalog; every detail-type must be declared once. */
export function createCatalog<D extends string>(entries: readonly CatalogEntry<D>[]): Catalog<D> {
  const byDetailType = new Map<string, CatalogEntry<D>>();
  for (const entry of entries) {
    if (byDetailType.has(entry.detailType)) throw new CatalogConflictError(entry.detailType);
    byDetailType.set(entry.detailType, entry);
  }
  const detailTypes = entries.map((e) => e.detailType);
  return {
    entries,
    detailTypes,
    detailTypeSchema: z.enum(detailTypes as [D, ...D[]], {
      error: (issue) =>
        `expected a detail-type of the event catalog${typeof issue.input === 'string' ? `, got "${issue.input}"` : ''}`,
    }) as unknown as z.ZodType<D>,
    isDetailType: (value: string): value is D => byDetailType.has(value),
    find: (detailType) => byDetailType.get(detailType),
    entry(detailType) {
      const entry = byDetailType.get(detailType);
      if (!entry) throw new Error(`no catalog entry for '${detailType}'`);
      return entry;
    },
    parseDetail(detailType, detail) {
      const entry = byDetailType.get(detailType);
      if (!entry) throw new EventValidationError(detailType, ['unknown detail-type']);
      return parseWithEntry(entry, detail);
    },
  };
}

/** The detail-types this layer owns: what the poller and the connection health publish. */
export type SourceDetailType = RecordDetailType | PaymentDetailType | ConnectionDetailType | BankDetailType;

/**
 * The events the poller and the connection health publish, which actions react to. An action's
 * incoming event is parsed with this catalog, so an action needs no other action's schemas.
 */
export const sourceCatalog: Catalog<SourceDetailType> = createCatalog<SourceDetailType>([
  ...recordEvents,
  ...paymentEvents,
  ...connectionEvents,
  ...bankEvents,
]);
