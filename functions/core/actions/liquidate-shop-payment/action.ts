import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { intakeEntry } from '#functions/core/events/intake-events.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from '../action-definition.js';
import { HOME_CURRENCY } from '../liquidate-payments/home-currency.js';
import { createOpenInvoices } from '../liquidate-payments/open-invoices.js';
import {
  SHOP_PAYMENT_RECORDED,
  SHOP_PAYMENT_UNMATCHED,
  shopPaymentRecordedEntry,
  shopPaymentUnmatchedEntry,
} from './events.js';
import { liquidateShopPayment, type ShopPaymentDeps } from './liquidate-shop-payment.js';
import { shopPaymentSettings } from './settings.js';

const paid = intakeEntry('Paid');

export const liquidateShopPaymentAction = defineEventAction({
  name: 'liquidate-shop-payment',
  module: import.meta.url,
  uses: ['idempotency'],
  settings: shopPaymentSettings,
  triggers: [paid],
  events: [shopPaymentRecordedEntry, shopPaymentUnmatchedEntry],
  outcomes: [SHOP_PAYMENT_RECORDED, SHOP_PAYMENT_UNMATCHED, ACTION_FAILED],
  deps: (p): ShopPaymentDeps => {
    const { api, publisher, clock, logger, config } = actionContextDeps(p);
    return {
      api,
      publisher,
      clock,
      logger,
      config,
      guard: p.idempotency,
      variant: config.variant,
      invoices: createOpenInvoices({ api, clock, homeCurrency: HOME_CURRENCY[config.variant] }),
    };
  },
  run: (deps: ShopPaymentDeps) => (event, options) => liquidateShopPayment(deps, event, options),
  // Always routed: each connection switches its shops on (`ACTIONS_SHOP_PAYMENTS`), and a payment
  // of a shop that is off is skipped; an `EshopOrder.Paid` comes only from a shop that reports it.
  routes: (config) => [
    {
      id: 'liquidate-shop-payment',
      description: "Liquidate the invoice made from a shop order by the shop's payment, once per payment.",
      pattern: { source: eventSourceOf(config), 'detail-type': [paid.detailType] },
      maxConcurrency: 2,
      // Six-minute visibility (6 × the timeout): 12 receives outlast the longest wait (60 minutes).
      maxReceiveCount: 12,
      timeoutSeconds: 60,
    },
  ],
});
