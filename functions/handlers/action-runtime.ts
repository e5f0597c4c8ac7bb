/**
 * Shared wiring of the action handlers: the SQS
 * batch handler around a core action entry (Powertools batch, partial failures), and
 * `defineSqsAction`, with which each SQS action handler states only what differs.
 *
 * Delivery rules:
 * - each SQS record's body is the EventBridge event, handed to the same entry the local runtime calls;
 * - `invalid` (fails its catalog schema, or the body is not JSON): logged on its first receive only,
 *   never touches the service, and is sent (original body, attributes `action`, `reason`,
 *   `originalMessageId`) to the route's DLQ through the `DeadLetterSink`, then acknowledged, so SQS
 *   never redelivers it. If that send fails, or no sink is configured (`ACTIONS_DEAD_LETTER_QUEUE_URL`
 *   unset), it is reported as a failed item and reaches the DLQ by the queue's redrive after
 *   `maxReceiveCount` receives;
 * - `failed` (a 422 → `Action.Failed` was published), `done`, `duplicate`, `skipped`: acknowledged;
 * - `RetryLaterError`, 429, 5xx, network and store errors: a failed item, redelivered by SQS after
 *   the visibility timeout (the queue's backoff).
 */

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import type { AccountingApi } from '../accounting/api.js';
import { createAccountingClient } from '../accounting/client.js';
import { loadAccountingConfig } from '../accounting/config.js';
import { type AwsAdapters, createAwsAdapters, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { addLambdaContext, LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import { createSqsDeadLetterSink } from '../adapters/aws/sqs-dead-letter-sink.js';
import { type ActionsConfig, loadActionsConfig, requireSetting } from '../core/actions/config.js';
import type { DeadLetterSink } from '../core/actions/dead-letter-sink.js';
import type { OpenSendings } from '../core/actions/einvoice-tracking.js';
import { RetryLaterError } from '../core/actions/errors.js';
import type { IdempotencyGuard } from '../core/actions/ports.js';
import { type ActionEntry, type ActionFn, createActionEntry } from '../core/actions/run-action.js';
import type { CheckpointStore, Clock, Logger, SecretSource } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import { type AppLogger, parseLogLevel } from '../shared/logger.js';
import {
  createInvocationDeadline,
  type InvocationDeadline,
  REPORT_MARGIN_MS,
  withinDeadline,
} from './invocation-deadline.js';

/** Reported for a record that must go to the DLQ (its body never becomes valid). */
export class DeadLetterError extends Error {
  override readonly name = 'DeadLetterError';
  constructor(
    readonly messageId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`message ${messageId} dead-lettered: ${reason}`, options);
  }
}

export type SqsActionHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** What an SQS action handler needs beyond its action's dependencies. */
export interface SqsHandlerDeps {
  /** The route's DLQ for invalid events; without it they are failed items until the queue's redrive. */
  deadLetters?: DeadLetterSink;
  /** The invocation's time left, shared with the accounting client; default: one of its own. */
  deadline?: InvocationDeadline;
}

/** The SQS handler of one action: each record through `entry`, partial batch failures. */
function createSqsActionHandler(
  name: string,
  entry: ActionEntry,
  logger: Logger,
  deadLetters: DeadLetterSink | undefined,
  deadline: InvocationDeadline = createInvocationDeadline(),
): SqsActionHandler {
  /**
   * An invalid record: sent to the DLQ and acknowledged; on any receive, since a redelivered one
   * means an earlier send failed (or no sink was configured then). Throws when it stays in the queue.
   */
  const deadLetter = async (record: SQSRecord, reason: string): Promise<void> => {
    if (!deadLetters) throw new DeadLetterError(record.messageId, reason);
    try {
      await deadLetters.send(record.body, { action: name, reason, messageId: record.messageId });
    } catch (error) {
      logger.warn('dead-letter send failed, left to the queue redrive', {
        action: name,
        messageId: record.messageId,
        error: error instanceof Error ? error.name : 'unknown',
      });
      throw new DeadLetterError(record.messageId, reason, { cause: error });
    }
  };

  return async (event, context) => {
    addLambdaContext(logger, context);
    // One processor per invocation: it holds per-batch state.
    const processor = new BatchProcessor(EventType.SQS);
    const recordHandler = async (record: SQSRecord): Promise<void> => {
      const firstReceive = Number(record.attributes?.ApproximateReceiveCount ?? '1') <= 1;
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        if (firstReceive) {
          logger.error('invalid event dead-lettered', {
            action: name,
            messageId: record.messageId,
            issues: ['body is not JSON'],
          });
        }
        return deadLetter(record, 'body is not JSON');
      }
      let result: Awaited<ReturnType<ActionEntry>>;
      try {
        // A record that cannot finish before the report is due is a failed item, not a timeout.
        const left = deadline.remainingMs() ?? context.getRemainingTimeInMillis() - REPORT_MARGIN_MS;
        result = await withinDeadline(
          entry(body, { remainingTimeMs: context.getRemainingTimeInMillis(), logInvalid: firstReceive }),
          left,
        );
      } catch (error) {
        logger.warn('action will be retried', {
          action: name,
          messageId: record.messageId,
          error: error instanceof Error ? error.name : 'unknown',
          reason:
            error instanceof RetryLaterError
              ? error.reason
              : error instanceof Error
                ? error.message
                : undefined,
        });
        throw error;
      }
      if (result.status === 'invalid') await deadLetter(record, result.reason);
    };
    deadline.begin(context);
    try {
      return await processPartialResponse(event, recordHandler, processor, {
        context,
        throwOnFullBatchFailure: false,
        // One record at a time: in-flight requests stay at the route's maxConcurrency, and a Created
        // and an Updated of one record in the same batch meet the idempotency record in order.
        processInParallel: false,
      });
    } finally {
      deadline.end();
    }
  };
}

