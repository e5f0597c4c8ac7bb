/**
 * The pre-flight's rules: the EN 16931 and Peppol BIS Billing 3.0 rules a service document can
 * break, as data. Each has its official id, flag and text (quoted from the EN 16931 schematron
 * 1.3.16 and the Peppol BIS 3.0 schematron 3.0.19), the business terms it concerns, the service
 * fields it reads, and a check over the document's business terms (`business-terms.ts`) that
 * names the service field to fix. Amounts compare as the schematron does: sums at two decimals,
 * with the schematron's own tolerances (R120 ±0.02, BR-CO-17 and BR-S-08 within 1).
 *
 * Slovakia has no CIUS; the `SK-…` rules are this product's labels for the Slovak content
 * requirement (full postal addresses), not official ids.
 */
import type { EInvoiceRule } from './rule-kit.js';
import { amountRules } from './rules-amounts.js';
import { partyRules } from './rules-parties.js';

export type { EInvoiceRule, RuleSource, Violation } from './rule-kit.js';

/** Every rule of the pre-flight, the document and parties first, then the amounts. */
export const einvoiceRules: readonly EInvoiceRule[] = [...partyRules, ...amountRules];

/** A rule by its id. */
export function ruleById(id: string): EInvoiceRule | undefined {
  return einvoiceRules.find((r) => r.id === id);
}
