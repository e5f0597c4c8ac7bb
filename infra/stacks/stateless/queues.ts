/** The stateless stack's queues: SQS-managed encryption, TLS only. */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { InfraConfig } from '#infra/config/schema.js';

export function encryptedQueue(scope: Construct, id: string, props: sqs.QueueProps = {}): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    ...props,
  });
}

/** A dead-letter queue: what it holds waits for a person, so it is kept with the stack under RETAIN. */
export function deadLetterQueue(
  scope: Construct,
  id: string,
  config: Pick<InfraConfig, 'deadLetterRetentionDays' | 'removalPolicy'>,
): sqs.Queue {
  return encryptedQueue(scope, id, {
    retentionPeriod: Duration.days(config.deadLetterRetentionDays),
    removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
}
