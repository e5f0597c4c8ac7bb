/**
 * Outcome of the e-invoice status tracker, declared beside it: `IssuedInvoice.EInvoiceStatusChanged`,
 * one event per status transition of a sending. It enters the catalog through the tracker's
 * registry entry. Since catalog version 7 it carries the Message Level Status (`mls`); a detail of
 * version 6, without it, is still valid.
 */
import * as z from 'zod';
import { mlsCodes, mlsReasonCodes } from '#functions/accounting/answers.js';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import {
  actionBase,
  EXAMPLE_AT,
  exampleActionBase,
  exampleIds,
} from '#functions/core/events/action-events.js';
import type { CatalogEntry } from '#functions/core/events/catalog-entry.js';

/** Detail-type of one e-invoice status transition. */
export const EINVOICE_STATUS_CHANGED = 'IssuedInvoice.EInvoiceStatusChanged';

export const mlsStatusSchema = z
  .object({
    code: z
      .enum(mlsCodes)
      .describe('AP: delivered and confirmed; AB: accepted by the network, not confirmed; RE: rejected.'),
    reasons: z
      .array(
        z.object({
          code: z
            .enum(mlsReasonCodes)
            .describe(
              'SV: syntax (XML) violation; BV: business rule violation; BW: business rule warning; FD: failure of delivery.',
            ),
          ruleIds: z
            .array(z.string().min(1))
            .describe('The rule ids the network gives (e.g. BR-CO-10), or none.'),
          description: z.string().nullable(),
        }),
      )
      .describe('Why, for RE (and BW warnings with AP); empty otherwise.'),
  })
  .describe('Peppol Message Level Status, as the network answers on the Slovak leg.');
export type MlsStatus = z.infer<typeof mlsStatusSchema>;

export const einvoiceStatusChangedSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'EInvoiceStatusChanged'),
    sendingId: recordIdSchema.describe('Id of the e-invoicing network sending.'),
    status: z.string().min(1).describe('Status of the sending as the service reports it.'),
    previousStatus: z.string().nullable().describe('The status before (null for the first one).'),
    responseCode: z
      .string()
      .nullable()
      .describe(
        'Peppol Invoice Response code where a network gives one (outside Slovakia: AB, IP, UQ, CA, RE, AP, PD), or null.',
      ),
    mls: mlsStatusSchema
      .nullable()
      .optional()
      .describe(
        'Message Level Status of this step (Slovak leg), null when the network gives none. Since catalog version 7; absent in version 6 details.',
      ),
    final: z.boolean().describe('No further transition will be reported for this sending.'),
    sequence: z.number().int().positive().describe('1 for the first status of a sending, then +1 each.'),
    statusDate: z.string().nullable().describe('When the service recorded the status, if it says.'),
  })
  .describe('The e-invoicing network status of a sent invoice changed.');
export type EInvoiceStatusChangedDetail = z.infer<typeof einvoiceStatusChangedSchema>;

export const einvoiceStatusChangedEntry: CatalogEntry<
  typeof EINVOICE_STATUS_CHANGED,
  typeof einvoiceStatusChangedSchema
> = {
  detailType: EINVOICE_STATUS_CHANGED,
  description: 'The e-invoicing network status of a sent issued invoice changed (one event per transition).',
  schema: einvoiceStatusChangedSchema,
  example: {
    ...exampleActionBase(
      'IssuedInvoice',
      exampleIds.invoice,
      'EInvoiceStatusChanged',
      'send.einvoice',
      'FV2026000042',
    ),
    recordType: 'IssuedInvoice',
    change: 'EInvoiceStatusChanged',
    sendingId: 'c0ffee00-0000-4000-8000-000000000005',
    status: 'Rejected',
    previousStatus: 'Sent',
    responseCode: null,
    mls: {
      code: 'RE',
      reasons: [
        {
          code: 'BV',
          ruleIds: ['PEPPOL-EN16931-R010'],
          description: 'Business rules failed: PEPPOL-EN16931-R010',
        },
      ],
    },
    final: true,
    sequence: 3,
    statusDate: EXAMPLE_AT,
  },
};
