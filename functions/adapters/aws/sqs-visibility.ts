/** Makes a received SQS message visible again after `seconds` (a retry's backoff on its queue). */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';

export function createVisibilityChanger(client: SQSClient) {
  return async (queueUrl: string, receiptHandle: string, seconds: number): Promise<void> => {
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  };
}
