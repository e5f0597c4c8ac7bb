/**
 * The reconciliation's figures: the shop's totals normalised (VAT summed per rate, in whole cents,
 * rates with no VAT left out, highest rate first), every difference named with both figures, and
 * the refusal that carries them.
 */
import { describe, expect, it } from 'vitest';
import {
  assertTotalsMatch,
  normaliseTotals,
  TotalsMismatchError,
  totalsDifferences,
  totalsOfItems,
} from '#functions/core/intake/order-totals.js';

describe('normaliseTotals', () => {
  it('sums VAT per rate in cents, leaves out rates without VAT and sorts the highest rate first', () => {
    expect(
      normaliseTotals({
        total: 10.005,
        vatByRate: [
          { ratePercent: 5, vat: 0.5 },
          { ratePercent: 10.5, vat: 0.3 },
          { ratePercent: 23, vat: 1 },
          { ratePercent: 5, vat: 0.25 },
          { ratePercent: 19, vat: 0 },
          { ratePercent: 12, vat: 0.01 },
          { ratePercent: 12, vat: -0.01 },
        ],
      }),
    ).toEqual({
      total: 10.01,
      vatByRate: [
        { ratePercent: 23, vat: 1 },
        { ratePercent: 10.5, vat: 0.3 },
        { ratePercent: 5, vat: 0.75 },
      ],
    });
  });
});

describe('totalsDifferences', () => {
  it('names the total and each rate that differs, highest rate first, with both figures', () => {
    const shop = {
      total: 10,
      vatByRate: [
        { ratePercent: 5, vat: 0.2 },
        { ratePercent: 23, vat: 1.5 },
      ],
    };
    const service = {
      total: 10.5,
      vatByRate: [
        { ratePercent: 10.5, vat: 0.3 },
        { ratePercent: 23, vat: 1.5 },
      ],
    };
    expect(totalsDifferences(shop, service, "the service's")).toEqual([
      "total: the shop's 10.00, the service's 10.50",
      "vat 10.5 %: the shop's 0.00, the service's 0.30",
      "vat 5 %: the shop's 0.20, the service's 0.00",
    ]);
    expect(totalsDifferences(shop, { ...shop, vatByRate: [...shop.vatByRate].reverse() }, 'x')).toEqual([]);
  });

  it('a rate with no VAT on one side equals the rate left out on the other', () => {
    expect(
      totalsDifferences(
        { total: 1, vatByRate: [{ ratePercent: 0, vat: 0 }] },
        { total: 1, vatByRate: [] },
        'x',
      ),
    ).toEqual([]);
  });
});

describe('assertTotalsMatch', () => {
  it('refuses with every reason, both figures normalised, calling the mapped side ours', () => {
    const shop = { total: 12.3, vatByRate: [{ ratePercent: 23, vat: 2.29 }] };
    const ours = totalsOfItems([
      { quantity: 1, unitPrice: 10.01, discountPercent: 0, pricesIncludeVat: false, ratePercent: 23 },
    ]);
    let refused: unknown;
    try {
      assertTotalsMatch(shop, ours);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(TotalsMismatchError);
    const error = refused as TotalsMismatchError;
    expect(error.name).toBe('TotalsMismatchError');
    expect(error.reasons).toEqual([
      "total: the shop's 12.30, ours 12.31",
      "vat 23 %: the shop's 2.29, ours 2.30",
    ]);
    expect(error.message).toBe(
      "the order's totals differ from the shop's: total: the shop's 12.30, ours 12.31; vat 23 %: the shop's 2.29, ours 2.30",
    );
    expect(error.shop).toEqual(shop);
    expect(error.ours).toEqual({ total: 12.31, vatByRate: [{ ratePercent: 23, vat: 2.3 }] });
    expect(() => assertTotalsMatch(shop, shop)).not.toThrow();
  });
});
