/**
 * Custom metrics the functions publish with Powertools Metrics (embedded metric format), as the
 * dashboard and alarms read them. Namespace: `POWERTOOLS_METRICS_NAMESPACE`, set by `AppFunction`;
 * every metric carries the `service` dimension (`POWERTOOLS_SERVICE_NAME`).
 */
export const METRICS_NAMESPACE = 'AccountingEvents';

export const METRIC = {
  /** Poller: events accepted by the bus, per `detailType`. */
  eventsPublished: 'EventsPublished',
  /** Poller: requests sent to the accounting service. */
  apiRequests: 'ApiRequests',
  /** Poller: 429 answers of the accounting service. */
  rateLimited: 'RateLimited',
  /** Poller: now − watermark, seconds, per `collection`; also emitted without it as the maximum. */
  lagSeconds: 'LagSeconds',
  /** Actions: outcomes per `outcome` (e.g. transferred, archived, skipped, failed). */
  actionOutcomes: 'ActionOutcome',
  /** Actions: failed actions (an `Action.Failed` event was emitted). */
  actionFailed: 'ActionFailed',
} as const;

/** `service` dimension values. */
export const SERVICE = {
  poller: 'poller',
  action: (routeId: string) => `action-${routeId}`,
  scheduled: (id: string) => `scheduled-${id}`,
} as const;
