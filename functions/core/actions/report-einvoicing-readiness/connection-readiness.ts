/**
 * The readiness report of one connection, read from the service: the issued invoices of the
 * period, the address book and the VAT rates, checked by the pre-flight and the channel policy the
 * sending uses (`core/einvoicing/readiness.ts`). One reading for the CLI (`einvoice readiness`),
 * the console's page and the daily report on AWS.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { vatPercentFrom } from '#functions/core/einvoicing/preflight.js';
import { type ReadinessReport, readinessReport } from '#functions/core/einvoicing/readiness.js';
import type { ActionsConfig } from '../config.js';
import { channelFor, einvoicingPolicy, partnerFromBook } from '../send-invoice/channel-policy.js';

export const DAY_MS = 86_400_000;

/** The default period of the report: the invoices issued in the last 90 days. */
export const READINESS_PERIOD_DAYS = 90;

/** `days` calendar days up to and including the day of `now` (UTC): from its first day on. */
export function readinessPeriod(now: Date, days: number = READINESS_PERIOD_DAYS): { from: Date; to: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - (days - 1) * DAY_MS), to: now };
}

export async function connectionReadiness(
  api: Pick<AccountingApi, 'listItems'>,
  actions: Pick<ActionsConfig, 'sending' | 'variant' | 'connection'>,
  period: { from: Date; to: Date },
  connection: string = actions.connection,
): Promise<ReadinessReport> {
  const collect = async (collection: 'VatRates' | 'BusinessPartners' | 'IssuedInvoices', since?: string) => {
    const out: ApiRecord[] = [];
    for await (const item of api.listItems(collection, since ? { modifiedSince: since } : {})) out.push(item);
    return out;
  };
  const [rates, partners, invoices] = await Promise.all([
    collect('VatRates'),
    collect('BusinessPartners'),
    // An invoice issued in the period was last changed in it or later.
    collect('IssuedInvoices', period.from.toISOString()),
  ]);
  const book = new Map(partners.map((p) => [p.Id.toLowerCase(), p]));
  return readinessReport({
    connection,
    policy: einvoicingPolicy(actions),
    from: period.from,
    to: period.to,
    invoices,
    vatPercent: vatPercentFrom(rates),
    partnerOf: (invoice) => partnerFromBook(invoice as ApiRecord, book),
    channelOf: (invoice, partner) => {
      const facts = partnerFromBook(invoice as ApiRecord, book);
      return channelFor(actions, invoice as ApiRecord, { ...facts, ...partner })?.kind ?? 'none';
    },
  });
}
