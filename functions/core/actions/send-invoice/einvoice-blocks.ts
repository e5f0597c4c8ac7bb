/**
 * Invoices the pre-flight blocked, one state item each (`einvoice-blocked#<connection>#<id>`): an
 * `IssuedInvoice.Updated` of a blocked invoice checks it again and sends it once it passes; an
 * update of any other invoice sends nothing. The item says which rules blocked it, so a second
 * update that fixes nothing is not announced twice.
 */
import * as z from 'zod';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { type PreflightResult, preflight, vatPercentFrom } from '#functions/core/einvoicing/preflight.js';
import type { CheckpointStore } from '#functions/core/ports.js';

export const blockMarkSchema = z.object({
  status: z.enum(['blocked', 'cleared']),
  rules: z.array(z.string()),
  at: z.string(),
});
export type BlockMark = z.infer<typeof blockMarkSchema>;

export const blockKey = (connection: string, recordId: string) =>
  `einvoice-blocked#${connection}#${recordId}`;

export async function readBlock(store: CheckpointStore<unknown>, connection: string, recordId: string) {
  const stored = await store.get(blockKey(connection, recordId));
  if (!stored) return undefined;
  return { mark: blockMarkSchema.parse(stored.value), version: stored.version };
}

export async function writeBlock(
  store: CheckpointStore<unknown>,
  connection: string,
  recordId: string,
  mark: BlockMark,
  version: number | undefined,
): Promise<void> {
  await store.put(blockKey(connection, recordId), mark, version);
}

/** The pre-flight of an invoice with the service's VAT rates. */
export async function preflightOf(api: AccountingApi, invoice: ApiRecord): Promise<PreflightResult> {
  const rates: ApiRecord[] = [];
  for await (const rate of api.listItems('VatRates')) rates.push(rate);
  return preflight(invoice, { vatPercent: vatPercentFrom(rates) });
}
