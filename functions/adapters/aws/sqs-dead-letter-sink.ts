/**
 * `DeadLetterSink` on an SQS queue (the route's DLQ): one `SendMessage` with the original body and
 * the attributes as string message attributes (`action`, `reason`, `originalMessageId`).
 */
import { type MessageAttributeValue, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetterAttributes, DeadLetterSink } from '#functions/core/actions/dead-letter-sink.js';

/** Longest `reason` attribute sent; the rest is cut (the body is what matters). */
export const MAX_REASON_CHARS = 1000;

export interface SqsDeadLetterSinkOptions {
  client: SQSClient;
  queueUrl: string;
}

function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

export function createSqsDeadLetterSink(options: SqsDeadLetterSinkOptions): DeadLetterSink {
  const { client, queueUrl } = options;
  return {
    async send(body: string, attributes: DeadLetterAttributes): Promise<void> {
      // SQS rejects empty attribute values: an empty one is left out.
      const values: Record<string, string> = {
        action: attributes.action,
        reason: attributes.reason.slice(0, MAX_REASON_CHARS),
        originalMessageId: attributes.messageId,
      };
      const messageAttributes = Object.fromEntries(
        Object.entries(values)
          .filter(([, value]) => value !== '')
          .map(([name, value]) => [name, stringAttribute(value)]),
      );
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageAttributes: messageAttributes,
        }),
      );
    },
  };
}
