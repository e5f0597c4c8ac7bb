/**
 * The event catalog: every detail-type the product emits, with its zod schema, a description
 * and an example. Record events come from the collection table; action outcomes from the actions.
 */
import * as z from 'zod';
import { EventValidationError } from '../errors.js';
import { actionEvents } from './action-events.js';
import type { CatalogEntry } from './catalog-entry.js';
import { connectionEvents } from './connection-events.js';
import { intakeEvents } from './intake-events.js';
import { recordEvents } from './record-events.js';

export const eventCatalog: readonly CatalogEntry[] = [
  ...recordEvents,
  ...actionEvents,
  ...intakeEvents,
  ...connectionEvents,
];

const byDetailType = new Map<string, CatalogEntry>(eventCatalog.map((e) => [e.detailType, e]));

export function findCatalogEntry(detailType: string): CatalogEntry | undefined {
  return byDetailType.get(detailType);
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
