/**
 * The pre-flight of an e-invoice: the service's document, read as EN 16931 business terms, checked
 * against every rule (`rules.ts`). A fatal finding means the network would reject the invoice; it
 * is not sent.
 */
import { invoiceTerms, type TermsContext } from './business-terms.js';
import { type EInvoiceRule, einvoiceRules, type RuleSource } from './rules.js';

export interface Finding {
  rule: string;
  flag: 'fatal' | 'warning';
  source: RuleSource;
  /** The service field to fix. */
  field: string;
  message: string;
}

export interface PreflightResult {
  /** No fatal finding: the invoice may go. */
  passed: boolean;
  findings: Finding[];
  /** Rules about the seller, not checked when the seller is not known. */
  notChecked: string[];
}

export function preflight(
  document: Record<string, unknown>,
  ctx: TermsContext,
  rules: readonly EInvoiceRule[] = einvoiceRules,
): PreflightResult {
  const terms = invoiceTerms(document, ctx);
  const findings: Finding[] = [];
  const notChecked: string[] = [];
  for (const rule of rules) {
    if (rule.seller && !terms.seller) {
      notChecked.push(rule.id);
      continue;
    }
    for (const v of rule.check(terms)) {
      findings.push({
        rule: rule.id,
        flag: rule.flag,
        source: rule.source,
        field: v.field,
        message: v.message,
      });
    }
  }
  return { passed: !findings.some((f) => f.flag === 'fatal'), findings, notChecked };
}

/** The ids of the rules a result breaks, each once, in rule order. */
export function brokenRules(result: PreflightResult): string[] {
  return [...new Set(result.findings.map((f) => f.rule))];
}

/** VAT percentages by rate id and by rate type, from the service's `VatRates` list. */
export function vatPercentFrom(
  rates: readonly { Id?: unknown; VatRateType?: unknown; VatPercent?: unknown }[],
): TermsContext['vatPercent'] {
  const byId = new Map<string, number>();
  const byType = new Map<string, number>();
  for (const r of rates) {
    if (typeof r.VatPercent !== 'number') continue;
    if (typeof r.Id === 'string') byId.set(r.Id, r.VatPercent);
    if (typeof r.VatRateType === 'string' && !byType.has(r.VatRateType))
      byType.set(r.VatRateType, r.VatPercent);
  }
  return ({ vatRateId, vatRateType }) =>
    (vatRateId !== null ? byId.get(vatRateId) : undefined) ??
    (vatRateType !== null ? byType.get(vatRateType) : undefined) ??
    null;
}