/** What every action handler builds from the environment once per container. */
export interface ActionEnvironment {
  actions: ActionsConfig;
  logger: AppLogger;
  clock: Clock;
  aws: AwsAdapters;
  api: AccountingApi;
  /** The current invocation's time left; bounds the client's deadlines. */
  deadline: InvocationDeadline;
}

const deadLetterQueueUrlSchema = z.url({ protocol: /^https?$/ }).optional();

/**
 * The route's DLQ from `ACTIONS_DEAD_LETTER_QUEUE_URL` (set by infra on every SQS action function);
 * `undefined` when unset, which keeps invalid events on the queue's redrive and says so once.
 */
export function deadLetterSinkFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  client?: SQSClient,
): DeadLetterSink | undefined {
  const raw = env[ENV.actionsDeadLetterQueueUrl] || undefined;
  const parsed = deadLetterQueueUrlSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${ENV.actionsDeadLetterQueueUrl}: expected the http(s) URL of an SQS queue`);
  }
  const queueUrl = parsed.data;
  if (!queueUrl) {
    logger.warn('dead-letter queue not configured', {
      variable: ENV.actionsDeadLetterQueueUrl,
      effect: 'invalid events are failed items until the queue redrives them after maxReceiveCount',
    });
    return undefined;
  }
  return createSqsDeadLetterSink({ client: client ?? instrumentClient(new SQSClient({})), queueUrl });
}

/** The credentials of the secret, read again past its cache, with the environment's other settings. */
export async function credentialsFrom(
  env: Readonly<Record<string, string | undefined>>,
  secrets: SecretSource,
) {
  const values = secrets.refresh ? await secrets.refresh() : await secrets.get();
  return loadAccountingConfig({ ...env, ...values }).credentials;
}

/** Action settings, logger, AWS adapters (bus required) and the accounting client (key or secret). */
export async function loadActionEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  service: string,
): Promise<ActionEnvironment> {
  const actions = loadActionsConfig(env);
  const logger = new LambdaLogger({ level: parseLogLevel(env.LOG_LEVEL), service });
  const clock = systemClock;
  const adapters = loadAdapterConfig(env, ['eventBus']);
  const aws = createAwsAdapters(adapters, { clock, logger, instrument: instrumentClient });
  const secrets = adapters.credentialsSecret ? aws.secretSource() : undefined;
  const secretValues = secrets ? await secrets.get() : {};
  const deadline = createInvocationDeadline();
  const api = createAccountingClient(loadAccountingConfig({ ...env, ...secretValues }), {
    clock,
    logger,
    remainingMs: deadline.remainingMs,
    // After an authentication failure: the secret again, past its cache (it may have been replaced).
    ...(secrets ? { reloadCredentials: async () => credentialsFrom(env, secrets) } : {}),
  });
  return { actions, logger, clock, aws, api, deadline };
}

/** The idempotency guard of a handler, on `ACTIONS_IDEMPOTENCY_TABLE`. */
export function guardFromEnvironment(e: ActionEnvironment): IdempotencyGuard {
  return createPowertoolsGuard({
    client: e.aws.clients.dynamoDb,
    tableName: requireSetting(e.actions.idempotency.tableName, ENV.actionsIdempotencyTable),
    expiresAfterSeconds: e.actions.idempotency.expiresAfterSeconds,
  });
}

/** The open e-invoice sendings, on `ACTIONS_STATE_TABLE`. */
export function sendingsFromEnvironment(e: ActionEnvironment): CheckpointStore<OpenSendings> {
  return createDynamoDbCheckpointStore<OpenSendings>({
    client: e.aws.clients.dynamoDb,
    tableName: requireSetting(e.actions.stateTable, ENV.actionsStateTable),
  });
}

/** What every SQS action needs: the client, the bus, the clock, the logger and the settings. */
export function actionDeps(e: ActionEnvironment) {
  return { api: e.api, publisher: e.aws.publisher(), clock: e.clock, logger: e.logger, config: e.actions };
}

/**
 * One SQS action Lambda, stated by what differs: its name, how it runs one event and which
 * dependencies it builds from the environment. Returns the core entry for one EventBridge event
 * (the local runtime calls it; the SQS handler too), the SQS handler around it, and the handler
 * built from the environment (for `lazyHandler`).
 */
export function defineSqsAction<D extends { logger: Logger; config: Pick<ActionsConfig, 'eventSource'> }>(
  name: string,
  run: (deps: D) => ActionFn,
  depsFrom: (e: ActionEnvironment) => D,
) {
  const createEventEntry = (deps: D): ActionEntry =>
    createActionEntry(name, deps.logger, run(deps), deps.config.eventSource);
  const createHandler = (deps: D & SqsHandlerDeps): SqsActionHandler =>
    createSqsActionHandler(name, createEventEntry(deps), deps.logger, deps.deadLetters, deps.deadline);
  const handlerFromEnv = async (
    env: Readonly<Record<string, string | undefined>>,
  ): Promise<SqsActionHandler> => {
    const e = await loadActionEnvironment(env, name);
    const deadLetters = deadLetterSinkFromEnvironment(env, e.logger);
    return createHandler({ ...depsFrom(e), deadline: e.deadline, ...(deadLetters ? { deadLetters } : {}) });
  };
  return { createEventEntry, createHandler, handlerFromEnv };
}
