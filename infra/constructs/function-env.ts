/**
 * Which environment variable names each resource a function is given. The names themselves live
 * once in functions/shared/env-names.ts; this only says which of them infra sets for what.
 */
import { ENV } from '../../functions/shared/env-names.js';

export const FUNCTION_ENV = {
  credentialsSecret: ENV.credentialsSecret,
  baseUrl: ENV.baseUrl,
  authUrl: ENV.authUrl,
  idempotencyTable: ENV.actionsIdempotencyTable,
  archiveBucket: ENV.actionsArchiveBucket,
  actionStateTable: ENV.actionsStateTable,
  actionsConnection: ENV.actionsConnection,
  checkpointsTable: 'POLLER_CHECKPOINTS_TABLE',
  eventBusName: 'EVENT_BUS_NAME',
  claimCheckBucket: 'CLAIM_CHECK_BUCKET',
  collections: 'POLLER_COLLECTIONS',
  connection: 'POLLER_CONNECTION',
  eventSource: 'EVENT_SOURCE',
} as const;
