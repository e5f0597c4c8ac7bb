/**
 * Catalog entries of the action outcomes: `<Source>.Transferred`, `<Invoice>.IsdocArchived`,
 * `IssuedInvoice.EInvoiceStatusChanged`, `IssuedInvoice.EmailSent` and `Action.Failed`.
 *
 * Same envelope style as the record events: `{ version, connection, recordType, id, change,
 * idempotencyKey }` plus `action` (which action ran), `source` (the record it ran on),
 * `causationId` (the id of the event that triggered it) and `occurredAt`.
 * `idempotencyKey` is stable for one outcome, so every delivery of it can be deduplicated.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { type IsdocRecordType, isdocRecordTypes } from '../../accounting/collections.js';
import { recordIdSchema } from '../../accounting/record-id.js';
import { type TransferSourceType, transferSourceTypes, transferSteps } from '../actions/transfer-steps.js';
import { connectionSchema } from '../connection.js';
import { type CatalogEntry, ENVELOPE_VERSION, withArticle } from './catalog-entry.js';

/** Detail-type every action publishes when it gives up on a record. */
export const ACTION_FAILED = 'Action.Failed';
/** Detail-type of one e-invoice status transition. */
export const EINVOICE_STATUS_CHANGED = 'IssuedInvoice.EInvoiceStatusChanged';
/** Detail-type of an invoice handed to the service for sending by e-mail. */
export const EMAIL_SENT = 'IssuedInvoice.EmailSent';
/** Detail-type of an invoice the sending action did not send: a person decides. */
export const SENDING_HELD = 'IssuedInvoice.SendingHeld';

export type TransferredType = `${TransferSourceType}.Transferred`;
export type IsdocArchivedType = `${IsdocRecordType}.IsdocArchived`;

/** Every detail-type an action may publish; a mistyped one does not compile. */
export type OutcomeDetailType =
  | TransferredType
  | IsdocArchivedType
  | typeof EINVOICE_STATUS_CHANGED
  | typeof EMAIL_SENT
  | typeof SENDING_HELD
  | typeof ACTION_FAILED;

export function transferredType(sourceType: TransferSourceType): TransferredType {
  return `${sourceType}.Transferred`;
}

export function isdocArchivedType(recordType: IsdocRecordType): IsdocArchivedType {
  return `${recordType}.IsdocArchived`;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
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

function actionBase<R extends z.ZodType, C extends string>(recordType: R, change: C) {
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

const warningSchema = z.looseObject({ Code: z.string(), Message: z.string() });

export function transferredSchema(sourceType: TransferSourceType) {
  return z
    .object({
      ...actionBase(z.literal(sourceType), 'Transferred'),
      target: z
        .object({
          recordType: z.string().min(1),
          id: recordIdSchema.describe('`Id` of the new document.'),
          documentNumber: z.string().nullable().describe('`DocumentNumber` of the new document.'),
        })
        .describe('The document the transfer created.'),
      warnings: z.array(warningSchema).describe('Warnings of the service; the document was created.'),
      recovered: z
        .boolean()
        .describe('`true` when an earlier attempt had created the target and this run found it.'),
    })
    .describe(`${sourceType} was transferred fully; carries the new document's id and number.`);
}
export type TransferredDetail = z.infer<ReturnType<typeof transferredSchema>>;

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

export const einvoiceStatusChangedSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'EInvoiceStatusChanged'),
    sendingId: recordIdSchema.describe('Id of the e-invoicing network sending.'),
    status: z.string().min(1).describe('Status of the sending as the service reports it.'),
    previousStatus: z.string().nullable().describe('The status before (null for the first one).'),
    responseCode: z
      .string()
      .nullable()
      .describe('Peppol invoice response code as given (e.g. AB, IP, UQ, CA, RE, AP, PD), or null.'),
    final: z.boolean().describe('No further transition will be reported for this sending.'),
    sequence: z.number().int().positive().describe('1 for the first status of a sending, then +1 each.'),
    statusDate: z.string().nullable().describe('When the service recorded the status, if it says.'),
  })
  .describe('The e-invoicing network status of a sent invoice changed.');
export type EInvoiceStatusChangedDetail = z.infer<typeof einvoiceStatusChangedSchema>;

export const emailSentSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'EmailSent'),
    to: z.array(z.string().min(1)).describe('Recipients the service was asked to send to.'),
    subject: z.string(),
  })
  .describe('The invoice was handed to the service for sending by e-mail.');
export type EmailSentDetail = z.infer<typeof emailSentSchema>;

/** Why a sending waits for a person. */
export const heldReasons = ['partnerFromCheckout'] as const;

