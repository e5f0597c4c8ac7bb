/**
 * An in-process stand-in for one SQS FIFO queue (no local server speaks SQS): an `SQSClient` whose
 * `SendMessageBatch` is answered here, with what the poll fan-out relies on — at most 10 entries,
 * a required `MessageGroupId` and `MessageDeduplicationId`, duplicates dropped for 5 minutes — and a
 * Lambda-like consumer side: batches in order that never hold two messages of a group in flight at
 * once, partial batch responses, and a dead-letter list after `maxReceiveCount` receives.
 */
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { Clock } from '../../functions/core/ports.js';

const DEDUPLICATION_MS = 5 * 60_000;

interface Message {
  messageId: string;
  body: string;
  groupId: string;
  receiveCount: number;
  inFlight: boolean;
}

export interface FifoQueueStandIn {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** `SendMessageBatch` calls answered. */
  readonly sendBatchCalls: number;
  /** Messages waiting or in flight, in order. */
  messages(): readonly { body: unknown; groupId: string }[];
  readonly deadLetters: readonly { body: unknown; groupId: string }[];
  /** The next batch as Lambda would pass it (up to `max` records; no group twice in flight). */
  receive(max: number): SQSEvent;
  /** Deletes the batch's messages except the reported failures, which become visible again. */
  settle(event: SQSEvent, response: SQSBatchResponse): void;
  /** Receives and settles until nothing is visible; returns the number of invocations. */
  drain(handler: (event: SQSEvent) => Promise<SQSBatchResponse>, batchSize: number): Promise<number>;
}

export function createFifoQueueStandIn(options: {
  clock: Clock;
  maxReceiveCount?: number;
}): FifoQueueStandIn {
  const queueUrl = 'https://sqs.eu-central-1.amazonaws.com/111111111111/polls.fifo';
  const maxReceiveCount = options.maxReceiveCount ?? 3;
  const client = new SQSClient({
    region: 'eu-central-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const queue: Message[] = [];
  const deadLetters: { body: unknown; groupId: string }[] = [];
  const seen = new Map<string, number>();
  let sequence = 0;
  let sendBatchCalls = 0;

  const sendBatch = (input: SendMessageBatchCommandInput) => {
    sendBatchCalls++;
    const entries = input.Entries ?? [];
    if (input.QueueUrl !== queueUrl)
      throw Object.assign(new Error('no such queue'), { name: 'QueueDoesNotExist' });
    if (entries.length === 0 || entries.length > 10) {
      throw Object.assign(new Error('1 to 10 entries'), { name: 'TooManyEntriesInBatchRequest' });
    }
    const now = options.clock.now().getTime();
    const Successful = entries.map((entry) => {
      if (!entry.MessageGroupId || !entry.MessageDeduplicationId) {
        throw Object.assign(new Error('FIFO needs group and deduplication ids'), {
          name: 'MissingParameter',
        });
      }
      const messageId = `m-${++sequence}`;
      const last = seen.get(entry.MessageDeduplicationId);
      if (last === undefined || now - last >= DEDUPLICATION_MS) {
        seen.set(entry.MessageDeduplicationId, now);
        queue.push({
          messageId,
          body: entry.MessageBody ?? '',
          groupId: entry.MessageGroupId,
          receiveCount: 0,
          inFlight: false,
        });
      }
      return { Id: entry.Id, MessageId: messageId, MD5OfMessageBody: '' };
    });
    return { Successful, Failed: [] };
  };
  mockClient(client).on(SendMessageBatchCommand).callsFake(sendBatch);

  const record = (m: Message): SQSRecord => ({
    messageId: m.messageId,
    receiptHandle: m.messageId,
    body: m.body,
    attributes: {
      ApproximateReceiveCount: String(m.receiveCount),
      SentTimestamp: '0',
      SenderId: 'dispatcher',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: m.groupId,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:111111111111:polls.fifo',
    awsRegion: 'eu-central-1',
  });

  const api: FifoQueueStandIn = {
    client,
    queueUrl,
    get sendBatchCalls() {
      return sendBatchCalls;
    },
    messages: () => queue.map((m) => ({ body: JSON.parse(m.body) as unknown, groupId: m.groupId })),
    deadLetters,
    receive(max) {
      const busy = new Set(queue.filter((m) => m.inFlight).map((m) => m.groupId));
      const batch: Message[] = [];
      for (const m of queue) {
        if (batch.length >= max) break;
        // A group with a message in flight from an earlier batch waits; in queue order, a group's
        // messages join a batch oldest first.
        if (m.inFlight || busy.has(m.groupId)) continue;
        batch.push(m);
      }
      for (const m of batch) {
        m.inFlight = true;
        m.receiveCount++;
      }
      return { Records: batch.map(record) };
    },
    settle(event, response) {
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      for (const r of event.Records) {
        const index = queue.findIndex((m) => m.messageId === r.messageId);
        const m = queue[index];
        if (!m) continue;
        if (!failed.has(r.messageId)) queue.splice(index, 1);
        else if (m.receiveCount >= maxReceiveCount) {
          queue.splice(index, 1);
          deadLetters.push({ body: JSON.parse(m.body) as unknown, groupId: m.groupId });
        } else m.inFlight = false;
      }
    },
    async drain(handler, batchSize) {
      let invocations = 0;
      for (;;) {
        const event = api.receive(batchSize);
        if (event.Records.length === 0) return invocations;
        invocations++;
        api.settle(event, await handler(event));
      }
    },
  };
  return api;
}
