import { ACTION_FAILED } from '../../events/action-events.js';
import { offers, type RouteSpec } from '../../route-spec.js';
import { actionContextDeps, defineEventAction } from '../action-definition.js';
import { EMAIL_SENT, emailSentEntry, SENDING_HELD, sendingHeldEntry } from './events.js';
import { type SendDeps, sendInvoice, sendingRoute } from './send-invoice.js';
import { sendingSettings } from './settings.js';

export const sendInvoiceAction = defineEventAction({
  name: 'send-invoice',
  module: import.meta.url,
  uses: ['idempotency', 'actionState'],
  settings: sendingSettings,
  // One sending function: the channel follows the record the service holds, not the event.
  events: [emailSentEntry, sendingHeldEntry],
  outcomes: [EMAIL_SENT, SENDING_HELD, ACTION_FAILED],
  deps: (p): SendDeps => ({
    ...actionContextDeps(p),
    guard: p.idempotency,
    ...(p.config.sending.einvoicePartners.length > 0 ? { sendings: p.actionState } : {}),
  }),
  run: (deps: SendDeps) => (event, options) => sendInvoice(deps, event, options),
  routes: (config) => {
    const { einvoicePartners, emailPartners } = config.sending;
    const out: RouteSpec[] = [];
    if (einvoicePartners.length > 0 && offers(config, 'Documents.sendEInvoice')) {
      out.push(
        sendingRoute(
          config,
          'send-einvoice',
          'Send each new issued invoice of a partner configured for e-invoicing through the network.',
          [...einvoicePartners],
        ),
      );
    }
    if (emailPartners.length > 0 && offers(config, 'Documents.sendEmail')) {
      out.push(
        sendingRoute(
          config,
          'send-email',
          'Send each new issued invoice of a partner configured for e-mail by e-mail.',
          emailPartners.map((p) => p.key),
        ),
      );
    }
    return out;
  },
});
