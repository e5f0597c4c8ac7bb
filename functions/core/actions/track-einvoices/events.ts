/**
 * Outcome of the e-invoice status tracker, declared beside it: `IssuedInvoice.EInvoiceStatusChanged`,
 * one event per status transition of a sending. It enters the catalog through the tracker's
 * registry entry.
 */
import * as z from 'zod';
import { recordIdSchema } from '../../../accounting/record-id.js';
import { actionBase, EXAMPLE_AT, exampleActionBase, exampleIds } from '../../events/action-events.js';
import type { CatalogEntry } from '../../events/catalog-entry.js';

/** Detail-type of one e-invoice status transition. */
export const EINVOICE_STATUS_CHANGED = 'IssuedInvoice.EInvoiceStatusChanged';

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
    status: 'Accepted',
    previousStatus: 'Delivered',
    responseCode: 'AP',
    final: true,
    sequence: 3,
    statusDate: EXAMPLE_AT,
  },
};
