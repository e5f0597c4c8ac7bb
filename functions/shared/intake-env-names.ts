/**
 * Environment variables of the e-shop order intake (docs/intake.md), once; `infra/` sets them
 * and `core/intake/intake-config.ts` reads them through these constants.
 */
export const INTAKE_ENV = {
  /** Signing secrets, one per source; a source without one is disabled (404). */
  shopifySecret: 'INTAKE_SHOPIFY_SECRET',
  woocommerceSecret: 'INTAKE_WOOCOMMERCE_SECRET',
  genericSecret: 'INTAKE_GENERIC_SECRET',
  /** Shoptet's webhook signature key (`POST /api/webhooks/renew-signature-key`). */
  shoptetSignatureKey: 'INTAKE_SHOPTET_SIGNATURE_KEY',
  /** Shoptet's API base URL (default Shoptet's own) and the token its orders are fetched with. */
  shoptetApiUrl: 'INTAKE_SHOPTET_API_URL',
  shoptetToken: 'INTAKE_SHOPTET_TOKEN',
  /** `private` (a Premium shop's private API token) or `access` (an add-on's access token). */
  shoptetTokenKind: 'INTAKE_SHOPTET_TOKEN_KIND',
  /** The reconciliation sweep: how often, where the shop's webhooks should point, and whether to re-register them. */
  shoptetSweepSeconds: 'INTAKE_SHOPTET_SWEEP_SECONDS',
  shoptetWebhookUrl: 'INTAKE_SHOPTET_WEBHOOK_URL',
  shoptetReregister: 'INTAKE_SHOPTET_REREGISTER_WEBHOOKS',
  /** On AWS: Secrets Manager secret (ARN or name) holding the Shoptet API token as `{"token": "…"}`. */
  shoptetTokenSecret: 'INTAKE_SHOPTET_TOKEN_SECRET',
  /** On AWS: Secrets Manager secret (ARN or name) holding the signing secrets above as JSON keys. */
  secretsSecret: 'INTAKE_SECRETS_SECRET',
  /** How long the secrets read from Secrets Manager are reused before they are read again. */
  secretsCacheSeconds: 'INTAKE_SECRETS_CACHE_SECONDS',
  /** How long a rotated secret's previous value is still accepted after the change was read. */
  secretsGraceSeconds: 'INTAKE_SECRETS_GRACE_SECONDS',
  maxBodyBytes: 'INTAKE_MAX_BODY_BYTES',
  /** A queue message over this many bytes carries a claim check of its order instead. */
  maxQueueMessageBytes: 'INTAKE_QUEUE_MESSAGE_MAX_BYTES',
  /** On AWS: the FIFO queue the endpoint sends accepted orders to. */
  queueUrl: 'INTAKE_QUEUE_URL',
  // Mapping options
  orderNumberField: 'INTAKE_ORDER_NUMBER_FIELD',
  orderText: 'INTAKE_ORDER_TEXT',
  partnerMatch: 'INTAKE_PARTNER_MATCH',
  homeCurrency: 'INTAKE_HOME_CURRENCY',
  matchPriceList: 'INTAKE_MATCH_PRICE_LIST',
  shippingCode: 'INTAKE_SHIPPING_CODE',
  paymentFeeCode: 'INTAKE_PAYMENT_FEE_CODE',
  registrationNumberFields: 'INTAKE_REGISTRATION_NUMBER_FIELDS',
  vatNumberFields: 'INTAKE_VAT_NUMBER_FIELDS',
  referenceCacheSeconds: 'INTAKE_REFERENCE_CACHE_SECONDS',
  lookbackSeconds: 'INTAKE_LOOKBACK_SECONDS',
} as const;
