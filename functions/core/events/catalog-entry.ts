import type * as z from 'zod';
import { CATALOG_VERSION } from './catalog-version.js';

/**
 * One detail-type of the event catalog with the zod schema of its `detail`. `D` is the detail-type
 * union of the entry's family (record events, action outcomes, intake, connection health); the
 * catalog's `DetailType` is the union of the families.
 */
export interface CatalogEntry<D extends string = string, S extends z.ZodType = z.ZodType> {
  /** `<RecordType>.<Change>` or an action outcome such as `ReceivedOrder.Transferred`, `Action.Failed`. */
  detailType: D;
  /** One sentence for docs and `events` listings. */
  description: string;
  schema: S;
  /** A realistic example detail; the catalog test parses it with `schema`. */
  example: z.input<S>;
}

/** Version of every envelope this code emits; bump on a breaking change of the envelope's fields. */
export const ENVELOPE_VERSION = 1 as const;

/**
 * Version of the catalog: the set of detail-types and their schemas. Generated: it moves whenever
 * a schema is added, removed or changed (`catalog-version.ts`, written by `npm run events:schema`);
 * the changelog is in docs/events.md (`catalogChangelog` in render-docs.ts).
 */
export const EVENT_CATALOG_VERSION: number = CATALOG_VERSION.version;

/** `word` with its indefinite article, for catalog descriptions: `an IssuedInvoice`, `a ReceivedOrder`. */
export function withArticle(word: string, capital = false): string {
  const article = /^[AEIOU]/i.test(word) ? 'an' : 'a';
  return `${capital ? article[0]?.toUpperCase() + article.slice(1) : article} ${word}`;
}
