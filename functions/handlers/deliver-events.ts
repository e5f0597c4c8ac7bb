/**
 * Delivery function: consumes one SQS queue per HTTP consumer (each fed by a rule on the bus with
 * the target's pattern and connections) and POSTs each event to its consumer, signed per Standard
 * Webhooks with that target's own secret (core/delivery/deliver-message.ts). Partial batch
 * failures: a retry stays on its queue, visible again after the backoff; what gives up lands in
 * the target's dead-letter queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { addLambdaContext, LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createSigningSecrets } from '../adapters/aws/signing-secrets.js';
import { createSqsDeadLetterSink } from '../adapters/aws/sqs-dead-letter-sink.js';
import { createVisibilityChanger } from '../adapters/aws/sqs-visibility.js';
import { publicAddressAgent } from '../adapters/http/public-address-agent.js';
import { postSigned } from '../adapters/http/webhook-sender.js';
import { type DeliveryPorts, deliverMessage } from '../core/delivery/deliver-message.js';
import { loadDeliveryFunctionConfig } from '../core/delivery/delivery-function-config.js';
import { systemClock } from '../shared/clock.js';
import { loadLogLevel } from '../shared/config.js';
import { lazyHandler } from './lazy-handler.js';

/** Margin kept for the batch report: a POST never runs into the invocation's end. */
const REPORT_MARGIN_MS = 2_000;
/** A secret replaced by hand is used within this time. */
const SECRET_TTL_MS = 300_000;

export type DeliveryHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The handler over its ports (tests give fakes). */
export function createDeliveryHandler(ports: DeliveryPorts): DeliveryHandler {
  const handleRecord = async (record: SQSRecord, context: Context) => {
    const left = context.getRemainingTimeInMillis() - REPORT_MARGIN_MS;
    const timeoutMs = Math.min(ports.config.policy.timeoutMs, left);
    await deliverMessage(
      {
        ...ports,
        // Never past the invocation's end: a POST cut short is a retry like a timeout.
        config: { ...ports.config, policy: { ...ports.config.policy, timeoutMs: Math.max(1, timeoutMs) } },
      },
      {
        messageId: record.messageId,
        receiptHandle: record.receiptHandle,
        body: record.body,
        queueArn: record.eventSourceARN,
        receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? '1'),
      },
    );
  };
  return async (event, context) => {
    addLambdaContext(ports.logger, context);
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, (record: SQSRecord) => handleRecord(record, context), processor, {
      context,
      throwOnFullBatchFailure: false,
      // One at a time: requests in flight per consumer stay at the mapping's maximum concurrency.
      processInParallel: false,
    });
  };
}

/** The handler from the environment (one `ConfigError` for every bad variable). */
export async function handlerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<DeliveryHandler> {
  const config = loadDeliveryFunctionConfig(env);
  const logger = new LambdaLogger({ level: loadLogLevel(env), service: 'deliver-events' });
  const sqs = instrumentClient(new SQSClient({}));
  const secrets = createSigningSecrets({
    client: instrumentClient(new SecretsManagerClient({})),
    ttlMs: SECRET_TTL_MS,
    clock: systemClock,
  });
  const changeVisibility = createVisibilityChanger(sqs);
  // Every connection checked: the resolved address of a target, not only its name, must be public.
  const dispatcher = publicAddressAgent({ privateTargets: config.privateTargets });
  const sinks = new Map(
    [...config.targets.values()].map((t) => [
      t.id,
      createSqsDeadLetterSink({ client: sqs, queueUrl: t.deadLetterQueueUrl }),
    ]),
  );
  return createDeliveryHandler({
    config,
    logger,
    secretOf: (target) => secrets(target.secretArn),
    post: (request) => postSigned({ ...request, dispatcher }),
    deadLetters: (target) =>
      sinks.get(target.id) ?? createSqsDeadLetterSink({ client: sqs, queueUrl: target.deadLetterQueueUrl }),
    retryAfter: (target, receiptHandle, seconds) => changeVisibility(target.queueUrl, receiptHandle, seconds),
  });
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
