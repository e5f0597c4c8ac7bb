import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { offers, type RouteSpec } from '#functions/core/route-spec.js';
import { actionContextDeps, defineEventAction } from '../action-definition.js';
import { einvoicingActive, einvoicingPolicy } from './channel-policy.js';
import {
  EINVOICE_BLOCKED,
  EMAIL_SENT,
  einvoiceBlockedEntry,
  emailSentEntry,
  SENDING_HELD,
  sendingHeldEntry,
  sendingReleasedEntry,
} from './events.js';
import { type SendDeps, sendInvoice, sendingRoute } from './send-invoice.js';
import { sendingSettings } from './settings.js';

export const sendInvoiceAction = defineEventAction({
  name: 'send-invoice',
  module: import.meta.url,
  uses: ['idempotency', 'actionState'],
  settings: sendingSettings,
  // One sending function: the channel follows the record the service holds, not the event.
  // SendingReleased is a person's (holds release, the console), recorded under this action's outcomes.
  events: [emailSentEntry, sendingHeldEntry, sendingReleasedEntry, einvoiceBlockedEntry],
  outcomes: [EMAIL_SENT, SENDING_HELD, EINVOICE_BLOCKED, ACTION_FAILED],
  deps: (p): SendDeps => ({
    ...actionContextDeps(p),
    guard: p.idempotency,
    state: p.actionState,
    ...(einvoicingActive(p.config)
      ? { sendings: p.actionState, blocks: p.actionState as CheckpointStore<unknown> }
      : {}),
  }),
  run: (deps: SendDeps) => (event, options) => sendInvoice(deps, event, options),
  routes: (config) => {
    const { einvoicePartners, emailPartners, mandateFallback } = config.sending;
    const einvoicing = einvoicingPolicy(config);
    const out: RouteSpec[] = [];
    if (einvoicingActive(config) && offers(config, 'Documents.sendEInvoice')) {
      const partners = einvoicing === 'mandate-sk' ? 'all' : [...einvoicePartners];
      out.push(
        sendingRoute(
          config,
          'send-einvoice',
          einvoicing === 'mandate-sk'
            ? 'Send each new issued invoice of a Slovak partner with a DIČ (or listed) through the network, after the pre-flight.'
            : 'Send each new issued invoice of a partner configured for e-invoicing through the network, after the pre-flight.',
          partners,
        ),
        sendingRoute(
          config,
          'send-einvoice-fixed',
          'Check an e-invoice the pre-flight blocked again when it is updated, and send it once it passes.',
          partners,
          'Updated',
        ),
      );
    }
    const emailByFallback = einvoicing === 'mandate-sk' && mandateFallback === 'email';
    if ((emailPartners.length > 0 || emailByFallback) && offers(config, 'Documents.sendEmail')) {
      // Under the mandate every new invoice already reaches the action (one route, one channel each).
      if (!(einvoicing === 'mandate-sk' && out.length > 0)) {
        out.push(
          sendingRoute(
            config,
            'send-email',
            'Send each new issued invoice of a partner configured for e-mail by e-mail.',
            emailByFallback ? 'all' : emailPartners.map((p) => p.key),
          ),
        );
      }
    }
    return out;
  },
});
