/**
 * Which environment variable names each resource a function is given. The names themselves live
 * once in functions/shared/env-names.ts; this only says which of them infra sets for what.
 */
import { ENV } from '#functions/shared/env-names.js';

export const FUNCTION_ENV = {
  credentialsSecret: ENV.credentialsSecret,
  serviceVariant: ENV.serviceVariant,
  baseUrl: ENV.baseUrl,
  authUrl: ENV.authUrl,
  idempotencyTable: ENV.actionsIdempotencyTable,
  archiveBucket: ENV.actionsArchiveBucket,
  actionStateTable: ENV.actionsStateTable,
  deadLetterQueueUrl: ENV.actionsDeadLetterQueueUrl,
  checkpointsTable: ENV.pollerCheckpointsTable,
  eventBusName: ENV.eventBusName,
  claimCheckBucket: ENV.claimCheckBucket,
  collections: ENV.pollerCollections,
  connection: ENV.connection,
  eventSource: ENV.eventSource,
} as const;
