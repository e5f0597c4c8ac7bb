import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { offers } from '#functions/core/route-spec.js';
import { defineScheduledAction } from '../action-definition.js';
import { einvoicingActive } from '../send-invoice/channel-policy.js';
import { sendingSettings } from '../send-invoice/settings.js';
import { type TrackActionDeps, trackEInvoices } from './einvoice-tracking.js';
import { EINVOICE_STATUS_CHANGED, einvoiceStatusChangedEntry } from './events.js';

export const trackEInvoicesAction = defineScheduledAction({
  name: 'track-einvoices',
  module: import.meta.url,
  uses: ['actionState', 'sendingRecords'],
  settings: sendingSettings,
  events: [einvoiceStatusChangedEntry],
  outcomes: [EINVOICE_STATUS_CHANGED, ACTION_FAILED],
  deps: ({ api, publisher, clock, logger, config, actionState, sendingRecords }): TrackActionDeps => ({
    api,
    sendings: actionState,
    records: sendingRecords,
    publisher,
    clock,
    logger,
    maxOpenSendings: config.sending.maxOpenSendings,
    connection: config.connection,
  }),
  run: (deps: TrackActionDeps) => () => trackEInvoices(deps, deps.connection),
  schedules: (config) =>
    einvoicingActive(config) && offers(config, 'EInvoicing.status')
      ? [
          {
            id: 'track-einvoices',
            description: 'Poll the status of open e-invoice sendings and emit each transition.',
            rateMinutes: 5,
            timeoutSeconds: 120,
          },
        ]
      : [],
});
