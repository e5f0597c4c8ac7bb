import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { BANK_TRANSACTION_RECEIVED } from '#functions/core/events/bank-events.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from '../action-definition.js';
import {
  ADVANCE_PAYMENT_RECORDED,
  advancePaymentRecordedEntry,
  BANK_TRANSACTION_UNMATCHED,
  bankTransactionUnmatchedEntry,
  INVOICE_PAYMENT_RECORDED,
  invoicePaymentRecordedEntry,
} from './events.js';
import { HOME_CURRENCY } from './home-currency.js';
import { type LiquidateDeps, liquidatePayment } from './liquidate-payment.js';
import { createOpenInvoices } from './open-invoices.js';

export const liquidatePaymentsAction = defineEventAction({
  name: 'liquidate-payments',
  module: import.meta.url,
  uses: ['idempotency'],
  events: [invoicePaymentRecordedEntry, advancePaymentRecordedEntry, bankTransactionUnmatchedEntry],
  outcomes: [INVOICE_PAYMENT_RECORDED, ADVANCE_PAYMENT_RECORDED, BANK_TRANSACTION_UNMATCHED, ACTION_FAILED],
  deps: (p): LiquidateDeps => {
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
  run: (deps: LiquidateDeps) => (event, options) => liquidatePayment(deps, event, options),
  routes: (config) => [
    {
      id: 'liquidate-payments',
      description:
        'Match each bank transaction of an imported statement to the open invoice it pays and liquidate it once.',
      pattern: { source: eventSourceOf(config), 'detail-type': [BANK_TRANSACTION_RECEIVED] },
      // As few at a time as a queue allows: two payments of one invoice should see each other's liquidation.
      maxConcurrency: 2,
      maxReceiveCount: 5,
      timeoutSeconds: 60,
    },
  ],
});
