/**
 * Delivery of events to the user's own HTTP consumers on AWS, signed per Standard Webhooks (the
 * default `deliveryVia=function`). Per configured target:
 *
 *   rule on the bus (the target's detail-type pattern; `source` = its connections, or every one
 *   of the deployment's) → the target's SQS queue (+ its retained DLQ)
 *     → the delivery function: POST with `webhook-id`, `webhook-timestamp`, `webhook-signature`
 *       computed with the target's own generated secret (Secrets Manager)
 *
 * A retryable failure (network, timeout, 408, 429, 5xx) makes the message visible again after an
 * exponential backoff (1 minute, doubling, at most an hour); after `deliveryRetryAttempts` retries,
 * or at once for another status, the event goes to the target's DLQ. Alarms: each target's DLQ,
 * the oldest message of each target's queue, the function's errors. The function reads only the
 * targets' secrets, consumes and delays only their queues and sends only to their DLQs.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { connectionEventSource } from '#functions/core/connection.js';
import type { DeliveryFunctionTarget } from '#functions/core/delivery/delivery-function-config.js';
import type { DeliveryTarget } from '#functions/core/delivery/delivery-targets.js';
import { DELIVERY_ENV } from '#functions/shared/delivery-env-names.js';
import type { AlarmTopic } from './alarm-topic.js';
import { AppFunction, visibilityTimeoutFor } from './app-function.js';
import { grantQueueBackoff, grantQueueSend, grantSecretRead, useQueueConsume } from './grants.js';

export const DELIVERY_HANDLER = 'deliver-events';
const DELIVERY_TIMEOUT = Duration.seconds(60);
/** Records per invocation: five POSTs of at most 10 s each fit the timeout. */
const DELIVERY_BATCH_SIZE = 5;
/** Invocations per target queue at once (the least SQS event sources allow). */
const DELIVERY_MAX_CONCURRENCY = 2;

/** `source` values of a target's rule: its connections', or the deployment's. */
/**
 * The `detail` part of a target's rule: a target naming connections takes only events whose
 * `detail.connection` is one of them, besides their `source` (two bars: a source is the entry's
 * name, and the detail says whose record it is).
 */
export function targetDetail(target: DeliveryTarget): { detail?: { connection: string[] } } {
  return target.connections ? { detail: { connection: [...target.connections] } } : {};
}

export function targetSources(target: DeliveryTarget, deploymentSources: string[]): string[] {
  return target.connections
    ? target.connections.map((name) => connectionEventSource({ name }))
    : deploymentSources;
}

export interface SignedDeliveriesProps {
  readonly namePrefix: string;
  readonly eventBus: events.IEventBus;
  /** The deployment's `source` values (`accounting.<connection>`, or every connection's). */
  readonly sources: string[];
  readonly targets: readonly DeliveryTarget[];
  readonly alarmTopic: AlarmTopic;
  /** Retries after the first attempt. */
  readonly retryAttempts: number;
  readonly deadLetterRetention: Duration;
  /** How long a target's queue keeps an event (the consumer may be down that long). */
  readonly queueRetention: Duration;
  readonly queueAgeAlarmSeconds: number;
  readonly removalPolicy: RemovalPolicy;
  /** Targets may be on private and loopback addresses (infra `deliveryPrivateTargets`). */
  readonly privateTargets?: boolean;
  /** The function's common settings. */
  readonly function: {
    readonly memorySize: number;
    readonly metricsNamespace: string;
    readonly logLevel: string;
    readonly logRetention: logs.RetentionDays;
  };
}

/** One target's resources. */
export interface SignedTarget {
  readonly target: DeliveryTarget;
  readonly secret: secretsmanager.Secret;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly rule: events.Rule;
}

export class SignedDeliveries extends Construct {
  readonly fn: AppFunction;
  readonly targets: SignedTarget[];

