/**
 * The service's side of the reconciliation: the totals the accounting service computed for a
 * created received order, in the shop's terms (total with VAT, VAT per rate percent), for the
 * import to compare with the shop's (`totalsDifferences` in order-totals.ts).
 */
import type { ApiRecord } from '#functions/accounting/api.js';
import type { IntakeReferences } from './references.js';
import type { OrderTotals } from './shop-order.js';

/**
 * The totals the service computed for a received order (`DocumentRecapitulation`: `TotalPrice`
 * and `VatRateSums`), with each VAT rate type's percent on `at`; undefined when the record carries
 * none or names a rate type the connection's list lacks.
 */
export function serviceTotals(
  record: ApiRecord,
  refs: IntakeReferences,
  at: number,
): OrderTotals | undefined {
  const recap = record.DocumentRecapitulation as
    | { TotalPrice?: unknown; VatRateSums?: { Vat?: unknown; VatRateType?: unknown }[] | null }
    | null
    | undefined;
  if (!recap || typeof recap.TotalPrice !== 'number') return undefined;
  const vatByRate: OrderTotals['vatByRate'] = [];
  for (const sum of recap.VatRateSums ?? []) {
    if (typeof sum.Vat !== 'number') return undefined;
    const valid = refs.vatRates.filter(
      (r) =>
        r.type === sum.VatRateType &&
        (r.validFrom === undefined || r.validFrom <= at) &&
        (r.validTo === undefined || at <= r.validTo),
    );
    const percent = valid[0]?.percent ?? (sum.VatRateType === 'ZeroVatRate' ? 0 : undefined);
    if (percent === undefined) return undefined;
    vatByRate.push({ ratePercent: percent, vat: sum.Vat });
  }
  return { total: recap.TotalPrice, vatByRate };
}
