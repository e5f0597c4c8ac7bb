/**
 * Outcomes of the ISDOC archive action, declared beside it: `<Invoice>.IsdocArchived`, one per
 * record type with an ISDOC export. They enter the catalog through the action's registry entry.
 */
import * as z from 'zod';
import { type IsdocRecordType, isdocRecordTypes } from '#functions/accounting/collections.js';
import {
  actionBase,
  actionIdempotencyKey,
  EXAMPLE_CONNECTION,
  exampleActionBase,
  exampleIds,
  hex64,
} from '#functions/core/events/action-events.js';
import type { CatalogEntry } from '#functions/core/events/catalog-entry.js';

export type IsdocArchivedType = `${IsdocRecordType}.IsdocArchived`;

export function isdocArchivedType(recordType: IsdocRecordType): IsdocArchivedType {
  return `${recordType}.IsdocArchived`;
}

/** At most this many schema errors travel in an event, each cut to `SCHEMA_ERROR_MAX_CHARS`. */
export const SCHEMA_ERRORS_MAX = 10;
export const SCHEMA_ERROR_MAX_CHARS = 300;

export function isdocArchivedSchema(recordType: IsdocRecordType) {
  return z
    .object({
      ...actionBase(z.literal(recordType), 'IsdocArchived'),
      documentNumber: z.string().min(1),
      archive: z.object({
        bucket: z.string().min(1).optional(),
        key: z.string().min(1).describe('Object key of the ISDOC file.'),
        sha256: hex64.describe('SHA-256 (hex) of the ISDOC bytes.'),
        size: z.number().int().nonnegative(),
        contentType: z.string().min(1),
        pdfKey: z.string().min(1).optional().describe('Object key of the PDF, when archived too.'),
      }),
      schema: z.string().min(1).describe('The schema the document was checked against: `ISDOC 6.0.2`.'),
      schemaValid: z
        .boolean()
        .describe(
          'Whether the document passes the official ISDOC schema (also the object metadata `isdoc-schema`: `valid` or `invalid`).',
        ),
      schemaErrors: z
        .array(z.string().max(SCHEMA_ERROR_MAX_CHARS))
        .max(SCHEMA_ERRORS_MAX)
        .describe(
          `The schema's first errors (at most ${SCHEMA_ERRORS_MAX}, each cut to ${SCHEMA_ERROR_MAX_CHARS} characters); empty when valid.`,
        ),
      schemaErrorCount: z
        .number()
        .int()
        .nonnegative()
        .describe('How many errors the schema reported in all.'),
    })
    .describe(
      `The ISDOC of an ${recordType} version was checked and archived, with the verdict of the ISDOC schema.`,
    );
}
export type IsdocArchivedDetail = z.infer<ReturnType<typeof isdocArchivedSchema>>;

export const isdocArchivedEvents: readonly CatalogEntry<IsdocArchivedType>[] = isdocRecordTypes.map(
  (recordType): CatalogEntry<IsdocArchivedType> => ({
    detailType: isdocArchivedType(recordType),
    description: `The ISDOC of an ${recordType} version was archived to S3 with the verdict of the official ISDOC 6.0.2 schema.`,
    schema: isdocArchivedSchema(recordType),
    example: {
      ...exampleActionBase(recordType, exampleIds.invoice, 'IsdocArchived', 'archive.isdoc', 'FV2026000042'),
      documentNumber: 'FV2026000042',
      archive: {
        key: `isdoc/${EXAMPLE_CONNECTION}/${recordType}/2026/03/FV2026000042_${exampleIds.invoice}.isdoc`,
        sha256: actionIdempotencyKey('isdoc bytes'),
        size: 4187,
        contentType: 'application/xml',
      },
      schema: 'ISDOC 6.0.2',
      schemaValid: true,
      schemaErrors: [],
      schemaErrorCount: 0,
    },
  }),
);

/** The catalog entry of a record type's `IsdocArchived`. */
export function isdocArchivedEntry(recordType: IsdocRecordType): CatalogEntry<IsdocArchivedType> {
  const entry = isdocArchivedEvents.find((e) => e.detailType === isdocArchivedType(recordType));
  if (!entry) throw new Error(`no IsdocArchived entry for ${recordType}`);
  return entry;
}
