/**
 * The idempotency guard on Powertools' DynamoDB persistence layer: the production implementation of
 * the `IdempotencyGuard` port (same contract as `adapters/local/memory-idempotency-guard.ts`,
 * checked by one contract suite against both).
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { ActionInProgressError } from '#functions/core/actions/errors.js';
import type { IdempotencyGuard, IdempotencyKeyParts } from '#functions/core/actions/ports.js';

/** Prefix of every idempotency key: the same across functions and the local runtime. */
export const IDEMPOTENCY_KEY_PREFIX = 'accounting-actions';

export interface PowertoolsGuardOptions {
  client?: DynamoDBClient;
  tableName?: string;
  expiresAfterSeconds: number;
  /** A ready persistence layer (tests wrap one to simulate a crash); else one is built from client + table. */
  persistenceStore?: BasePersistenceLayer;
  /** Used when a run does not say how long it has (local runtime): bounds an in-progress record. */
  defaultRemainingTimeMs?: number;
}

/** The idempotency guard on Powertools' DynamoDB persistence layer (one layer per config). */
export function createPowertoolsGuard(options: PowertoolsGuardOptions): IdempotencyGuard {
  if (!options.persistenceStore && !options.tableName) {
    throw new Error('the idempotency guard needs a table name (ACTIONS_IDEMPOTENCY_TABLE)');
  }
  const persistenceStore =
    options.persistenceStore ??
    new DynamoDBPersistenceLayer({
      tableName: options.tableName ?? '',
      ...(options.client ? { awsSdkV3Client: options.client } : {}),
    });
  const config = new IdempotencyConfig({ expiresAfterSeconds: options.expiresAfterSeconds });
  const runner = makeIdempotent(
    async (_key: IdempotencyKeyParts, fn: () => Promise<unknown>): Promise<unknown> => fn(),
    { persistenceStore, config, dataIndexArgument: 0, keyPrefix: IDEMPOTENCY_KEY_PREFIX },
  );
  const defaultRemaining = options.defaultRemainingTimeMs ?? 60_000;
  return {
    async run<T>(key: IdempotencyKeyParts, fn: () => Promise<T>, runOptions?: { remainingTimeMs?: number }) {
      const remaining = runOptions?.remainingTimeMs ?? defaultRemaining;
      // Without a context Powertools never expires an in-progress record; a crashed run would block for days.
      config.registerLambdaContext({ getRemainingTimeInMillis: () => remaining } as Context);
      try {
        return (await runner(key, fn)) as T;
      } catch (error) {
        if (error instanceof IdempotencyAlreadyInProgressError) {
          // A crashed run leaves its record in progress until it expires: retrying sooner is useless.
          // Without the record (a store that does not return it), its expiry is at most `remaining`
          // away: the other run started no later than now with the same time limit.
          const expiry = error.existingRecord?.inProgressExpiryTimestamp;
          const retryAfterMs = (expiry === undefined ? remaining : Math.max(0, expiry - Date.now())) + 250;
          throw new ActionInProgressError(
            `${key.action}#${key.connection}#${key.recordId}`,
            { cause: error },
            retryAfterMs,
          );
        }
        throw error;
      }
    },
  };
}
