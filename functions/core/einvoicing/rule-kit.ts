/**
 * What the rules of the pre-flight share: their shape, and the helpers their checks use (cent
 * arithmetic, the rounding steps of the service, the breakdown against its lines).
 */
import type {
  BreakdownTerms,
  InvoiceTerms,
  LineTerms,
  PartyTerms,
  Term,
  VatCategory,
} from './business-terms.js';

export type RuleSource = 'EN 16931' | 'Peppol BIS 3.0' | 'Slovakia';

export interface Violation {
  /** The service field to fix. */
  field: string;
  message: string;
}

export interface EInvoiceRule {
  id: string;
  flag: 'fatal' | 'warning';
  source: RuleSource;
  /** The official text, as published. */
  text: string;
  /** Business terms (BT-…/BG-…) the rule concerns. */
  terms: readonly string[];
  /** The service fields the check reads. */
  reads: readonly string[];
  /** A rule about the seller: checked only when the seller is known. */
  seller?: true;
  check(invoice: InvoiceTerms): Violation[];
}

export const cents = (n: number) => Math.round(n * 100);
export const show = (c: number) => (c / 100).toFixed(2);

export function missing(term: Term<unknown>, what: string): Violation[] {
  return term.value === null ? [{ field: term.field, message: `${term.field} is empty: ${what}` }] : [];
}

export function sellerOnly(invoice: InvoiceTerms, check: (seller: PartyTerms) => Violation[]): Violation[] {
  return invoice.seller ? check(invoice.seller) : [];
}

export const ROUNDING_STEP_CENTS: Readonly<Record<string, number>> = {
  None: 0,
  MathToOne: 100,
  UpToOne: 100,
  DownToOne: 100,
  MathToHalf: 50,
  UpToHalf: 50,
  DownToHalf: 50,
  MathToTenth: 10,
  UpToTenth: 10,
  DownToTenth: 10,
  MathFiveCent: 5,
};

export function lineNetCents(lines: readonly LineTerms[]): number {
  return lines.reduce((sum, l) => sum + cents(l.net.value ?? 0), 0);
}

function linesOf(invoice: InvoiceTerms, category: VatCategory, rate: number | null): LineTerms[] {
  return invoice.lines.filter((l) => l.category === category && (category !== 'S' || l.rate.value === rate));
}

/** Lines of a category whose rate has no breakdown entry: the breakdown of that rate is 0. */
function uncoveredLines(invoice: InvoiceTerms, category: VatCategory): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const l of invoice.lines) {
    if (l.category !== category) continue;
    const covered = invoice.breakdown.some(
      (b) => b.category === category && (category !== 'S' || b.rate.value === l.rate.value),
    );
    const key = `${l.rate.value}`;
    if (covered || seen.has(key)) continue;
    seen.add(key);
    out.push({
      field: 'DocumentRecapitulation.VatRateSums',
      message: `DocumentRecapitulation.VatRateSums has no entry for the rate of ${l.path} (${l.vatRateType ?? 'unknown'})`,
    });
  }
  return out;
}

export function taxableAgainstLines(
  invoice: InvoiceTerms,
  category: VatCategory,
  withinCents: number,
): Violation[] {
  const out: Violation[] = [];
  for (const b of invoice.breakdown.filter((x: BreakdownTerms) => x.category === category)) {
    const sum = lineNetCents(linesOf(invoice, category, b.rate.value));
    const taxable = cents(b.taxable.value ?? 0);
    if (Math.abs(taxable - sum) > withinCents) {
      out.push({
        field: b.taxable.field,
        message: `${b.taxable.field} is ${show(taxable)}, its lines' net amounts sum to ${show(sum)}`,
      });
    }
  }
  return [...out, ...uncoveredLines(invoice, category)];
}

export function fullAddress(party: PartyTerms, who: string): Violation[] {
  const out: Violation[] = [];
  for (const [term, what] of [
    [party.street, 'street'],
    [party.city, 'city'],
    [party.postCode, 'postcode'],
    [party.country, 'country'],
  ] as const) {
    if (term.value === null)
      out.push({ field: term.field, message: `${term.field} is empty: the ${who}'s ${what}` });
  }
  return out;
}

export const buyerAddressFields = [
  'BusinessPartnerAddress.Street',
  'BusinessPartnerAddress.City',
  'BusinessPartnerAddress.PostCode',
  'BusinessPartnerAddress.Country',
];
