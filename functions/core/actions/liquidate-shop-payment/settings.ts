/**
 * The shop payment action's settings (`config.shopPayments`): which shops' payments liquidate the
 * invoice made from the order — off for every shop by default, because a gateway's payout that a
 * bank statement lists later must not pay the same invoice again (docs/payments.md) — and how long
 * a payment waits for that invoice.
 */
import * as z from 'zod';
import { intakeSources } from '#functions/core/events/intake-events.js';
import { defineActionSettings, list, type SectionOf } from '../action-settings.js';

export const DEFAULT_SHOP_PAYMENT_WAIT_MINUTES = 30;

const sources = list.pipe(
  z.array(
    z.enum(intakeSources, {
      error: `expected a comma-separated list of ${intakeSources.join(', ')}`,
    }),
  ),
);

export const shopPaymentSettings = defineActionSettings(
  'shopPayments',
  {
    ACTIONS_SHOP_PAYMENTS: {
      schema: sources,
      default: '—',
      description: `the shops whose paid orders liquidate their invoice (${intakeSources.join(', ')}); none by default`,
    },
    ACTIONS_SHOP_PAYMENT_WAIT_MINUTES: {
      schema: z.coerce
        .number({ error: 'expected whole minutes (1…60)' })
        .int({ error: 'expected whole minutes (1…60)' })
        .min(1, { error: 'expected whole minutes (1…60)' })
        .max(60, { error: 'expected whole minutes (1…60)' })
        .optional()
        .transform((v) => v ?? DEFAULT_SHOP_PAYMENT_WAIT_MINUTES),
      default: String(DEFAULT_SHOP_PAYMENT_WAIT_MINUTES),
      description:
        "minutes a shop's payment waits for the invoice made from its order before it is unmatched",
    },
  },
  (e) => ({
    /** The shop platforms whose payments liquidate. */
    sources: e.ACTIONS_SHOP_PAYMENTS,
    waitMinutes: e.ACTIONS_SHOP_PAYMENT_WAIT_MINUTES,
  }),
);

declare module '../config.js' {
  interface ActionSections {
    shopPayments: SectionOf<typeof shopPaymentSettings>;
  }
}