export const sendingHeldSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'SendingHeld'),
    channel: z.enum(['email', 'einvoice']).describe('The channel the settings chose for the invoice.'),
    reason: z
      .enum(heldReasons)
      .describe(
        '`partnerFromCheckout`: the invoice was made from an e-shop order whose partner was matched on data the customer typed at checkout (IČO or e-mail).',
      ),
    receivedOrder: z
      .object({
        id: recordIdSchema.describe('`Id` of the received order the invoice was made from.'),
        documentNumber: z.string().nullable(),
      })
      .describe('The received order that carries the mark.'),
  })
  .describe('The invoice was not sent automatically: a person checks the partner and sends it by hand.');
export type SendingHeldDetail = z.infer<typeof sendingHeldSchema>;

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

const EXAMPLE_CONNECTION = 'acme';
const AT = '2026-03-04T16:41:00.000Z';
const example = {
  order: '5a1c2e9e-1f7b-4a8e-9d1c-0b6f2f0b1a01',
  slip: '7c3d4e5f-2a8b-4c9d-8e1f-1a2b3c4d5e02',
  invoice: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c03',
  event: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d04',
};

function exampleBase(recordType: string, id: string, change: string, action: string, number: string) {
  return {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType,
    id,
    change,
    action,
    source: { recordType, id, documentNumber: number, modifiedDate: '2026-03-04T16:40:12Z' },
    causationId: example.event,
    idempotencyKey: actionIdempotencyKey(EXAMPLE_CONNECTION, action, id, change),
    occurredAt: AT,
  };
}

/** The target and action of a source's transfer in the default (Slovak) chain, for descriptions and examples. */
function transferOf(sourceType: TransferSourceType): [string, string] {
  const step = transferSteps.find((s) => s.sourceRecordType === sourceType);
  if (!step) throw new Error(`no transfer step from ${sourceType}`);
  return [step.targetRecordType, step.action];
}

export const actionEvents: CatalogEntry<OutcomeDetailType>[] = [
  ...transferSourceTypes.map(
    (sourceType): CatalogEntry<TransferredType> => ({
      detailType: transferredType(sourceType),
      description: `${withArticle(sourceType, true)} was transferred fully to ${withArticle(transferOf(sourceType)[0])}.`,
      schema: transferredSchema(sourceType),
      example: {
        ...exampleBase(sourceType, example.order, 'Transferred', transferOf(sourceType)[1], 'RO2026000042'),
        target: {
          recordType: transferOf(sourceType)[0],
          id: example.slip,
          documentNumber: 'IS2026000017',
        },
        warnings: [],
        recovered: false,
      },
    }),
  ),
  ...isdocRecordTypes.map(
    (recordType): CatalogEntry<IsdocArchivedType> => ({
      detailType: isdocArchivedType(recordType),
      description: `The ISDOC of an ${recordType} version was archived to S3 with the verdict of the official ISDOC 6.0.2 schema.`,
      schema: isdocArchivedSchema(recordType),
      example: {
        ...exampleBase(recordType, example.invoice, 'IsdocArchived', 'archive.isdoc', 'FV2026000042'),
        documentNumber: 'FV2026000042',
        archive: {
          key: `isdoc/${EXAMPLE_CONNECTION}/${recordType}/2026/03/FV2026000042_${example.invoice}.isdoc`,
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
  ),
  {
    detailType: EINVOICE_STATUS_CHANGED,
    description:
      'The e-invoicing network status of a sent issued invoice changed (one event per transition).',
    schema: einvoiceStatusChangedSchema,
    example: {
      ...exampleBase(
        'IssuedInvoice',
        example.invoice,
        'EInvoiceStatusChanged',
        'send.einvoice',
        'FV2026000042',
      ),
      sendingId: 'c0ffee00-0000-4000-8000-000000000005',
      status: 'Accepted',
      previousStatus: 'Delivered',
      responseCode: 'AP',
      final: true,
      sequence: 3,
      statusDate: AT,
    },
  },
  {
    detailType: EMAIL_SENT,
    description: 'An issued invoice was handed to the service for sending by e-mail.',
    schema: emailSentSchema,
    example: {
      ...exampleBase('IssuedInvoice', example.invoice, 'EmailSent', 'send.email', 'FV2026000042'),
      to: ['billing@tatra-trade.example'],
      subject: 'Invoice FV2026000042',
    },
  },
  {
    detailType: SENDING_HELD,
    description:
      'An issued invoice was not sent automatically and waits for a person (its e-shop order was linked to the partner on data the customer typed).',
    schema: sendingHeldSchema,
    example: {
      ...exampleBase('IssuedInvoice', example.invoice, 'SendingHeld', 'send.einvoice', 'FV2026000042'),
      channel: 'einvoice',
      reason: 'partnerFromCheckout',
      receivedOrder: { id: example.order, documentNumber: 'RO2026000042' },
    },
  },
  {
    detailType: ACTION_FAILED,
    description:
      'An action gave up on a record (validation error, deadline, unknown outcome, invalid document).',
    schema: actionFailedSchema,
    example: {
      ...exampleBase(
        'ReceivedOrder',
        example.order,
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
  },
];
