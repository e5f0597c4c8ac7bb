/**
 * Import Lambda: consumes the intake's FIFO queue, one queued shop order → one received order,
 * exactly once (core/intake/import-order.ts). Partial batch failures; a message that never
 * parses, and one that keeps failing, reaches the DLQ by the queue's redrive. A failure fails the
 * rest of its message group in the batch (FIFO order within one shop order is kept); other
 * groups go on.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbImportAttempts } from '../adapters/aws/dynamodb-import-attempts.js';
import type { ActionResource } from '../core/actions/action-definition.js';
import { type ActionsConfig, requireSetting } from '../core/actions/config.js';
import { RetryLaterError } from '../core/actions/errors.js';
import type { EntryResult, RunOptions } from '../core/actions/run-action.js';
import { type ImportDeps, importOrder } from '../core/intake/import-order.js';
import { loadIntakeConfig } from '../core/intake/intake-config.js';
import { OrderClaimCheckError, withClaimedOrder } from '../core/intake/order-claim-check.js';
import { createReferenceCache } from '../core/intake/references.js';
import { intakeMessageSchema } from '../core/intake/shop-order.js';
import type { Clock, ObjectStore } from '../core/ports.js';
import { loadSections } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { loadActionFunctionConfig } from './action-config.js';
import { loadActionEnvironment, registryParts } from './action-runtime.js';
import { connectionPortsFromConfig } from './connection-actions.js';
import { type ConnectionImports, connectionImports } from './connection-imports.js';
import { lazyHandler } from './lazy-handler.js';

/** The stores the importer uses: the idempotency table (its guard and its import attempts). */
const IMPORT_USES: readonly ActionResource[] = ['idempotency'];

export type ImportEntry = (raw: unknown, options?: RunOptions) => Promise<EntryResult>;

/** One connection's import dependencies, or those of the connection each message names (the registry). */
export type ImportDepsSource = ImportDeps | ConnectionImports;

/**
 * One queued message (parsed JSON) → the import; `invalid` when it is not an intake message or its
 * claim-checked order cannot be read back as stored (`orderStore`: where the endpoint put it).
 */
export function createImportEntry(source: ImportDepsSource, orderStore?: ObjectStore): ImportEntry {
  return async (raw, options = {}) => {
    let message: unknown;
    try {
      message = await withClaimedOrder(raw, orderStore);
    } catch (error) {
      if (!(error instanceof OrderClaimCheckError)) throw error;
      if (options.logInvalid !== false)
        source.logger.error('invalid intake message', { issues: [error.message] });
      return { status: 'invalid', reason: error.message.slice(0, 500) };
    }
    const parsed = intakeMessageSchema.safeParse(message);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.')}: ${i.message}`);
      if (options.logInvalid !== false) source.logger.error('invalid intake message', { issues });
      return { status: 'invalid', reason: issues.join('; ').slice(0, 500) };
    }
    const deps = 'depsFor' in source ? await source.depsFor(parsed.data.connection) : source;
    return importOrder(deps, parsed.data, options);
  };
}

export class InvalidIntakeMessageError extends Error {
  override readonly name = 'InvalidIntakeMessageError';
}

export function createHandler(deps: ImportDepsSource, orderStore?: ObjectStore) {
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

export async function handlerFromEnv(env: Readonly<Record<string, string | undefined>>) {
  // The action function's sections and the intake's, in one error.
  const { action: actionConfig, intake: config } = loadSections({
    action: () => loadActionFunctionConfig(env, IMPORT_USES),
    intake: () => loadIntakeConfig(env),
  });
  if (actionConfig.registry) {
    // Every connection of the registry: each order into the connection its message names.
    const parts = registryParts('import-orders', { ...actionConfig, registry: actionConfig.registry });
    const c = connectionPortsFromConfig(env, parts);
    const { publisher, clock, logger } = c;
    const attempts = importAttempts(parts.aws, actionConfig.actions, clock);
    return createHandler(
      connectionImports(
        { guard: c.stores.idempotency, attempts, publisher, clock, logger, config },
        { ...c, referenceCacheSeconds: config.referenceCacheSeconds },
      ),
      orderStoreOf(parts.aws, env),
    );
  }
  const { ports, aws } = await loadActionEnvironment(
    env,
    { name: 'import-orders', uses: IMPORT_USES },
    actionConfig,
  );
  const { api, clock, logger, publisher } = ports;
  return createHandler(
    {
      api,
      guard: ports.idempotency,
      attempts: importAttempts(aws, actionConfig.actions, clock),
      publisher,
      clock,
      logger,
      references: createReferenceCache(api, clock, config.referenceCacheSeconds),
      config,
    },
    orderStoreOf(aws, env),
  );
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
