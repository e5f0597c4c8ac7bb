/**
 * The reconciliation invariant, property-based: generated Shopify and WooCommerce orders (lines,
 * quantities, prices, the connection's VAT rates, discounts of every kind, shipping, fees, prices
 * with and without tax) either map to a request the service prices at the shop's total and VAT per
 * rate, to the cent, or are refused for totals with both figures. Seeded, 1,000 runs per platform;
 * `TOTALS_PROPERTY_RUNS` sets another count (the intake's mutation run uses 100: each mutant runs
 * these tests, and the first few orders catch what 1,000 do there).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapShopOrder } from '#functions/core/intake/map-order.js';
import { TotalsMismatchError } from '#functions/core/intake/order-totals.js';
import {
  type IntakeSource,
  type OrderTotals,
  type ShopOrder,
  shopOrderSchema,
} from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { wooOrderSchema, wooToShopOrder } from '#functions/core/intake/woocommerce-order.js';
import { centsOf, refs, servicePricing, shopifyOrderArbitrary, wooOrderArbitrary } from './support-orders.js';

const options = loadIntakeConfig({ INTAKE_ORDER_NUMBER_FIELD: 'Note' }).mapping;
const fields = { registrationNumber: ['ico'], vatNumber: ['ic_dph'] };
const at = new Date('2026-11-20T10:00:00Z');
const RUNS = z.coerce
  .number({ error: 'TOTALS_PROPERTY_RUNS: expected a whole number of runs ≥ 100' })
  .int()
  .min(100, 'TOTALS_PROPERTY_RUNS: expected a whole number of runs ≥ 100')
  .default(1000)
  .parse(process.env.TOTALS_PROPERTY_RUNS);

function toShopOrder(source: IntakeSource, payload: unknown): ShopOrder {
  const order =
    source === 'shopify'
      ? shopifyToShopOrder(shopifyOrderSchema.parse(payload), fields)
      : wooToShopOrder(wooOrderSchema.parse(payload), fields);
  return shopOrderSchema.parse(order);
}

type Generated = { payload: Record<string, unknown>; totals: OrderTotals };

/** Maps one generated order and checks the invariant; says whether it was imported or refused. */
function check(source: IntakeSource, generated: Generated) {
  const order = toShopOrder(source, generated.payload);
  expect(centsOf(order.totals ?? { total: Number.NaN, vatByRate: [] })).toEqual(centsOf(generated.totals));
  try {
    const request = mapShopOrder(source, order, refs, options, at);
    expect(centsOf(servicePricing(request))).toEqual(centsOf(generated.totals));
    return 'imported' as const;
  } catch (error) {
    if (!(error instanceof TotalsMismatchError)) throw error;
    expect(centsOf(error.shop)).toEqual(centsOf(generated.totals));
    expect(centsOf(error.ours)).not.toEqual(centsOf(error.shop));
    expect(error.reasons.length).toBeGreaterThan(0);
    return 'refused' as const;
  }
}

describe('every generated shop order reconciles to the cent or is refused for totals', () => {
  for (const [source, arbitrary, seed] of [
    ['shopify', shopifyOrderArbitrary, 20261125],
    ['woocommerce', wooOrderArbitrary, 20261126],
  ] as const) {
    it(`${source}: ${RUNS} runs`, () => {
      const outcomes = { imported: 0, refused: 0 };
      let discounted = 0;
      const started = performance.now();
      fc.assert(
        fc.property(arbitrary, (generated: Generated) => {
          outcomes[check(source, generated)] += 1;
          const lines = toShopOrder(source, generated.payload).lines;
          if (
            lines.some(
              (l) => Math.round((l.lineTotal ?? 0) * 100) < Math.round(l.unitPrice * l.quantity * 100),
            )
          )
            discounted += 1;
        }),
        { numRuns: RUNS, seed },
      );
      const ms = Math.round(performance.now() - started);
      console.info(
        `${source}: ${RUNS} runs in ${ms} ms, ${outcomes.imported} imported, ${outcomes.refused} refused, ${discounted} with a discounted line`,
      );
      expect(discounted).toBeGreaterThan(RUNS / 4);
      expect(outcomes.imported + outcomes.refused).toBe(RUNS);
      // Orders priced the platform's way map exactly; a rounding tie is carried as the shop's VAT.
      expect(outcomes.refused).toBe(0);
    });
  }
});

