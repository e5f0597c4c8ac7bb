/**
 * The reconciliation invariant of the intake: an imported order's total with VAT and its VAT per
 * rate equal the shop's own totals to the cent, or the order is refused (`TotalsMismatchError`).
 *
 * Money is compared in whole cents. An item's amounts follow the service's rule: the line's price
 * (quantity × unit price × (1 − discount %)) rounded to cents, half away from zero; without VAT →
 * VAT = the base × rate, rounded; with VAT → base = the price ÷ (1 + rate), rounded, VAT = the
 * rest. A rate's VAT is the sum of its items' VAT.
 */
import type { OrderTotals, RateVat } from './shop-order.js';

/** Whole cents, half away from zero (the epsilon absorbs binary noise such as 1.005 → 1.00499…). */
export function toCents(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value) * 100 + 1e-9);
}

const fromCents = (cents: number): number => cents / 100;

/** One item of the request as the service prices it. */
export interface PricedItem {
  quantity: number;
  unitPrice: number;
  discountPercent: number;
  pricesIncludeVat: boolean;
  ratePercent: number;
}

/** The item's price as the service computes it, in cents (same price mode as the unit price). */
export function itemPriceCents(item: Omit<PricedItem, 'ratePercent' | 'pricesIncludeVat'>): number {
  return toCents(item.quantity * item.unitPrice * (1 - item.discountPercent / 100));
}

/** Base and VAT of one item, in cents. */
export function itemAmountsCents(item: PricedItem): { base: number; vat: number } {
  const price = itemPriceCents(item);
  if (item.pricesIncludeVat) {
    const base = toCents(fromCents(price) / (1 + item.ratePercent / 100));
    return { base, vat: price - base };
  }
  return { base: price, vat: toCents((fromCents(price) * item.ratePercent) / 100) };
}

/** Rates equal to 1/100 of a percent share one key. */
const rateKey = (percent: number): number => Math.round(percent * 100);

/** Totals of priced items: the total with VAT and the VAT per rate (rates in first-seen order). */
export function totalsOfItems(items: readonly PricedItem[]): OrderTotals {
  let total = 0;
  const byRate = new Map<number, { ratePercent: number; vat: number }>();
  for (const item of items) {
    const { base, vat } = itemAmountsCents(item);
    total += base + vat;
    const key = rateKey(item.ratePercent);
    const entry = byRate.get(key) ?? { ratePercent: item.ratePercent, vat: 0 };
    entry.vat += vat;
    byRate.set(key, entry);
  }
  return {
    total: fromCents(total),
    vatByRate: [...byRate.values()].map((r) => ({ ratePercent: r.ratePercent, vat: fromCents(r.vat) })),
  };
}

/** VAT per rate in cents, rates with no VAT left out. */
function vatCents(list: readonly RateVat[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of list) {
    const key = rateKey(r.ratePercent);
    out.set(key, (out.get(key) ?? 0) + toCents(r.vat));
  }
  for (const [key, cents] of out) if (cents === 0) out.delete(key);
  return out;
}

/** Totals with the VAT per rate summed by rate, sorted by rate and in whole cents. */
export function normaliseTotals(totals: OrderTotals): OrderTotals {
  const vat = vatCents(totals.vatByRate);
  return {
    total: fromCents(toCents(totals.total)),
    vatByRate: [...vat.entries()]
      .sort(([a], [b]) => b - a)
      .map(([key, cents]) => ({ ratePercent: key / 100, vat: fromCents(cents) })),
  };
}

/** Every difference between `expected` (the shop's) and `actual`, each naming the figure; empty when equal. */
export function totalsDifferences(expected: OrderTotals, actual: OrderTotals, actualName: string): string[] {
  const out: string[] = [];
  const a = toCents(expected.total);
  const b = toCents(actual.total);
  if (a !== b)
    out.push(`total: the shop's ${fromCents(a).toFixed(2)}, ${actualName} ${fromCents(b).toFixed(2)}`);
  const shopVat = vatCents(expected.vatByRate);
  const ourVat = vatCents(actual.vatByRate);
  const keys = [...new Set([...shopVat.keys(), ...ourVat.keys()])].sort((x, y) => y - x);
  for (const key of keys) {
    const s = shopVat.get(key) ?? 0;
    const o = ourVat.get(key) ?? 0;
    if (s !== o)
      out.push(
        `vat ${key / 100} %: the shop's ${fromCents(s).toFixed(2)}, ${actualName} ${fromCents(o).toFixed(2)}`,
      );
  }
  return out;
}

/** The mapped order's (or the service's) totals differ from the shop's: nothing is imported. */
export class TotalsMismatchError extends Error {
  override readonly name = 'TotalsMismatchError';
  constructor(
    readonly shop: OrderTotals,
    readonly ours: OrderTotals,
    readonly reasons: string[],
    options?: { cause?: unknown },
  ) {
    super(`the order's totals differ from the shop's: ${reasons.join('; ')}`, options);
  }
}

/** Throws `TotalsMismatchError` unless `ours` equals `shop` to the cent (total and VAT per rate). */
export function assertTotalsMatch(shop: OrderTotals, ours: OrderTotals, oursName = 'ours'): void {
  const reasons = totalsDifferences(shop, ours, oursName);
  if (reasons.length > 0)
    throw new TotalsMismatchError(normaliseTotals(shop), normaliseTotals(ours), reasons);
}

/**
 * Unit price and discount that make the service's item price equal `lineTotalCents`: the shop's
 * unit price with the discount as a percentage, the shortest percentage (2 to 6 decimals) that
 * lands on the cent; else a unit price of up to 6 decimals without a discount. `exact` is false
 * when neither lands (the reconciliation then refuses the order).
 */
export function priceLine(
  quantity: number,
  unitPrice: number,
  lineTotalCents: number,
): { unitPrice: number; discountPercent: number; exact: boolean } {
  const fullCents = toCents(quantity * unitPrice);
  if (fullCents === lineTotalCents) return { unitPrice, discountPercent: 0, exact: true };
  const lands = (price: number, discount: number) =>
    itemPriceCents({ quantity, unitPrice: price, discountPercent: discount }) === lineTotalCents;
  const full = quantity * unitPrice;
  if (full > 0 && lineTotalCents >= 0 && lineTotalCents / 100 <= full) {
    const exactPercent = (1 - lineTotalCents / 100 / full) * 100;
    for (let places = 2; places <= 6; places += 1) {
      const d = Math.round(exactPercent * 10 ** places) / 10 ** places;
      if (d >= 0 && d <= 100 && lands(unitPrice, d)) return { unitPrice, discountPercent: d, exact: true };
    }
  }
  const perUnit = lineTotalCents / 100 / quantity;
  for (let places = 2; places <= 6; places += 1) {
    const p = Math.round(perUnit * 10 ** places) / 10 ** places;
    if (p >= 0 && lands(p, 0)) return { unitPrice: p, discountPercent: 0, exact: true };
  }
  return { unitPrice: Math.max(0, Math.round(perUnit * 1e6) / 1e6), discountPercent: 0, exact: false };
}
