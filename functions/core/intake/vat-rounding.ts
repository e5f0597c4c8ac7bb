/**
 * VAT as shops round it. A shop (Shopify, WooCommerce) computes the VAT of every line and rounds
 * it to the cent; the service computes each item's VAT by its own rule (order-totals.ts). The two
 * agree on almost every line but not on all: a tie, a half-even rule, a unit-by-unit rule. Over
 * many lines the VAT of a rate legitimately drifts a few cents from ours.
 *
 * The rule: the order's amounts net of that drift must match to the cent (the total with VAT when
 * prices include VAT; the total without VAT when they do not), and the shop's VAT of each rate may
 * differ from the exact (unrounded) VAT of the rate's items by at most what rounding every line
 * can add up to: half a cent per line (`0.005 × lines`). Within that bound the order is imported
 * with the shop's VAT; beyond it, or with any other difference, it is refused with both figures.
 *
 * The service's import settings cannot carry a VAT amount: `VatRounding` is `None` or
 * `NoneEveryRate` and `Rounding` rounds the total to whole units (cash rounding). So the shop's
 * VAT is carried by rounding items: per rate that differs, one item at that rate whose VAT is the
 * difference, and one item without VAT (zero rate) that brings the total back to the shop's.
 */
import {
  itemAmountsCents,
  normaliseTotals,
  type PricedItem,
  TotalsMismatchError,
  toCents,
  totalsOfItems,
} from './order-totals.js';
import type { OrderTotals } from './shop-order.js';

/** One rate whose VAT the shop rounded otherwise than the service would: figures in the currency. */
export interface VatDifference {
  ratePercent: number;
  /** The shop's VAT of the rate (what is imported). */
  shop: number;
  /** The VAT the service computes for the rate's items. */
  computed: number;
  /** Items (lines, shipping, fees) at the rate. */
  lines: number;
}

const rateKey = (percent: number): number => Math.round(percent * 100);
const money = (cents: number): string => (cents / 100).toFixed(2);

interface RateFigures {
  ratePercent: number;
  lines: number;
  /** Sum of the items' VAT as the service rounds each (cents). */
  computed: number;
  /** Sum of the items' exact VAT, unrounded (cents). */
  exact: number;
}

/** The exact VAT of an item (cents, unrounded) from its price as the service computes it. */
function exactVatCents(item: PricedItem): number {
  const { base, vat } = itemAmountsCents(item);
  const rate = item.ratePercent / 100;
  return item.pricesIncludeVat ? ((base + vat) * rate) / (1 + rate) : base * rate;
}

function figuresByRate(items: readonly PricedItem[]): Map<number, RateFigures> {
  const out = new Map<number, RateFigures>();
  for (const item of items) {
    const key = rateKey(item.ratePercent);
    const f = out.get(key) ?? { ratePercent: item.ratePercent, lines: 0, computed: 0, exact: 0 };
    f.lines += 1;
    f.computed += itemAmountsCents(item).vat;
    f.exact += exactVatCents(item);
    out.set(key, f);
  }
  return out;
}

/**
 * Compares the shop's totals with the priced items. Returns the rates whose VAT the shop rounded
 * otherwise, within the per-line bound (empty when everything equals); throws
 * `TotalsMismatchError` naming every figure otherwise.
 */
