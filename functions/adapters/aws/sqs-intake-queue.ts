/**
 * `IntakeQueue` on an SQS FIFO queue: the delivery id is the deduplication id (a repeat inside
 * SQS's 5-minute window is dropped) and the shop order is the message group (deliveries of one
 * order are imported one after another).
 */

import { createHash } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EnqueueOptions, IntakeQueue } from '#functions/core/intake/ports.js';
import type { QueuedIntakeMessage } from '#functions/core/intake/shop-order.js';

/** SQS allows 128 characters of `[A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~]`: longer or other ids are hashed. */
function sqsId(value: string): string {
  return /^[\x21-\x7e]{1,128}$/.test(value) ? value : createHash('sha256').update(value).digest('hex');
}

export function createSqsIntakeQueue(options: { client: SQSClient; queueUrl: string }): IntakeQueue {
  return {
    async send(message: QueuedIntakeMessage, enqueue: EnqueueOptions): Promise<void> {
      await options.client.send(
        new SendMessageCommand({
          QueueUrl: options.queueUrl,
          MessageBody: JSON.stringify(message),
          MessageDeduplicationId: sqsId(enqueue.deduplicationId),
          MessageGroupId: sqsId(enqueue.groupId),
        }),
      );
    },
  };
}
