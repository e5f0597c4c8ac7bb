/**
 * Outcomes of the invoice sending action, declared beside it: `IssuedInvoice.EmailSent` (handed
 * to the service's e-mail sending), `IssuedInvoice.SendingHeld` (left for a person),
 * `IssuedInvoice.SendingReleased` (a person released it) and `IssuedInvoice.EInvoiceBlocked` (the
 * pre-flight kept it from the network). They enter the catalog through the
 * action's registry entry.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { actionBase, exampleActionBase, exampleIds } from '#functions/core/events/action-events.js';
import type { CatalogEntry } from '#functions/core/events/catalog-entry.js';

/** Detail-type of an invoice handed to the service for sending by e-mail. */
export const EMAIL_SENT = 'IssuedInvoice.EmailSent';
/** Detail-type of an invoice the sending action did not send: a person decides. */
export const SENDING_HELD = 'IssuedInvoice.SendingHeld';
/** Detail-type of a held invoice a person released: actions may contact its partner again. */
export const SENDING_RELEASED = 'IssuedInvoice.SendingReleased';

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

export const sendingReleasedSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'SendingReleased'),
    reason: z.enum(heldReasons).describe('Why the invoice was held.'),
    receivedOrder: z
      .object({ id: recordIdSchema, documentNumber: z.string().nullable() })
      .describe('The received order that carries the mark.'),
    heldAt: z.string().describe('When the hold was kept.'),
    releasedBy: z.string().min(1).describe('Who released it, as they named themselves.'),
    via: z.enum(['cli', 'console']).describe("`cli`: `holds release`; `console`: the console's Release."),
  })
  .describe(
    'A person released a held invoice: sending, reminders and every other action may contact its partner again.',
  );
export type SendingReleasedDetail = z.infer<typeof sendingReleasedSchema>;

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

export const sendingReleasedEntry: CatalogEntry<typeof SENDING_RELEASED, typeof sendingReleasedSchema> = {
  detailType: SENDING_RELEASED,
  description:
    'A person released a held issued invoice (`holds release`, or Release in the console); it is sent and reminded again like any other.',
  schema: sendingReleasedSchema,
  example: {
    ...exampleActionBase(
      'IssuedInvoice',
      exampleIds.invoice,
      'SendingReleased',
      'hold.release',
      'FV2026000042',
    ),
    recordType: 'IssuedInvoice',
    change: 'SendingReleased',
    reason: 'partnerFromCheckout',
    receivedOrder: { id: exampleIds.order, documentNumber: 'RO2026000042' },
    heldAt: '2026-03-04T16:41:00Z',
    releasedBy: 'jana',
    via: 'cli',
  },
};

/** Detail-type of an invoice the e-invoicing pre-flight kept from the network. */
export const EINVOICE_BLOCKED = 'IssuedInvoice.EInvoiceBlocked';

export const einvoiceBlockedSchema = z
  .object({
    ...actionBase(z.literal('IssuedInvoice'), 'EInvoiceBlocked'),
    findings: z
      .array(
        z.object({
          rule: z
            .string()
            .min(1)
            .describe(
              'Official rule id: BR-…, BR-CO-…, PEPPOL-EN16931-R… (SK-… for the Slovak address requirement).',
            ),
          flag: z.enum(['fatal', 'warning']),
          field: z
            .string()
            .min(1)
            .describe("The service document's field to fix, e.g. `BusinessPartnerAddress.Street`."),
          message: z.string(),
        }),
      )
      .min(1)
      .describe('Every rule the invoice breaks, with the field.'),
    notChecked: z
      .array(z.string())
      .describe("Rules about the seller, checked by the network (the seller is the service's set-up)."),
    partner: z
      .object({
        id: recordIdSchema.nullable().describe('`Id` of the address-book entry, when the invoice links one.'),
        name: z.string().nullable(),
        country: z.string().nullable(),
        dic: z.string().nullable().describe('The DIČ the participant id is derived from.'),
        participantId: z.string().nullable().describe('Peppol participant id `0245:<DIČ>`.'),
        from: z.enum(['addressBook', 'invoice']).describe('Where the partner data were read.'),
      })
      .describe('The partner the invoice was to go to.'),
  })
  .describe(
    'The invoice was not sent as an e-invoice: it breaks rules the network would reject it for. Fixed in the service, it is checked again and sent.',
  );
export type EInvoiceBlockedDetail = z.infer<typeof einvoiceBlockedSchema>;

export const einvoiceBlockedEntry: CatalogEntry<typeof EINVOICE_BLOCKED, typeof einvoiceBlockedSchema> = {
  detailType: EINVOICE_BLOCKED,
  description:
    'An issued invoice was kept from the e-invoicing network by the pre-flight: the rules it breaks, the fields to fix, the partner.',
  schema: einvoiceBlockedSchema,
  example: {
    ...exampleActionBase(
      'IssuedInvoice',
      exampleIds.invoice,
      'EInvoiceBlocked',
      'send.einvoice',
      'FV2026000042',
    ),
    recordType: 'IssuedInvoice',
    change: 'EInvoiceBlocked',
    findings: [
      {
        rule: 'PEPPOL-EN16931-R010',
        flag: 'fatal',
        field: 'BusinessPartnerAddress.TaxIdentificationNumber',
        message:
          "BusinessPartnerAddress.TaxIdentificationNumber is empty: the buyer's DIČ gives its electronic address 0245:<DIČ>",
      },
    ],
    notChecked: ['BR-06', 'BR-08', 'BR-09', 'SK-SELLER-ADDRESS', 'BR-S-02', 'PEPPOL-EN16931-R020'],
    partner: {
      id: '3b5e7d9f-1c2a-4e6b-8d0f-2a4c6e8b0d05',
      name: 'Tatra Trade s.r.o.',
      country: 'SK',
      dic: '2021234567',
      participantId: '0245:2021234567',
      from: 'addressBook',
    },
  },
};
