/**
 * The e-invoicing readiness of a company before the Slovak mandate: of the issued invoices of a
 * period, how many its policy would e-invoice, how many the pre-flight would block and by which
 * rule, which partners to fix first (with the fields), and which partners have no DIČ and would
 * fall to e-mail (or to nothing). Pure: the caller reads the invoices, the address book and the
 * VAT rates, and says how the channel is chosen.
 */
import type { TermsContext } from './business-terms.js';
import { brokenRules, preflight } from './preflight.js';

type Json = Record<string, unknown>;

/** The partner of an invoice as the channel policy sees it. */
export interface ReadinessPartner {
  id: string | null;
  name: string | null;
  country: string | null;
  participantId: string | null;
}

export interface ReadinessInput {
  connection: string;
  policy: string;
  from: Date;
  to: Date;
  invoices: readonly Json[];
  vatPercent: TermsContext['vatPercent'];
  /** The invoice's partner (address book, else the invoice's block). */
  partnerOf: (invoice: Json) => ReadinessPartner;
  /** The channel the policy chooses: e-invoice, e-mail or nothing. */
  channelOf: (invoice: Json, partner: ReadinessPartner) => 'einvoice' | 'email' | 'none';
}

export interface BlockedInvoice {
  id: string;
  documentNumber: string | null;
  issueDate: string | null;
  partner: ReadinessPartner;
  rules: string[];
  fields: string[];
}

export interface PartnerToFix extends ReadinessPartner {
  invoices: number;
  rules: string[];
  fields: string[];
}

export interface PartnerWithoutDic {
  id: string | null;
  name: string | null;
  country: string | null;
  invoices: number;
  channel: 'email' | 'none';
}

export interface ReadinessReport {
  connection: string;
  policy: string;
  period: { from: string; to: string };
  counts: { invoices: number; einvoice: number; ready: number; blocked: number; email: number; none: number };
  rules: { rule: string; invoices: number }[];
  blocked: BlockedInvoice[];
  partnersToFix: PartnerToFix[];
  partnersWithoutDic: PartnerWithoutDic[];
  /** Rules about the seller the report could not check (the service's own set-up). */
  notChecked: string[];
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);
const partnerKey = (p: ReadinessPartner) => p.id ?? `name:${p.name ?? ''}`;

/** Issued on or after `from` and not after `to` (by `IssueDate`, a calendar day). */
function inPeriod(invoice: Json, from: Date, to: Date): boolean {
  const issued = text(invoice.IssueDate);
  if (!issued) return false;
  const day = issued.slice(0, 10);
  return day >= from.toISOString().slice(0, 10) && day <= to.toISOString().slice(0, 10);
}

export function readinessReport(input: ReadinessInput): ReadinessReport {
  const counts = { invoices: 0, einvoice: 0, ready: 0, blocked: 0, email: 0, none: 0 };
  const byRule = new Map<string, number>();
  const blocked: BlockedInvoice[] = [];
  const toFix = new Map<string, PartnerToFix>();
  const withoutDic = new Map<string, PartnerWithoutDic>();
  let notChecked: string[] = [];
  for (const invoice of input.invoices) {
    if (!inPeriod(invoice, input.from, input.to)) continue;
    counts.invoices++;
    const partner = input.partnerOf(invoice);
    const channel = input.channelOf(invoice, partner);
    if (channel !== 'einvoice') {
      counts[channel]++;
      if (partner.participantId === null) {
        const key = partnerKey(partner);
        const row = withoutDic.get(key) ?? {
          id: partner.id,
          name: partner.name,
          country: partner.country,
          invoices: 0,
          channel,
        };
        row.invoices++;
        withoutDic.set(key, row);
      }
      continue;
    }
    counts.einvoice++;
    const result = preflight(invoice, { vatPercent: input.vatPercent });
    notChecked = result.notChecked;
    if (result.passed) {
      counts.ready++;
      continue;
    }
    counts.blocked++;
    const rules = brokenRules(result);
    const fields = [...new Set(result.findings.map((f) => f.field))];
    for (const rule of rules) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
    blocked.push({
      id: String(invoice.Id),
      documentNumber: text(invoice.DocumentNumber),
      issueDate: text(invoice.IssueDate),
      partner,
      rules,
      fields,
    });
    const key = partnerKey(partner);
    const row = toFix.get(key) ?? { ...partner, invoices: 0, rules: [], fields: [] };
    row.invoices++;
    row.rules = [...new Set([...row.rules, ...rules])];
    row.fields = [...new Set([...row.fields, ...fields])];
    toFix.set(key, row);
  }
  const byCount = <T extends { invoices: number; name: string | null }>(a: T, b: T) =>
    b.invoices - a.invoices || (a.name ?? '').localeCompare(b.name ?? '');
  return {
    connection: input.connection,
    policy: input.policy,
    period: { from: input.from.toISOString(), to: input.to.toISOString() },
    counts,
    rules: [...byRule]
      .map(([rule, invoices]) => ({ rule, invoices }))
      .sort((a, b) => b.invoices - a.invoices || a.rule.localeCompare(b.rule)),
    blocked: blocked.sort(
      (a, b) => (a.issueDate ?? '').localeCompare(b.issueDate ?? '') || a.id.localeCompare(b.id),
    ),
    partnersToFix: [...toFix.values()].sort(byCount),
    partnersWithoutDic: [...withoutDic.values()].sort(byCount),
    notChecked,
  };
}
