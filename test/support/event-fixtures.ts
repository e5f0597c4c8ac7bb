/**
 * The event fixtures of `test/fixtures/events/` (see its README): real shapes of what the Lambda
 * functions receive, read fresh for each use so a test may change its copy.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus-types.js';

const FIXTURES = new URL('../fixtures/events/', import.meta.url);

export function eventFixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;
}

/** An EventBridge event as a rule delivers it to a target (the shape the local bus also delivers). */
export type EventBridgeEnvelope<D = unknown> = EventBridgeEvent<D>;

/** A record event as the poller publishes it (`eventbridge-record-event.json`). */
export const recordEventFixture = () =>
  eventFixture<EventBridgeEnvelope<Record<string, unknown>>>('eventbridge-record-event.json');

/** An SQS batch of action messages, each an EventBridge record event (`sqs-action-batch.json`). */
export const sqsActionBatch = () => eventFixture<SQSEvent>('sqs-action-batch.json');

/** The Scheduler's invocation of the poller (`scheduled-poll.json`). */
export const scheduledPoll = () => eventFixture<Record<string, unknown>>('scheduled-poll.json');

/** One SQS record shaped like the fixture batch's, carrying `body`, received `receiveCount` times. */
export function sqsRecord(messageId: string, body: string, receiveCount = 1): SQSRecord {
  const template = sqsActionBatch().Records[0] as SQSRecord;
  return {
    ...template,
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    md5OfBody: createHash('md5').update(body).digest('hex'),
    attributes: { ...template.attributes, ApproximateReceiveCount: String(receiveCount) },
  };
}
