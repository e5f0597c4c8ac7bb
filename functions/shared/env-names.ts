/**
 * Names of every environment variable the functions read, once. `infra/` sets them and
 * the config loaders read them through these constants, so a rename cannot drift.
 */
export const ENV = {
  /** The connection (company) whose events these are; read by the poller and the actions. */
  connection: 'ACCOUNTING_CONNECTION',
  /** Log level of a function (`debug`, `info`, `warn`, `error`, `silent`); set by infra on every function. */
  logLevel: 'LOG_LEVEL',
  // Accounting service (client)
  /** National variant of the service (`sk` or `cz`): endpoint catalog, collections, URL and scope presets. */
  serviceVariant: 'ACCOUNTING_SERVICE_VARIANT',
  baseUrl: 'ACCOUNTING_BASE_URL',
  authUrl: 'ACCOUNTING_AUTH_URL',
  apiKey: 'ACCOUNTING_API_KEY',
  clientId: 'ACCOUNTING_CLIENT_ID',
  clientSecret: 'ACCOUNTING_CLIENT_SECRET',
  scope: 'ACCOUNTING_SCOPE',
  /** Secrets Manager secret (ARN or name) holding the credentials as JSON; used on AWS instead of the four above. */
  credentialsSecret: 'ACCOUNTING_CREDENTIALS_SECRET',
  requestTimeoutMs: 'ACCOUNTING_REQUEST_TIMEOUT_MS',
  connectTimeoutMs: 'ACCOUNTING_CONNECT_TIMEOUT_MS',
  maxAttempts: 'ACCOUNTING_MAX_ATTEMPTS',
  retryBaseDelayMs: 'ACCOUNTING_RETRY_BASE_DELAY_MS',
  retryMaxDelayMs: 'ACCOUNTING_RETRY_MAX_DELAY_MS',
  /** Longest `Retry-After` the client waits for; a longer one ends the call with `RateLimitedError`. */
  retryAfterMaxMs: 'ACCOUNTING_RETRY_AFTER_MAX_MS',
  pageSize: 'ACCOUNTING_PAGE_SIZE',
  pathOverrides: 'ACCOUNTING_PATH_OVERRIDES',
  tokenRenewMarginSeconds: 'ACCOUNTING_TOKEN_RENEW_MARGIN_SECONDS',
  // AWS adapters (functions/adapters/aws/adapter-config.ts)
  eventBusName: 'EVENT_BUS_NAME',
  eventPublishMaxAttempts: 'EVENT_PUBLISH_MAX_ATTEMPTS',
  eventMaxEntrySizeBytes: 'EVENT_MAX_ENTRY_SIZE_BYTES',
  pollerCheckpointsTable: 'POLLER_CHECKPOINTS_TABLE',
  claimCheckBucket: 'CLAIM_CHECK_BUCKET',
  credentialsCacheSeconds: 'ACCOUNTING_CREDENTIALS_CACHE_SECONDS',
  /** SSM path of the deployment's data keys of sealed credentials (`<path>/<keyId>`, SecureStrings). */
  sealingKeysPath: 'ACCOUNTING_SEALING_KEYS_PATH',
  // Poller (functions/wiring/poller-config.ts, docs/poller.md)
  eventSource: 'EVENT_SOURCE',
  pollerCollections: 'POLLER_COLLECTIONS',
  pollerConcurrency: 'POLLER_CONCURRENCY',
  pollerLookbackSeconds: 'POLLER_LOOKBACK_SECONDS',
  pollerPageSize: 'POLLER_PAGE_SIZE',
  pollerDedupeCapacity: 'POLLER_DEDUPE_CAPACITY',
  pollerMinRemainingMs: 'POLLER_MIN_REMAINING_MS',
  pollerReconcileIntervalSeconds: 'POLLER_RECONCILE_INTERVAL_SECONDS',
  pollerReferenceIntervalSeconds: 'POLLER_REFERENCE_INTERVAL_SECONDS',
  pollerStartFrom: 'POLLER_START_FROM',
  /** `true` turns payment detection on (docs/payments.md). */
  pollerPayments: 'POLLER_PAYMENTS',
  pollerPaymentIntervalSeconds: 'POLLER_PAYMENT_INTERVAL_SECONDS',
  pollerPaymentReconcileIntervalSeconds: 'POLLER_PAYMENT_RECONCILE_INTERVAL_SECONDS',
  // The poller of shards of connections (functions/handlers/poll-connections.ts; docs/poller.md, docs/deploy.md)
  /** The connection registry table (DynamoDB); unset: the single-company registry of one. */
  connectionsTable: 'POLLER_CONNECTIONS_TABLE',
  /** The token buckets of the connections (DynamoDB): the actions', and the poller's 429 pauses. */
  rateLimitTable: 'POLLER_RATE_LIMIT_TABLE',
  /** `true` turns the per-connection metrics of the poller on (a custom metric set per connection). */
  pollerConnectionMetrics: 'POLLER_CONNECTION_METRICS',
  /** `true`: the pollers' metrics keep their per-detail-type and per-collection dimensions (functions/handlers/poll-metrics.ts). */
  pollerDetailedMetrics: 'POLLER_DETAILED_METRICS',
  /** Connections of a shard the poller polls at once. */
  pollerParallelConnections: 'POLLER_PARALLEL_CONNECTIONS',
  /** Seconds one connection starts new pages per cycle (its backfill goes on in the next cycles). */
  pollerConnectionBudgetSeconds: 'POLLER_CONNECTION_BUDGET_SECONDS',
  /** Clients the connection poller keeps per container (least recently used closed first). */
  pollerMaxClients: 'POLLER_MAX_CLIENTS',
  // Sandbox (sandbox/main.ts; flags win over these)
  sandboxPort: 'SANDBOX_PORT',
  sandboxHost: 'SANDBOX_HOST',
  sandboxSeed: 'SANDBOX_SEED',
  sandboxVariant: 'SANDBOX_VARIANT',
  sandboxDocuments: 'SANDBOX_DOCUMENTS',
  sandboxPartners: 'SANDBOX_PARTNERS',
  sandboxMaxPageSize: 'SANDBOX_MAX_PAGE_SIZE',
  sandboxPrecision: 'SANDBOX_PRECISION',
  sandboxIsdocDelayMs: 'SANDBOX_ISDOC_DELAY_MS',
  sandboxTokenLifetime: 'SANDBOX_TOKEN_LIFETIME',
  sandboxActivity: 'SANDBOX_ACTIVITY',
  sandboxActivityWeights: 'SANDBOX_ACTIVITY_WEIGHTS',
  sandboxFaults: 'SANDBOX_FAULTS',
  // Actions, shared (functions/core/actions/config.ts); each action's own are in its settings.ts
  actionsIdempotencyTable: 'ACTIONS_IDEMPOTENCY_TABLE',
  actionsIdempotencyExpiresSeconds: 'ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS',
  actionsArchiveBucket: 'ACTIONS_ARCHIVE_BUCKET',
  actionsStateTable: 'ACTIONS_STATE_TABLE',
  /** The route's dead-letter queue URL: invalid events are sent there on their first receive. */
  actionsDeadLetterQueueUrl: 'ACTIONS_DEAD_LETTER_QUEUE_URL',
  actionsReferenceLookbackSeconds: 'ACTIONS_REFERENCE_LOOKBACK_SECONDS',
  /** The bucket bank statements are dropped into (`bank-statements/<connection>/…`; functions/handlers/import-bank-statements.ts). */
  bankStatementsBucket: 'BANK_STATEMENTS_BUCKET',
} as const;
