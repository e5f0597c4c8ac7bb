/**
 * The service's side of the reconciliation: the totals a created received order carries
 * (`DocumentRecapitulation`), read in the shop's terms, with each VAT rate type's percent as the
 * connection's list gives it on the order's date, or nothing to compare.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import { serviceTotals } from '#functions/core/intake/service-totals.js';
import { refs } from './support-orders.js';

const at = Date.parse('2026-11-20T10:00:00Z');
const record = (recap: unknown): ApiRecord => ({ Id: 'r-1', DocumentRecapitulation: recap }) as ApiRecord;

/** The basic rate changed on 2025-01-01 (20 → 23 %); a reduced rate is 10 % until 2026-12-31 and 9 % after (listed first). */
const changing: IntakeReferences = {
  ...refs,
  vatRates: [
    { type: 'BasicVatRate', percent: 20, validTo: Date.parse('2024-12-31T23:59:59Z') },
    { type: 'BasicVatRate', percent: 23, validFrom: Date.parse('2025-01-01T00:00:00Z') },
    { type: 'FirstReducedVatRate', percent: 9, validFrom: Date.parse('2027-01-01T00:00:00Z') },
    { type: 'FirstReducedVatRate', percent: 10, validTo: Date.parse('2026-12-31T23:59:59Z') },
  ],
};

describe('serviceTotals', () => {
  it('reads the total with VAT and the VAT per rate type as percent, in the recapitulation order', () => {
    const recap = {
      TotalPrice: 131.88,
      VatRateSums: [
        { VatRateType: 'SecondReducedVatRate', Vat: 1.67, Base: 33.4 },
        { VatRateType: 'BasicVatRate', Vat: 18.1, Base: 78.71 },
      ],
    };
    expect(serviceTotals(record(recap), refs, at)).toEqual({
      total: 131.88,
      vatByRate: [
        { ratePercent: 5, vat: 1.67 },
        { ratePercent: 23, vat: 18.1 },
      ],
    });
  });

  it('takes the percent valid on the date, the bounds included', () => {
    const recap = (type: string) => record({ TotalPrice: 10, VatRateSums: [{ VatRateType: type, Vat: 1 }] });
    const percentOn = (type: string, date: string) =>
      serviceTotals(recap(type), changing, Date.parse(date))?.vatByRate[0]?.ratePercent;
    expect(percentOn('BasicVatRate', '2024-06-01T00:00:00Z')).toBe(20);
    expect(percentOn('BasicVatRate', '2024-12-31T23:59:59Z')).toBe(20);
    expect(percentOn('BasicVatRate', '2025-01-01T00:00:00Z')).toBe(23);
    expect(percentOn('FirstReducedVatRate', '2026-12-31T23:59:59Z')).toBe(10);
    expect(percentOn('FirstReducedVatRate', '2027-01-01T00:00:00Z')).toBe(9);
  });

  it('a rate type the list lacks: nothing to compare; the zero rate is 0 % even when unlisted', () => {
    const sums = (type: string) => record({ TotalPrice: 10, VatRateSums: [{ VatRateType: type, Vat: 0 }] });
    expect(serviceTotals(sums('SecondReducedVatRate'), changing, at)).toBeUndefined();
    expect(serviceTotals(sums('ZeroVatRate'), changing, at)).toEqual({
      total: 10,
      vatByRate: [{ ratePercent: 0, vat: 0 }],
    });
    // Listed, the zero rate takes the list's percent.
    expect(serviceTotals(sums('ZeroVatRate'), refs, at)?.vatByRate).toEqual([{ ratePercent: 0, vat: 0 }]);
  });

  it('a rate outside its validity on the date: nothing to compare', () => {
    const only2024: IntakeReferences = {
      ...refs,
      vatRates: [{ type: 'BasicVatRate', percent: 20, validFrom: 0, validTo: Date.parse('2024-12-31') }],
    };
    const sums = record({ TotalPrice: 10, VatRateSums: [{ VatRateType: 'BasicVatRate', Vat: 1 }] });
    expect(serviceTotals(sums, only2024, at)).toBeUndefined();
    expect(serviceTotals(sums, only2024, Date.parse('2024-06-01'))?.vatByRate).toEqual([
      { ratePercent: 20, vat: 1 },
    ]);
  });

  it('no recapitulation, no numeric total or a VAT sum without a number: nothing to compare', () => {
    expect(serviceTotals({ Id: 'r-1' } as ApiRecord, refs, at)).toBeUndefined();
    expect(serviceTotals(record(null), refs, at)).toBeUndefined();
    expect(serviceTotals(record({ TotalPrice: '131.88', VatRateSums: [] }), refs, at)).toBeUndefined();
    expect(
      serviceTotals(record({ TotalPrice: 10, VatRateSums: [{ VatRateType: 'BasicVatRate' }] }), refs, at),
    ).toBeUndefined();
  });

  it('without VAT sums (or with none listed): the total alone', () => {
    expect(serviceTotals(record({ TotalPrice: 12.5 }), refs, at)).toEqual({ total: 12.5, vatByRate: [] });
    expect(serviceTotals(record({ TotalPrice: 12.5, VatRateSums: null }), refs, at)).toEqual({
      total: 12.5,
      vatByRate: [],
    });
  });
});
