/**
 * `PollQueue` on an SQS FIFO queue: `SendMessageBatch` of up to 10 requests, message group = the
 * connection (SQS hands out one group's messages one at a time, so one connection is never polled by
 * two invocations at once), deduplication id = slot + connection (a retried tick of the same slot
 * sends nothing twice within SQS's 5-minute deduplication interval). Batches go out a few at a time.
 */
import { createHash } from 'node:crypto';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PollQueue, PollRequest } from '../../core/connections/dispatch.js';

/** SQS's longest `MessageGroupId` and `MessageDeduplicationId`. */
const MAX_ID_LENGTH = 128;
const BATCH_SIZE = 10;
const PARALLEL_BATCHES = 8;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The connection's message group: its name (letters, digits, `_.-` are valid), hashed only when too long. */
export function messageGroupIdOf(connection: string): string {
  return connection.length <= MAX_ID_LENGTH ? connection : sha256(connection);
}

export function deduplicationIdOf(request: Pick<PollRequest, 'slot' | 'connection'>): string {
  const id = `${request.slot}:${request.connection}`;
  return id.length <= MAX_ID_LENGTH ? id : `${request.slot}:${sha256(request.connection)}`;
}

export function createSqsPollQueue(options: { client: SQSClient; queueUrl: string }): PollQueue {
  const sendBatch = async (batch: readonly PollRequest[]) => {
    try {
      const out = await options.client.send(
        new SendMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: batch.map((request, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(request),
            MessageGroupId: messageGroupIdOf(request.connection),
            MessageDeduplicationId: deduplicationIdOf(request),
          })),
        }),
      );
      return (out.Failed ?? []).map((f) => ({
        request: batch[Number(f.Id)] as PollRequest,
        reason: `${f.Code ?? 'Failed'}${f.SenderFault ? ' (sender fault)' : ''}`,
      }));
    } catch (error) {
      const reason = error instanceof Error ? error.name : 'Error';
      return batch.map((request) => ({ request, reason }));
    }
  };
  return {
    async enqueue(requests) {
      const batches: PollRequest[][] = [];
      for (let i = 0; i < requests.length; i += BATCH_SIZE) batches.push(requests.slice(i, i + BATCH_SIZE));
      const failed: Array<{ request: PollRequest; reason: string }> = [];
      let next = 0;
      const worker = async () => {
        while (next < batches.length) failed.push(...(await sendBatch(batches[next++] as PollRequest[])));
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_BATCHES, batches.length) }, worker));
      return failed;
    },
  };
}
