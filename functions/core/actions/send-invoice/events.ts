/**
 * Outcomes of the invoice sending action, declared beside it: `IssuedInvoice.EmailSent` (handed
 * to the service's e-mail sending) and `IssuedInvoice.SendingHeld` (left for a person). They enter
 * the catalog through the action's registry entry.
 */
import * as z from 'zod';
import { recordIdSchema } from '../../../accounting/record-id.js';
import { actionBase, exampleActionBase, exampleIds } from '../../events/action-events.js';
import type { CatalogEntry } from '../../events/catalog-entry.js';

/** Detail-type of an invoice handed to the service for sending by e-mail. */
export const EMAIL_SENT = 'IssuedInvoice.EmailSent';
/** Detail-type of an invoice the sending action did not send: a person decides. */
export const SENDING_HELD = 'IssuedInvoice.SendingHeld';

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

export const emailSentEntry: CatalogEntry<typeof EMAIL_SENT, typeof emailSentSchema> = {
  detailType: EMAIL_SENT,
  description: 'An issued invoice was handed to the service for sending by e-mail.',
  schema: emailSentSchema,
  example: {
    ...exampleActionBase('IssuedInvoice', exampleIds.invoice, 'EmailSent', 'send.email', 'FV2026000042'),
    recordType: 'IssuedInvoice',
    change: 'EmailSent',
    to: ['billing@tatra-trade.example'],
    subject: 'Invoice FV2026000042',
  },
};

export const sendingHeldEntry: CatalogEntry<typeof SENDING_HELD, typeof sendingHeldSchema> = {
  detailType: SENDING_HELD,
  description:
    'An issued invoice was not sent automatically and waits for a person (its e-shop order was linked to the partner on data the customer typed).',
  schema: sendingHeldSchema,
  example: {
    ...exampleActionBase('IssuedInvoice', exampleIds.invoice, 'SendingHeld', 'send.einvoice', 'FV2026000042'),
    recordType: 'IssuedInvoice',
    change: 'SendingHeld',
    channel: 'einvoice',
    reason: 'partnerFromCheckout',
    receivedOrder: { id: exampleIds.order, documentNumber: 'RO2026000042' },
  },
};