/** The shop's totals moved by a few cents: never imported at ours (refused, or at the shop's VAT within its rounding). */
function perturbed(source: IntakeSource, generated: Generated, cents: number, onVat: boolean): Generated {
  const payload = structuredClone(generated.payload);
  const dec = (x: number) => x.toFixed(2);
  if (!onVat) {
    const field = source === 'shopify' ? 'total_price' : 'total';
    const moved = Number(payload[field]) + cents / 100;
    payload[field] = dec(moved);
    if (source === 'shopify')
      payload.total_price_set = { shop_money: { amount: dec(moved), currency_code: 'EUR' } };
  } else if (source === 'woocommerce') {
    const [first] = payload.tax_lines as { tax_total: string }[];
    if (first) first.tax_total = dec(Number(first.tax_total) + cents / 100);
  } else {
    const [line] = payload.line_items as { tax_lines: { price: string; price_set?: unknown }[] }[];
    const [tax] = line?.tax_lines ?? [];
    if (tax) {
      tax.price = dec(Number(tax.price) + cents / 100);
      tax.price_set = { shop_money: { amount: tax.price, currency_code: 'EUR' } };
    }
  }
  return { payload, totals: generated.totals };
}

describe('an order whose shop totals are off by a few cents is refused for totals with both figures, or carries the shop VAT within its per-line rounding', () => {
  for (const [source, arbitrary, seed] of [
    ['shopify', shopifyOrderArbitrary, 7],
    ['woocommerce', wooOrderArbitrary, 8],
  ] as const) {
    it(`${source}: ${RUNS} runs`, () => {
      const started = performance.now();
      let unmoved = 0;
      let withinRounding = 0;
      fc.assert(
        fc.property(
          arbitrary,
          fc.integer({ min: -5, max: 5 }).filter((c) => c !== 0),
          fc.boolean(),
          (generated: Generated, cents, onVat) => {
            const moved = perturbed(source, generated, cents, onVat);
            const order = toShopOrder(source, moved.payload);
            let refused: TotalsMismatchError | undefined;
            let request: ReturnType<typeof mapShopOrder> | undefined;
            try {
              request = mapShopOrder(source, order, refs, options, at);
            } catch (error) {
              if (!(error instanceof TotalsMismatchError)) throw error;
              refused = error;
            }
            // Moving the VAT of a line without tax lines (0 %, nothing to pay) moves nothing.
            const shop = centsOf(order.totals ?? generated.totals);
            if (JSON.stringify(shop) === JSON.stringify(centsOf(generated.totals))) {
              unmoved += 1;
              return;
            }
            // VAT moved within half a cent a line of an order whose prices include VAT is a shop's
            // per-line rounding: imported carrying the shop's VAT and total, never ours.
            if (request) {
              expect(onVat && order.pricesIncludeVat, 'only VAT within the rounding is imported').toBe(true);
              expect(centsOf(servicePricing(request))).toEqual(shop);
              withinRounding += 1;
              return;
            }
            expect(refused, 'refused').toBeInstanceOf(TotalsMismatchError);
            expect(centsOf(refused?.ours ?? generated.totals)).toEqual(centsOf(generated.totals));
            expect(centsOf(refused?.shop ?? generated.totals)).toEqual(
              centsOf(order.totals ?? generated.totals),
            );
          },
        ),
        { numRuns: RUNS, seed },
      );
      console.info(
        `${source} perturbed: ${RUNS} runs in ${Math.round(performance.now() - started)} ms, ${unmoved} with nothing moved, ${withinRounding} VAT moves within the per-line rounding imported at the shop's figures`,
      );
      expect(unmoved).toBeLessThan(RUNS / 10);
    });
  }
});
