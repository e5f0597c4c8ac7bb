/**
 * Names of every environment variable the functions read, once. `infra/` sets them and
 * the config loaders read them through these constants, so a rename cannot drift.
 */
export const ENV = {
  // Accounting service (client)
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
  pageSize: 'ACCOUNTING_PAGE_SIZE',
  pathOverrides: 'ACCOUNTING_PATH_OVERRIDES',
  tokenRenewMarginSeconds: 'ACCOUNTING_TOKEN_RENEW_MARGIN_SECONDS',
} as const;
