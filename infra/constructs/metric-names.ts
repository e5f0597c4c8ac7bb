/**
 * Custom metrics the poller publishes with Powertools Metrics (embedded metric format), as the
 * dashboard and alarms read them (names from functions/handlers/shard-report.ts). The per-item
 * dimensions (`detailType`, `collection`) only with `detailedMetrics`: by default the sink folds
 * them away (functions/handlers/poll-metrics.ts). The actions
 * publish no metrics: their outcomes are the outcome events on the bus, which a rule copies to a
 * log group that the dashboard queries. Namespace: `POWERTOOLS_METRICS_NAMESPACE`, set by `AppFunction`;
 * every metric carries the `service` dimension (`POWERTOOLS_SERVICE_NAME`).
 */
export const METRICS_NAMESPACE = 'AccountingEvents';

export const METRIC = {
  /** Poller: events accepted by the bus (per `detailType` with `detailedMetrics`). */
  eventsPublished: 'EventsPublished',
  /** Poller: requests sent to the accounting service (with `detailedMetrics` only, as `rateLimited`). */
  apiRequests: 'ApiRequests',
  /** Poller: 429 answers of the accounting service. */
  rateLimited: 'RateLimited',
  /** Poller: collections whose poll failed or hit a checkpoint conflict in one run. */
  collectionsFailed: 'CollectionsFailed',
  /** Poller: now − watermark, milliseconds: the worst collection (per `collection` with `detailedMetrics`). */
  watermarkLagMs: 'WatermarkLagMs',
  /** Connection poller, per `connection`: events published, failed collections, worst lag, 1 while unhealthy. */
  connectionEventsPublished: 'ConnectionEventsPublished',
  connectionCollectionsFailed: 'ConnectionCollectionsFailed',
  connectionLagMs: 'ConnectionLagMs',
  connectionUnhealthy: 'ConnectionUnhealthy',
} as const;

/** `service` dimension values. */
export const SERVICE = {
  /**
   * The single-company deployment's poller (functions/handlers/poll-connections.ts, its registry of
   * one) keeps the service name `poll-changes`: its metrics' dimension, which the alarms read.
   */
  poller: 'poll-changes',
  /** The poller of the registry's shards (the same handler, with `connectionRegistry`). */
  connectionPoller: 'poll-connections',
  action: (routeId: string) => `action-${routeId}`,
  scheduled: (id: string) => `scheduled-${id}`,
} as const;
