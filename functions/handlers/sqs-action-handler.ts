/**
 * The SQS batch handler around an action's entry (Powertools batch, partial failures).
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
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { addLambdaContext } from '../adapters/aws/lambda-logger.js';
import { type DeadLetterSink, deadLetterInvalid } from '../core/actions/dead-letter-sink.js';
import { RetryLaterError } from '../core/actions/errors.js';
import type { ActionEntry, EntryResult } from '../core/actions/run-action.js';
import type { Logger } from '../core/ports.js';
import {
  createInvocationDeadline,
  type InvocationDeadline,
  REPORT_MARGIN_MS,
  withinDeadline,
} from './invocation-deadline.js';

export type SqsActionHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** What an SQS action handler needs beyond its action's dependencies. */
export interface SqsHandlerDeps {
  /** The route's DLQ for invalid events; without it they are failed items until the queue's redrive. */
  deadLetters?: DeadLetterSink;
  /** The invocation's time left, shared with the accounting client; default: one of its own. */
  deadline?: InvocationDeadline;
}

interface RecordScope {
  name: string;
  entry: ActionEntry;
  logger: Logger;
  deadLetters: DeadLetterSink | undefined;
  deadline: InvocationDeadline;
}

/** Runs the entry on the parsed body within the time left; a throw is logged and retried. */
async function runEntry(
  scope: RecordScope,
  record: SQSRecord,
  body: unknown,
  context: Context,
  firstReceive: boolean,
): Promise<EntryResult> {
  try {
    // A record that cannot finish before the report is due is a failed item, not a timeout.
    const left = scope.deadline.remainingMs() ?? context.getRemainingTimeInMillis() - REPORT_MARGIN_MS;
    return await withinDeadline(
      scope.entry(body, { remainingTimeMs: context.getRemainingTimeInMillis(), logInvalid: firstReceive }),
      left,
    );
  } catch (error) {
    scope.logger.warn('action will be retried', {
      action: scope.name,
      messageId: record.messageId,
      error: error instanceof Error ? error.name : 'unknown',
      reason:
        error instanceof RetryLaterError ? error.reason : error instanceof Error ? error.message : undefined,
    });
    throw error;
  }
}

/** One SQS record: JSON body → entry; an invalid one goes to the dead-letter sink. */
async function handleRecord(scope: RecordScope, record: SQSRecord, context: Context): Promise<void> {
  const firstReceive = Number(record.attributes?.ApproximateReceiveCount ?? '1') <= 1;
  const deadLetter = (reason: string) =>
    deadLetterInvalid(
      scope.deadLetters,
      scope.logger,
      record.body,
      { action: scope.name, reason, messageId: record.messageId },
      'queue',
    );
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    if (firstReceive) {
      scope.logger.error('invalid event dead-lettered', {
        action: scope.name,
        messageId: record.messageId,
        issues: ['body is not JSON'],
      });
    }
    return deadLetter('body is not JSON');
  }
  const result = await runEntry(scope, record, body, context, firstReceive);
  if (result.status === 'invalid') await deadLetter(result.reason);
}

/** The SQS handler of one action: each record through `entry`, partial batch failures. */
export function createSqsActionHandler(
  name: string,
  entry: ActionEntry,
  logger: Logger,
  deadLetters: DeadLetterSink | undefined,
  deadline: InvocationDeadline = createInvocationDeadline(),
): SqsActionHandler {
  const scope: RecordScope = { name, entry, logger, deadLetters, deadline };
  return async (event, context) => {
    addLambdaContext(logger, context);
    // One processor per invocation: it holds per-batch state.
    const processor = new BatchProcessor(EventType.SQS);
    deadline.begin(context);
    try {
      return await processPartialResponse(
        event,
        (record: SQSRecord) => handleRecord(scope, record, context),
        processor,
        {
          context,
          throwOnFullBatchFailure: false,
          // One record at a time: in-flight requests stay at the route's maxConcurrency, and a Created
          // and an Updated of one record in the same batch meet the idempotency record in order.
          processInParallel: false,
        },
      );
    } finally {
      deadline.end();
    }
  };
}