  constructor(scope: Construct, id: string, props: SignedDeliveriesProps) {
    super(scope, id);
    this.fn = new AppFunction(this, 'Function', {
      handler: DELIVERY_HANDLER,
      usedBy: 'the HTTP deliveries',
      description: 'Delivers events to HTTP consumers, signed per Standard Webhooks with each target secret',
      serviceName: DELIVERY_HANDLER,
      memorySize: props.function.memorySize,
      timeout: DELIVERY_TIMEOUT,
      metricsNamespace: props.function.metricsNamespace,
      logLevel: props.function.logLevel,
      logRetention: props.function.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.targets = props.targets.map((target) => this.addTarget(target, props));
    const list: DeliveryFunctionTarget[] = this.targets.map((t) => ({
      id: t.target.id,
      url: t.target.url,
      queueArn: t.queue.queueArn,
      queueUrl: t.queue.queueUrl,
      deadLetterQueueUrl: t.deadLetterQueue.queueUrl,
      secretArn: t.secret.secretArn,
    }));
    this.fn.setEnv(DELIVERY_ENV.targets, Stack.of(this).toJsonString(list));
    this.fn.setEnv(DELIVERY_ENV.maxAttempts, String(props.retryAttempts + 1));
    if (props.privateTargets) this.fn.setEnv(DELIVERY_ENV.privateTargets, 'true');
    this.alarms(props);
  }

  private addTarget(target: DeliveryTarget, props: SignedDeliveriesProps): SignedTarget {
    const secret = new secretsmanager.Secret(this, `${target.id}-Secret`, {
      description: `Standard Webhooks signing key of HTTP delivery ${target.id} of ${props.namePrefix} (the consumer verifies with whsec_<this value>)`,
      // Letters and digits only: a base64 text of 36 bytes, the key itself.
      generateSecretString: { excludePunctuation: true, includeSpace: false, passwordLength: 48 },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The consumer holds a copy of this key; rotating it is coordinated with the consumer, by hand.',
    });
    const deadLetterQueue = new sqs.Queue(this, `${target.id}-Dlq`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.deadLetterRetention,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of a delivery queue.',
    });
    const maxAttempts = props.retryAttempts + 1;
    const queue = new sqs.Queue(this, `${target.id}-Queue`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: visibilityTimeoutFor(DELIVERY_TIMEOUT),
      retentionPeriod: props.queueRetention,
      // The function dead-letters on the last attempt itself; the redrive catches what it could not.
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: maxAttempts },
    });
    const rule = new events.Rule(this, `${target.id}-Rule`, {
      eventBus: props.eventBus,
      description:
        `Delivers ${target.patternText}${target.connections ? ` of ${target.connections.join(', ')}` : ''} to HTTP consumer ${target.id}`.slice(
          0,
          512,
        ),
      eventPattern: {
        source: targetSources(target, props.sources),
        ...(target.detailTypes ? { detailType: target.detailTypes as string[] } : {}),
        ...targetDetail(target),
      },
      targets: [
        new targets.SqsQueue(queue, {
          deadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
    useQueueConsume(this.fn, queue, {
      batchSize: DELIVERY_BATCH_SIZE,
      maxConcurrency: DELIVERY_MAX_CONCURRENCY,
    });
    grantQueueBackoff(this.fn, queue);
    grantQueueSend(this.fn, deadLetterQueue);
    grantSecretRead(this.fn, secret);
    return { target, secret, queue, deadLetterQueue, rule };
  }

  private alarms(props: SignedDeliveriesProps): void {
    const topic = props.alarmTopic;
    for (const { target, queue, deadLetterQueue } of this.targets) {
      topic.notify(
        new cloudwatch.Alarm(this, `${target.id}-DlqAlarm`, {
          alarmName: topic.alarmName(`Delivery-${target.id}-DlqAlarm`),
          alarmDescription: `HTTP delivery ${target.id}: events given up on are in its dead-letter queue (inspect, then redrive)`,
          metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      topic.notify(
        new cloudwatch.Alarm(this, `${target.id}-AgeAlarm`, {
          alarmName: topic.alarmName(`Delivery-${target.id}-AgeAlarm`),
          alarmDescription: `HTTP delivery ${target.id}: the oldest undelivered event is older than ${props.queueAgeAlarmSeconds} s (the consumer fails or is slow)`,
          metric: queue.metricApproximateAgeOfOldestMessage({
            period: Duration.minutes(5),
            statistic: 'Maximum',
          }),
          threshold: props.queueAgeAlarmSeconds,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    topic.notify(
      new cloudwatch.Alarm(this, 'ErrorsAlarm', {
        alarmName: topic.alarmName('Delivery-ErrorsAlarm'),
        alarmDescription: 'The delivery function failed (see its log group)',
        metric: this.fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
