/**
 * What the payment detector keeps per payable collection in the checkpoint store (key
 * `<connection>#<collection>/Unpaid`): its read window over the documents' changes and the invoices
 * it knows to be unpaid. Validated with zod when read: a malformed checkpoint is an error.
 */
import * as z from 'zod';

export const PAYMENT_CHECKPOINT_SCHEMA_VERSION = 1 as const;

/** One invoice known to have something to pay, with what its events carry. */
export const openInvoiceSchema = z.object({
  /** Document number. */
  n: z.string(),
  /** Partner id and name. */
  p: z.string().nullable(),
  pn: z.string().nullable(),
  /** CurrencyId. */
  c: z.string().nullable(),
  /** Total in the document currency. */
  t: z.number(),
  /** DueDate, verbatim. */
  d: z.string().nullable(),
  /** RestToPay last seen. */
  r: z.number(),
  /** Liquidations already reported (or there at the baseline): `[id, date, amount]`. */
  l: z.array(z.tuple([z.string(), z.string(), z.number()])),
  /** The due date an Overdue event was published for. */
  o: z.string().optional(),
});
export type OpenInvoice = z.infer<typeof openInvoiceSchema>;

export const paymentCheckpointSchema = z.object({
  schema: z.literal(PAYMENT_CHECKPOINT_SCHEMA_VERSION),
  /** The service's ModifiedDate (of the documents) every change up to which was handled (verbatim). */
  watermark: z.string().optional(),
  watermarkMs: z.number().int().optional(),
  /** `[id, modifiedMs]` of document versions handled inside the lookback overlap (bounded). */
  seen: z.array(z.tuple([z.string(), z.number().int()])).default([]),
  /** Unpaid invoices by id. */
  open: z.record(z.string(), openInvoiceSchema).default({}),
  /** Our clock (epoch ms): the last check (only kept with a payment interval) and full reconciliation. */
  checkedAtMs: z.number().int().optional(),
  reconciledAtMs: z.number().int().optional(),
});
export type PaymentCheckpoint = z.infer<typeof paymentCheckpointSchema>;

export function emptyPaymentCheckpoint(): PaymentCheckpoint {
  return { schema: PAYMENT_CHECKPOINT_SCHEMA_VERSION, seen: [], open: {} };
}

export function paymentCheckpointKey(connection: string, collection: string): string {
  return `${connection}#${collection}/Unpaid`;
}