export function reconcileShopVat(
  shop: OrderTotals,
  items: readonly PricedItem[],
  pricesIncludeVat: boolean,
): VatDifference[] {
  const byRate = figuresByRate(items);
  const shopVat = new Map<number, number>();
  for (const r of shop.vatByRate) {
    const key = rateKey(r.ratePercent);
    shopVat.set(key, (shopVat.get(key) ?? 0) + toCents(r.vat));
  }
  const reasons: string[] = [];
  const differences: VatDifference[] = [];
  const keys = [...new Set([...shopVat.keys(), ...byRate.keys()])].sort((a, b) => b - a);
  for (const key of keys) {
    const s = shopVat.get(key) ?? 0;
    const f = byRate.get(key);
    const computed = f?.computed ?? 0;
    if (s === computed) continue;
    const lines = f?.lines ?? 0;
    const bound = key === 0 ? 0 : lines * 0.5;
    const drift = Math.abs(s - (f?.exact ?? 0));
    if (drift > bound + 1e-6) {
      reasons.push(
        `vat ${key / 100} %: the shop's ${money(s)}, ours ${money(computed)} (beyond the rounding of ${lines} line${lines === 1 ? '' : 's'}, ±${(bound / 100).toFixed(3)})`,
      );
      continue;
    }
    differences.push({ ratePercent: key / 100, shop: s / 100, computed: computed / 100, lines });
  }
  const ours = totalsOfItems(items);
  // Prices without VAT: the shop's VAT is on top of the same amounts, so its total moves with it.
  const vatShift = pricesIncludeVat
    ? 0
    : differences.reduce((sum, d) => sum + toCents(d.shop - d.computed), 0);
  const expectedTotal = toCents(ours.total) + vatShift;
  const shopTotal = toCents(shop.total);
  if (shopTotal !== expectedTotal) {
    const rounded = vatShift === 0 ? '' : ` with the shop's VAT rounding ${money(vatShift)}`;
    reasons.unshift(`total: the shop's ${money(shopTotal)}, ours ${money(expectedTotal)}${rounded}`);
  }
  if (reasons.length > 0)
    throw new TotalsMismatchError(normaliseTotals(shop), normaliseTotals(ours), reasons);
  return differences;
}

/** A rounding item: its price (order's price mode) and rate; `balance` is the zero-rate remainder. */
export interface RoundingItem {
  kind: 'vat' | 'balance';
  ratePercent: number;
  unitPrice: number;
}

/** The price (cents, order's price mode) of one item at `ratePercent` whose VAT is `vatCents`. */
function priceWithVat(vatCents: number, ratePercent: number, pricesIncludeVat: boolean): number {
  const r = ratePercent / 100;
  const estimate = Math.round(pricesIncludeVat ? (vatCents * (1 + r)) / r : vatCents / r);
  for (let step = 0; step <= 200; step += 1) {
    for (const cents of [estimate + step, estimate - step]) {
      const item = { quantity: 1, unitPrice: cents / 100, discountPercent: 0, pricesIncludeVat, ratePercent };
      if (itemAmountsCents(item).vat === vatCents) return cents;
    }
  }
  throw new Error(`no price carries a VAT of ${vatCents} cents at ${ratePercent} %`);
}

/**
 * The rounding items that make the service's totals equal the shop's: per difference one item at
 * its rate whose VAT is the difference, and one zero-rate item for what is left of the total.
 */
export function vatRoundingItems(
  shop: OrderTotals,
  items: readonly PricedItem[],
  differences: readonly VatDifference[],
  pricesIncludeVat: boolean,
): RoundingItem[] {
  if (differences.length === 0) return [];
  const out: RoundingItem[] = differences.map((d) => ({
    kind: 'vat',
    ratePercent: d.ratePercent,
    unitPrice: priceWithVat(toCents(d.shop - d.computed), d.ratePercent, pricesIncludeVat) / 100,
  }));
  const withVat = [...items, ...out.map((r) => pricedRoundingItem(r, pricesIncludeVat))];
  const sofar = toCents(totalsOfItems(withVat).total);
  const balance = toCents(shop.total) - sofar;
  if (balance !== 0) out.push({ kind: 'balance', ratePercent: 0, unitPrice: balance / 100 });
  return out;
}

/** A rounding item as the service prices it. */
export function pricedRoundingItem(item: RoundingItem, pricesIncludeVat: boolean): PricedItem {
  return {
    quantity: 1,
    unitPrice: item.unitPrice,
    discountPercent: 0,
    pricesIncludeVat,
    ratePercent: item.ratePercent,
  };
}
