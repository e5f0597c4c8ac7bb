/**
 * What every action outcome shares: the envelope, its idempotency key, the reference to the record
 * the action ran on, and `Action.Failed`, the outcome any action publishes when it gives up. The
 * outcomes of one action (`ReceivedOrder.Transferred`, `IssuedInvoice.EmailSent`, …) are declared
 * beside that action in `core/actions/*-events.ts` and enter the catalog through the action
 * registry; this module knows no action.
 *
 * Same envelope style as the record events: `{ version, connection, recordType, id, change,
 * idempotencyKey }` plus `action` (which action ran), `source` (the record it ran on),
 * `causationId` (the id of the event that triggered it) and `occurredAt`.
 * `idempotencyKey` is stable for one outcome, so every delivery of it can be deduplicated.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { connectionSchema } from '../connection.js';
import { type CatalogEntry, ENVELOPE_VERSION } from './catalog-entry.js';

/** Detail-type every action publishes when it gives up on a record. */
export const ACTION_FAILED = 'Action.Failed';
export type ActionFailedType = typeof ACTION_FAILED;

export const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

/** Stable key of one action outcome: SHA-256 of its parts joined by NUL. */
export function actionIdempotencyKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

export const sourceRefSchema = z
  .object({
    recordType: z.string().min(1),
    id: recordIdSchema.describe('The source record `Id`.'),
    documentNumber: z.string().nullable().describe('`DocumentNumber` of the source, when known.'),
    modifiedDate: z.string().nullable().describe('`ModifiedDate` of the source version the action ran on.'),
  })
  .describe('The record the action ran on.');
export type SourceRef = z.infer<typeof sourceRefSchema>;

/** The envelope fields of an action outcome, for the outcome schemas of every action. */
export function actionBase<R extends z.ZodType, C extends string>(recordType: R, change: C) {
  return {
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('Which accounting connection (company) the record belongs to.'),
    recordType,
    id: recordIdSchema.describe('The source record `Id` (same as `source.id`).'),
    change: z.literal(change),
    action: z.string().min(1).describe('The action that ran, e.g. `transfer.receivedOrderToIssueSlip`.'),
    source: sourceRefSchema,
    causationId: z.string().min(1).describe('Id of the event that triggered the action.'),
    idempotencyKey: hex64.describe('Equal for every delivery of this outcome.'),
    occurredAt: isoDateTime.describe('When the action produced this outcome.'),
  };
}

export const failureKinds = [
  'validation',
  'notReady',
  'invalidDocument',
  'tooLarge',
  'outcomeUnknown',
  'rejected',
  'deadline',
  'tooManyOpen',
] as const;
export type FailureKind = (typeof failureKinds)[number];

export const problemSchema = z
  .object({
    kind: z.enum(failureKinds),
    message: z.string().min(1),
    status: z.number().int().optional().describe('HTTP status of the service, when it answered.'),
    title: z.string().optional(),
    traceId: z.string().optional(),
    errors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .describe('Validation errors keyed by property, as the service sent them.'),
  })
  .describe('What went wrong, in problem-details terms.');
export type Problem = z.infer<typeof problemSchema>;

export const actionFailedSchema = z
  .object({
    ...actionBase(z.string().min(1), 'Failed'),
    problem: problemSchema,
  })
  .describe('An action gave up on a record; it will not be retried for this event.');
export type ActionFailedDetail = z.infer<typeof actionFailedSchema>;

/** The connection, time and ids the catalog examples of action outcomes share. */
export const EXAMPLE_CONNECTION = 'acme';
export const EXAMPLE_AT = '2026-03-04T16:41:00.000Z';
export const exampleIds = {
  order: '5a1c2e9e-1f7b-4a8e-9d1c-0b6f2f0b1a01',
  slip: '7c3d4e5f-2a8b-4c9d-8e1f-1a2b3c4d5e02',
  invoice: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c03',
  event: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d04',
};

/** The envelope of a catalog example of an action outcome. */
export function exampleActionBase(
  recordType: string,
  id: string,
  change: string,
  action: string,
  number: string,
) {
  return {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType,
    id,
    change,
    action,
    source: { recordType, id, documentNumber: number, modifiedDate: '2026-03-04T16:40:12Z' },
    causationId: exampleIds.event,
    idempotencyKey: actionIdempotencyKey(EXAMPLE_CONNECTION, action, id, change),
    occurredAt: EXAMPLE_AT,
  };
}

export const actionFailedEntry: CatalogEntry<ActionFailedType> = {
  detailType: ACTION_FAILED,
  description:
    'An action gave up on a record (validation error, deadline, unknown outcome, invalid document).',
  schema: actionFailedSchema,
  example: {
    ...exampleActionBase(
      'ReceivedOrder',
      exampleIds.order,
      'Failed',
      'transfer.receivedOrderToIssueSlip',
      'RO2026000042',
    ),
    problem: {
      kind: 'validation',
      message: 'the service rejected the request',
      status: 422,
      title: 'Unprocessable Entity',
      traceId: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
      errors: { Items: ["'Items' must not be empty."] },
    },
  },
};
