/**
 * Environment variables of the delivery function (docs/deploy.md, HTTP consumers), once; infra
 * sets them and `core/delivery/delivery-function-config.ts` reads them through these constants.
 */
export const DELIVERY_ENV = {
  /** JSON array: per target its id, URL, queue ARN and URL, DLQ URL and signing secret ARN. */
  targets: 'DELIVERY_TARGETS',
  /** Attempts of one event before it is dead-lettered (the first one included). */
  maxAttempts: 'DELIVERY_MAX_ATTEMPTS',
  /** `true`: targets may be on private and loopback addresses (infra `deliveryPrivateTargets`). */
  privateTargets: 'DELIVERY_PRIVATE_TARGETS',
} as const;
