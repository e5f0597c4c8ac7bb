/**
 * The versioned envelope every record event carries as its EventBridge `detail`:
 * `{ version, connection, recordType, id, change, modifiedDate, idempotencyKey, record | recordRef }`.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { RecordType } from '#functions/accounting/collections.js';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { connectionSchema } from '../connection.js';
import { ENVELOPE_VERSION } from './catalog-entry.js';

export const changeKinds = ['Created', 'Updated', 'Deleted'] as const;
export type ChangeKind = (typeof changeKinds)[number];

/** The detail-type of a record event: a record type of the collection table and a change. */
export type RecordDetailType = `${RecordType}.${ChangeKind}`;

/** `<RecordType>.<Change>`, e.g. `ReceivedOrder.Created`. */
export function recordDetailType(recordType: RecordType, change: ChangeKind): RecordDetailType {
  return `${recordType}.${change}`;
}

/**
 * The stable identity of one version of one record: lower-case hex SHA-256 of
 * `connection`, `recordType`, `id` and `version` joined by a NUL byte. `version` is the
 * service's `ModifiedDate` verbatim for records with `ModificationInfo`, `content:<sha256>`
 * for reference records (no dates), and `deleted` for deletions.
 */
export function idempotencyKey(connection: string, recordType: string, id: string, version: string): string {
  return createHash('sha256').update([connection, recordType, id, version].join('\u0000')).digest('hex');
}

/** Where a claim-checked record was stored (the event was too large to carry it). */
export const recordRefSchema = z
  .object({
    bucket: z.string().min(1).optional().describe('Bucket name, when the store knows it.'),
    key: z.string().min(1).describe('Object key of the JSON record.'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256')
      .describe('SHA-256 (hex) of the stored JSON bytes.'),
    size: z.number().int().nonnegative().describe('Size of the stored JSON in bytes.'),
  })
  .describe('Claim check: the record is stored in the object store under `key`.');
export type RecordRef = z.infer<typeof recordRefSchema>;

const isoDateTime = z.iso.datetime({ offset: true, local: true });

export const modificationInfoSchema = z.looseObject({
  CreatedDate: isoDateTime,
  CreatedBy: z.string().optional(),
  ModifiedDate: isoDateTime,
  ModifiedBy: z.string().optional(),
});

export interface EnvelopeSchemaOptions {
  recordType: string;
  change: ChangeKind;
  /**
   * Records of this type carry `ModificationInfo` (documents, address book): `true`; never: `false`;
   * `'by-variant'`: in one service variant only (reference lists carry it in `cz`, where general
   * lists have `ModifiedDate` only) — then `modifiedDate` is a date or null.
   */
  modificationInfo: boolean | 'by-variant';
}

/**
 * The zod schema of one detail-type's envelope. Created/Updated carry the record (or a
 * `recordRef`); Deleted carries `record: { Id }` and `modifiedDate: null`.
 */
export function envelopeSchema({ recordType, change, modificationInfo }: EnvelopeSchemaOptions) {
  const base = {
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('Which accounting connection (company) the record belongs to.'),
    recordType: z.literal(recordType),
    id: recordIdSchema.describe('The record `Id`: a GUID, as the service issues them.'),
    change: z.literal(change),
    idempotencyKey: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256')
      .describe(
        'SHA-256 of (connection, recordType, id, ModifiedDate); equal for every delivery of one version.',
      ),
  };
  if (change === 'Deleted') {
    return z
      .object({
        ...base,
        modifiedDate: z.null().describe('Unknown: the service has no deletion feed.'),
        record: z.object({ Id: recordIdSchema }).describe('Only the id of the vanished record.'),
      })
      .describe(`${recordType} no longer listed by the service (found by reconciliation).`);
  }
  const record =
    modificationInfo === 'by-variant'
      ? z.looseObject({
          Id: recordIdSchema,
          ModificationInfo: z
            .looseObject({ CreatedDate: isoDateTime.optional(), ModifiedDate: isoDateTime })
            .optional(),
        })
      : modificationInfo
        ? z.looseObject({ Id: recordIdSchema, ModificationInfo: modificationInfoSchema })
        : z.looseObject({ Id: recordIdSchema });
  const modifiedDate =
    modificationInfo === 'by-variant'
      ? isoDateTime
          .nullable()
          .describe(
            '`ModificationInfo.ModifiedDate` where the service variant keeps it (cz); null where versions are told apart by content hash (sk).',
          )
      : modificationInfo
        ? isoDateTime.describe('`ModificationInfo.ModifiedDate` of this version, as the service sent it.')
        : z.null().describe('Reference records carry no dates; versions are told apart by content hash.');
  return z.union([
    z.object({ ...base, modifiedDate, record: record.describe('The record as the service returned it.') }),
    z.object({ ...base, modifiedDate, recordRef: recordRefSchema }),
  ]);
}

/** What every record event's detail looks like, without the per-type literals. */
export const anyRecordEnvelopeSchema = z.object({
  version: z.literal(ENVELOPE_VERSION),
  connection: connectionSchema,
  recordType: z.string().min(1),
  id: recordIdSchema,
  change: z.enum(changeKinds),
  modifiedDate: z.string().nullable(),
  idempotencyKey: z.string().regex(/^[0-9a-f]{64}$/),
  record: z.looseObject({ Id: recordIdSchema }).optional(),
  recordRef: recordRefSchema.optional(),
});
export type RecordEnvelope = z.infer<typeof anyRecordEnvelopeSchema>;
