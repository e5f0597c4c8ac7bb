import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { offers } from '#functions/core/route-spec.js';
import { defineScheduledAction } from '../action-definition.js';
import { einvoicingActive } from '../send-invoice/channel-policy.js';
import { sendingSettings } from '../send-invoice/settings.js';
import { READINESS_REPORTED, readinessReportedEntry } from './events.js';
import { type ReportReadinessDeps, reportReadiness } from './report-readiness.js';

/** Minutes in a day: the report's schedule. */
const DAILY = 24 * 60;

/** The registry entry (registry.ts): a daily report per connection while e-invoicing is on (as the tracker). */
export const reportEInvoicingReadinessAction = defineScheduledAction({
  name: 'report-einvoicing-readiness',
  module: import.meta.url,
  uses: ['reports'],
  // The policy it reports on is the sending's (ACTIONS_EINVOICING and the partner lists).
  settings: sendingSettings,
  events: [readinessReportedEntry],
  outcomes: [READINESS_REPORTED, ACTION_FAILED],
  deps: ({ api, publisher, clock, logger, config, reports }): ReportReadinessDeps => ({
    api,
    reports,
    publisher,
    clock,
    logger,
    config,
  }),
  run: (deps: ReportReadinessDeps) => () => reportReadiness(deps),
  schedules: (config) =>
    einvoicingActive(config) && offers(config, 'EInvoicing.status')
      ? [
          {
            id: 'report-einvoicing-readiness',
            description:
              'Write the e-invoicing readiness report of the last 90 days to the archive bucket and announce its counts.',
            rateMinutes: DAILY,
            timeoutSeconds: 300,
            // Locally the console's E-invoicing page shows the same report on demand.
            notLocal: true,
          },
        ]
      : [],
});
