/**
 * The event catalog: every detail-type the product emits, with its zod schema, a description
 * and an example. Record events come from the collection table; action outcomes from the actions.
 */
import * as z from 'zod';
import { EventValidationError } from '../errors.js';
import { actionEvents, type OutcomeDetailType } from './action-events.js';
import type { CatalogEntry } from './catalog-entry.js';
import { type ConnectionDetailType, connectionEvents } from './connection-events.js';
import type { RecordDetailType } from './envelope.js';
import { type IntakeDetailType, intakeEvents } from './intake-events.js';
import { type PaymentDetailType, paymentEvents } from './payment-events.js';
import { recordEvents } from './record-events.js';

/**
 * Every detail-type the product emits, derived from the tables that state them: record events from
 * the collection table, transfer and ISDOC outcomes from the transfer steps and the ISDOC record
 * types, and the fixed names of the other actions, the intake and connection health. Code that
 * names a detail-type takes this type, so a mistyped one does not compile.
 */
export type DetailType =
  | RecordDetailType
  | PaymentDetailType
  | OutcomeDetailType
  | IntakeDetailType
  | ConnectionDetailType;

export const eventCatalog: readonly CatalogEntry<DetailType>[] = [
  ...recordEvents,
  ...paymentEvents,
  ...actionEvents,
  ...intakeEvents,
  ...connectionEvents,
];

const byDetailType = new Map<string, CatalogEntry<DetailType>>(eventCatalog.map((e) => [e.detailType, e]));

/** Every detail-type of the catalog, in catalog order. */
export const detailTypes: readonly DetailType[] = eventCatalog.map((e) => e.detailType);

export function isDetailType(value: string): value is DetailType {
  return byDetailType.has(value);
}

/** A detail-type given as input (a CLI flag, a replayed line, a registry entry): one of the catalog's. */
export const detailTypeSchema = z.enum(detailTypes as [DetailType, ...DetailType[]], {
  error: (issue) =>
    `expected a detail-type of the event catalog${typeof issue.input === 'string' ? `, got "${issue.input}"` : ''}`,
});

/** The entry of a detail-type given as text (an incoming event); `undefined` when the catalog has none. */
export function findCatalogEntry(detailType: string): CatalogEntry<DetailType> | undefined {
  return byDetailType.get(detailType);
}

/** The entry of a detail-type (every `DetailType` has one: the catalog is built from the same tables). */
export function catalogEntry(detailType: DetailType): CatalogEntry<DetailType> {
  const entry = byDetailType.get(detailType);
  if (!entry) throw new Error(`no catalog entry for '${detailType}'`);
  return entry;
}

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

/** Parses a detail with the catalog schema of its detail-type. */
export function parseDetail(detailType: string, detail: unknown): unknown {
  const entry = findCatalogEntry(detailType);
  if (!entry) throw new EventValidationError(detailType, ['unknown detail-type']);
  const result = entry.schema.safeParse(detail);
  if (!result.success) {
    throw new EventValidationError(detailType, describeIssues(result.error.issues), { cause: result.error });
  }
  return result.data;
}

/** JSON Schema (draft 2020-12) of every detail-type, keyed by detail-type. */
export function toJsonSchemas(catalog: readonly CatalogEntry[] = eventCatalog): Record<string, unknown> {
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
