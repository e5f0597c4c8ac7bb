/**
 * Import Lambda: consumes the intake's FIFO queue, one queued shop order → one received order,
 * exactly once (core/intake/import-order.ts). Partial batch failures; a message that never
 * parses, and one that keeps failing, reaches the DLQ by the queue's redrive. A failure fails the
 * rest of its message group in the batch (FIFO order within one shop order is kept); other
 * groups go on. Each order goes into the connection its message names, read from the connection
 * registry — the DynamoDB table, or a single-company deployment's registry of one — with that
 * connection's client (`connection-imports.ts`); an unknown or paused one is retried. With
 * Shoptet, its schedule invokes it for the reconciliation sweep too (`shoptet-on-aws.ts`).
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbImportAttempts } from '../adapters/aws/dynamodb-import-attempts.js';
import type { ActionResource } from '../core/actions/action-definition.js';
import { type ActionsConfig, requireSetting } from '../core/actions/config.js';
import { RetryLaterError } from '../core/actions/errors.js';
import { loadIntakeConfig } from '../core/intake/intake-config.js';
import type { Clock, ObjectStore } from '../core/ports.js';
import { loadSections } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import {
  type ConnectionImports,
  connectionImports,
  createImportEntry,
} from '../wiring/connection-imports.js';
import { type ActionFunctionConfig, loadActionFunctionConfig } from './action-config.js';
import { functionParts } from './action-runtime.js';
import { connectionPortsFromConfig } from './connection-actions.js';
import { lazyHandler } from './lazy-handler.js';
import { createShoptetSweepRun, isShoptetSweepEvent, shoptetApiOnAws } from './shoptet-on-aws.js';

/** The stores the importer uses: the idempotency table (its guard and its import attempts). */
const IMPORT_USES: readonly ActionResource[] = ['idempotency'];

export class InvalidIntakeMessageError extends Error {
  override readonly name = 'InvalidIntakeMessageError';
}

export function createHandler(deps: ConnectionImports, orderStore?: ObjectStore) {
  const entry = createImportEntry(deps, orderStore);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const processor = new SqsFifoPartialProcessorAsync();
    const recordHandler = async (record: SQSRecord): Promise<void> => {
      const firstReceive = Number(record.attributes?.ApproximateReceiveCount ?? '1') <= 1;
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        if (firstReceive) deps.logger.error('invalid intake message', { messageId: record.messageId });
        throw new InvalidIntakeMessageError(`message ${record.messageId} is not JSON`);
      }
      try {
        const result = await entry(body, {
          remainingTimeMs: context.getRemainingTimeInMillis(),
          logInvalid: firstReceive,
        });
        if (result.status === 'invalid') throw new InvalidIntakeMessageError(result.reason);
      } catch (error) {
        deps.logger.warn('import will be retried', {
          messageId: record.messageId,
          error: error instanceof Error ? error.name : 'unknown',
          reason: error instanceof RetryLaterError ? error.reason : undefined,
        });
        throw error;
      }
    };
    return processPartialResponse(event, recordHandler, processor, {
      context,
      throwOnFullBatchFailure: false,
      // A failed order holds back only its own group (its later deliveries), not other orders.
      skipGroupOnError: true,
    });
  };
}

/** The import attempts (in the idempotency table) of the function's configuration. */
function importAttempts(aws: AwsAdapters, actions: ActionsConfig, clock: Clock) {
  return createDynamoDbImportAttempts({
    client: aws.clients.dynamoDb,
    tableName: requireSetting(actions.idempotency.tableName, ENV.actionsIdempotencyTable),
    expiresAfterSeconds: actions.idempotency.expiresAfterSeconds,
    clock,
  });
}

/** The store of claim-checked orders (the claim-check bucket), when the stack set one. */
function orderStoreOf(aws: AwsAdapters, env: Readonly<Record<string, string | undefined>>) {
  const bucket = env[ENV.claimCheckBucket];
  return bucket ? aws.objectStore(bucket) : undefined;
}

/**
 * The connections the importer serves and what it shares between them: the registry (the DynamoDB
 * table, or the environment's registry of one) and each connection's client from the one client
 * builder, as the action functions have them.
 */
function importConnections(env: Readonly<Record<string, string | undefined>>, config: ActionFunctionConfig) {
  const parts = functionParts('import-orders', config);
  const c = connectionPortsFromConfig(env, parts);
  return { ...c, guard: c.stores.idempotency, aws: parts.aws };
}

/**
 * The queue's batches, and (with Shoptet) the sweep its schedule invokes the function for: the
 * fetch and the sweep run in the import's role, with the same token.
 */
export async function handlerFromEnv(env: Readonly<Record<string, string | undefined>>) {
  // The action function's sections and the intake's, in one error.
  const { action: actionConfig, intake: config } = loadSections({
    action: () => loadActionFunctionConfig(env, IMPORT_USES),
    intake: () => loadIntakeConfig(env),
  });
  // Every order into the connection its message names, read from the registry (of one, or of many).
  const c = importConnections(env, actionConfig);
  const { clock, logger, publisher, guard } = c;
  const attempts = importAttempts(c.aws, actionConfig.actions, clock);
  const shoptet = shoptetApiOnAws(env, config, { aws: c.aws, clock });
  const batches = createHandler(
    connectionImports(
      { guard, attempts, publisher, clock, logger, config, shoptet },
      { ...c, referenceCacheSeconds: config.referenceCacheSeconds },
    ),
    orderStoreOf(c.aws, env),
  );
  let sweep: ReturnType<typeof createShoptetSweepRun> | undefined;
  return async (event: SQSEvent | { shoptetSweep: unknown }, context: Context) => {
    if (!isShoptetSweepEvent(event)) return batches(event as SQSEvent, context);
    sweep ??= createShoptetSweepRun(env, config, { shoptet, aws: c.aws, clock, logger });
    return sweep(event);
  };
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
