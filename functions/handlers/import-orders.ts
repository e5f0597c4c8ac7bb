/**
 * Import Lambda: consumes the intake's FIFO queue, one queued shop order → one received order,
 * exactly once (core/intake/import-order.ts). Partial batch failures; a message that never
 * parses, and one that keeps failing, reaches the DLQ by the queue's redrive. A failure fails the
 * rest of its message group in the batch (FIFO order within one shop order is kept); other
 * groups go on. Each order goes into the connection its message names, read from the connection
 * registry — the DynamoDB table, or a single-company deployment's registry of one — with that
 * connection's client (`connection-imports.ts`); an unknown or paused one is retried.
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbImportAttempts } from '../adapters/aws/dynamodb-import-attempts.js';
import { createEnvConnectionRegistry } from '../adapters/env-connection-registry.js';
import { shoptetApiOf } from '../adapters/http/shoptet-api.js';
import type { ActionResource } from '../core/actions/action-definition.js';
import { type ActionsConfig, requireSetting } from '../core/actions/config.js';
import { RetryLaterError } from '../core/actions/errors.js';
import type { EntryResult, RunOptions } from '../core/actions/run-action.js';
import { importOrder } from '../core/intake/import-order.js';
import { importShoptetNotice } from '../core/intake/import-shoptet.js';
import { loadIntakeConfig } from '../core/intake/intake-config.js';
import { OrderClaimCheckError, withClaimedOrder } from '../core/intake/order-claim-check.js';
import { intakeMessageSchema } from '../core/intake/shop-order.js';
import { isShoptetNoticeMessage, shoptetNoticeMessageSchema } from '../core/intake/shoptet-notification.js';
import type { Clock, ObjectStore } from '../core/ports.js';
import { loadSections } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { type ActionFunctionConfig, loadActionFunctionConfig } from './action-config.js';
import { loadActionEnvironment, registryParts } from './action-runtime.js';
import { connectionPortsFromConfig } from './connection-actions.js';
import { type ConnectionImports, clientOfOne, connectionImports } from './connection-imports.js';
import { lazyHandler } from './lazy-handler.js';

/** The stores the importer uses: the idempotency table (its guard and its import attempts). */
const IMPORT_USES: readonly ActionResource[] = ['idempotency'];

export type ImportEntry = (raw: unknown, options?: RunOptions) => Promise<EntryResult>;

/**
 * One queued message (parsed JSON) → the import into the connection it names, read from the
 * registry (`imports`); `invalid` when it is not an intake message or its claim-checked order
 * cannot be read back as stored (`orderStore`: where the endpoint put it).
 */
export function createImportEntry(imports: ConnectionImports, orderStore?: ObjectStore): ImportEntry {
  const invalid = (issues: string[], options: RunOptions): EntryResult => {
    if (options.logInvalid !== false) imports.logger.error('invalid intake message', { issues });
    return { status: 'invalid', reason: issues.join('; ').slice(0, 500) };
  };
  return async (raw, options = {}) => {
    if (isShoptetNoticeMessage(raw)) {
      // A Shoptet notice: the order is fetched from the shop, then imported like any other.
      const notice = shoptetNoticeMessageSchema.safeParse(raw);
      if (!notice.success) {
        return invalid(
          notice.error.issues.slice(0, 20).map((i) => `${i.path.join('.')}: ${i.message}`),
          options,
        );
      }
      return importShoptetNotice(await imports.depsFor(notice.data.connection), notice.data, options);
    }
    let message: unknown;
    try {
      message = await withClaimedOrder(raw, orderStore);
    } catch (error) {
      if (!(error instanceof OrderClaimCheckError)) throw error;
      if (options.logInvalid !== false)
        imports.logger.error('invalid intake message', { issues: [error.message] });
      return { status: 'invalid', reason: error.message.slice(0, 500) };
    }
    const parsed = intakeMessageSchema.safeParse(message);
    if (!parsed.success) {
      return invalid(
        parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.')}: ${i.message}`),
        options,
      );
    }
    return importOrder(await imports.depsFor(parsed.data.connection), parsed.data, options);
  };
}

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
 * The connections the importer serves and what it shares between them: with
 * `POLLER_CONNECTIONS_TABLE`, the DynamoDB registry and each connection's own client; without, the
 * environment's registry of one (`adapters/env-connection-registry.ts`) and the client of the
 * environment, as the action functions have them.
 */
async function importConnections(
  env: Readonly<Record<string, string | undefined>>,
  config: ActionFunctionConfig,
) {
  if (config.registry) {
    const parts = registryParts('import-orders', { ...config, registry: config.registry });
    const c = connectionPortsFromConfig(env, parts);
    return { ...c, guard: c.stores.idempotency, aws: parts.aws };
  }
  const registry = createEnvConnectionRegistry(env);
  const { ports, aws } = await loadActionEnvironment(
    env,
    { name: 'import-orders', uses: IMPORT_USES },
    config,
  );
  const { api, clock, logger, publisher } = ports;
  return { registry, clients: clientOfOne(api), clock, logger, publisher, guard: ports.idempotency, aws };
}

export async function handlerFromEnv(env: Readonly<Record<string, string | undefined>>) {
  // The action function's sections and the intake's, in one error.
  const { action: actionConfig, intake: config } = loadSections({
    action: () => loadActionFunctionConfig(env, IMPORT_USES),
    intake: () => loadIntakeConfig(env),
  });
  // Every order into the connection its message names, read from the registry (of one, or of many).
  const c = await importConnections(env, actionConfig);
  const { clock, logger, publisher, guard } = c;
  const attempts = importAttempts(c.aws, actionConfig.actions, clock);
  return createHandler(
    connectionImports(
      {
        guard,
        attempts,
        publisher,
        clock,
        logger,
        config,
        shoptet: shoptetApiOf(config.shoptet, clock.sleep),
      },
      { ...c, referenceCacheSeconds: config.referenceCacheSeconds },
    ),
    orderStoreOf(c.aws, env),
  );
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
