/**
 * The event catalog's version, written by `npm run events:schema` (`functions/local/write-schemas.ts`)
 * — never by hand. `fingerprint` is the SHA-256 of the catalog's JSON Schemas (every
 * `events/schemas/<detail-type>.json`, in order); when they change (a detail-type added, removed or
 * changed), the writer moves `version` to the next number, and `npm run events:check` (and the
 * catalog test) fails while this file is out of date. The change's note goes into `catalogChangelog`
 * (render-docs.ts): the catalog test asks for one per version.
 */
export const CATALOG_VERSION = {
  version: 8,
  fingerprint: '52461d0e69fa85010b9e3783dcefdedaba097973987db6aa9d17b4fb4d890fe8',
} as const;
