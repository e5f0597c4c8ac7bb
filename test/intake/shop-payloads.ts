/** The platforms' payloads as the intake reads them: fixtures from test/fixtures/intake, parsed to shop orders. */
import { readFileSync } from 'node:fs';
import { type IntakeSource, type ShopOrder, shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { wooOrderSchema, wooToShopOrder } from '#functions/core/intake/woocommerce-order.js';

export const intakeFixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/intake/${name}`, import.meta.url), 'utf8'));

/** The custom fields the checkout's IČO and IČ DPH come in. */
export const checkoutFields = { registrationNumber: ['ico'], vatNumber: ['ic_dph'] };

/** A Shopify or WooCommerce payload, parsed and mapped to the intake's shop order. */
export function shopOrderFrom(source: IntakeSource, payload: unknown): ShopOrder {
  return shopOrderSchema.parse(
    source === 'shopify'
      ? shopifyToShopOrder(shopifyOrderSchema.parse(payload), checkoutFields)
      : wooToShopOrder(wooOrderSchema.parse(payload), checkoutFields),
  );
}
