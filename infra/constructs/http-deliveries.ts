/**
 * Delivery of events to the user's own HTTP consumers on AWS through EventBridge API destinations
 * (`deliveryVia=api-destination`; the default is the signed delivery function of
 * signed-deliveries.ts): per configured target an EventBridge rule on the bus (the target's
 * detail-type pattern; its connections' sources and `detail.connection`, or the deployment's
 * sources) → API destination, through a connection of its own that authenticates every request
 * with an API key header whose value is the target's own generated secret (its consumer checks it;
 * no consumer knows another's key). EventBridge retries 429, 5xx and timeouts with
 * backoff up to `retryAttempts` and `maxEventAge`; what it gives up on lands in one encrypted DLQ
 * with an alarm; a second alarm counts failed invocations per target.
 */
import { Duration, type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DeliveryTarget } from '#functions/core/delivery/delivery-targets.js';
import type { AlarmTopic } from './alarm-topic.js';
import { targetDetail, targetSources } from './signed-deliveries.js';

/** Header carrying the connection's key on every delivery. */
export const DELIVERY_KEY_HEADER = 'x-accounting-events-key';

export interface HttpDeliveriesProps {
  readonly namePrefix: string;
  readonly eventBus: events.IEventBus;
  /** The `source` values delivered: the deployment's (`accounting.<connection>`, or every connection's). */
  readonly sources: string[];
  readonly targets: readonly DeliveryTarget[];
  readonly alarmTopic: AlarmTopic;
  /** Retries after the first attempt (EventBridge: 0–185). */
  readonly retryAttempts: number;
  readonly maxEventAge: Duration;
  readonly rateLimitPerSecond: number;
  readonly removalPolicy: RemovalPolicy;
}

export class HttpDeliveries extends Construct {
  /** Each target's key, by target id. */
  readonly keySecrets = new Map<string, secretsmanager.Secret>();
  readonly deadLetterQueue: sqs.Queue;
  readonly rules: events.Rule[] = [];
  readonly destinations: events.ApiDestination[] = [];

  constructor(scope: Construct, id: string, props: HttpDeliveriesProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'Dlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // What EventBridge gave up on outlives the stack under RETAIN, like every other DLQ.
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the delivery rules themselves.',
    });
    props.alarmTopic.notify(
      new cloudwatch.Alarm(this, 'DlqAlarm', {
        alarmDescription: 'HTTP deliveries: events EventBridge gave up on are in the dead-letter queue',
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const target of props.targets) this.addTarget(target, props);
  }

  /** The target's own key and the connection that sends it. */
  private connectionOf(target: DeliveryTarget, props: HttpDeliveriesProps): events.Connection {
    const key = new secretsmanager.Secret(this, `${target.id}-KeySecret`, {
      description: `Key the HTTP consumer ${target.id} of ${props.namePrefix} checks in the ${DELIVERY_KEY_HEADER} header`,
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(key).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The consumer holds a copy of this key; rotating it is coordinated with it, by hand.',
    });
    this.keySecrets.set(target.id, key);
    return new events.Connection(this, `${target.id}-Connection`, {
      description: `Authenticates deliveries to the HTTP consumer ${target.id}`,
      authorization: events.Authorization.apiKey(
        DELIVERY_KEY_HEADER,
        SecretValue.secretsManager(key.secretArn),
      ),
    });
  }

  private addTarget(target: DeliveryTarget, props: HttpDeliveriesProps): void {
    const destination = new events.ApiDestination(this, `${target.id}-Destination`, {
      connection: this.connectionOf(target, props),
      endpoint: target.url,
      httpMethod: events.HttpMethod.POST,
      rateLimitPerSecond: props.rateLimitPerSecond,
      description: `${target.patternText} → ${new URL(target.url).host}`,
    });
    const rule = new events.Rule(this, `${target.id}-Rule`, {
      eventBus: props.eventBus,
      description: `Delivers ${target.patternText} to an HTTP consumer`,
      eventPattern: {
        source: targetSources(target, props.sources),
        ...(target.detailTypes ? { detailType: target.detailTypes as string[] } : {}),
        ...targetDetail(target),
      },
      targets: [
        new targets.ApiDestination(destination, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: props.retryAttempts,
          maxEventAge: props.maxEventAge,
        }),
      ],
    });
    props.alarmTopic.notify(
      new cloudwatch.Alarm(this, `${target.id}-FailuresAlarm`, {
        alarmDescription: `HTTP delivery ${target.id} (${target.patternText}): invocations failed`,
        metric: new cloudwatch.Metric({
          namespace: 'AWS/Events',
          metricName: 'FailedInvocations',
          dimensionsMap: { RuleName: rule.ruleName, EventBusName: props.eventBus.eventBusName },
          period: Duration.minutes(5),
          statistic: 'Sum',
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    this.rules.push(rule);
    this.destinations.push(destination);
  }
}
