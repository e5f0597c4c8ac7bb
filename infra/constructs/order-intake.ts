/**
 * The e-shop order intake on AWS:
 *
 *   HTTP API `ANY /intake/{connection}/{source}`, `ANY /intake/{source}` (stage throttling, access logs)
 *     → intake-webhook Lambda: verify, validate, queue, 202 (it never calls the accounting service)
 *     → SQS FIFO queue (dedupe by delivery id, one group per shop order) + FIFO DLQ
 *     → import-orders Lambda: one received order per shop order (idempotency table)
 *
 * The signing secrets live in their own Secrets Manager secret (`{"shopify","woocommerce",
 * "generic","shoptet"}`), created empty: every source stays disabled (404) until its secret is stored.
 * The body limit is the endpoint's own (`INTAKE_MAX_BODY_BYTES`, 4 MiB, 413): an HTTP API's payload
 * limit (10 MB) is fixed, a synchronous Lambda invocation's is 6 MB. An accepted order whose queue
 * message would pass SQS's 256 KiB is claim-checked: the receiver may only put objects under
 * `intake-orders/` of the claim-check bucket and the importer may only get them. Alarms: DLQ not
 * empty, oldest message age, either function's errors, the API's 5xx.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { intakeDetailType } from '#functions/core/events/intake-events.js';
import { ORDER_CLAIM_PREFIX } from '#functions/core/intake/order-claim-check.js';
import { ENV } from '#functions/shared/env-names.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';
import { eventSourceOf } from '../config/names.js';
import { idempotencyExpirySeconds } from '../config/replay-horizon.js';
import type { InfraConfig } from '../config/schema.js';
import type { StatefulResources } from '../stacks/stateful-stack.js';
import type { AlarmTopic } from './alarm-topic.js';
import { AppFunction, retentionOf, visibilityTimeoutFor } from './app-function.js';
import type { ConnectionsAccess } from './connections-access.js';
import { FUNCTION_ENV } from './function-env.js';
import { useBucket, useEventBus, useQueueConsume, useQueueSend, useSecret, useTable } from './grants.js';
import { type IntakeShoptet, intakeShoptet } from './intake-shoptet.js';
import { METRICS_NAMESPACE } from './metric-names.js';

export const INTAKE_WEBHOOK_HANDLER = 'intake-webhook';
export const IMPORT_ORDERS_HANDLER = 'import-orders';
const IMPORT_TIMEOUT = Duration.seconds(60);
const MAX_RECEIVE_COUNT = 5;

export interface OrderIntakeProps {
  readonly config: InfraConfig;
  readonly resources: StatefulResources;
  readonly alarmTopic: AlarmTopic;
  /**
   * The registry of one (the importer reads the deployment's credentials secret; both publish as
   * its connection) or the connection registry (the endpoint reads a connection's registry entry,
   * the importer every connection's entry, secret and token bucket; both publish as any
   * connection, `accounting.*`).
   */
  readonly connections: ConnectionsAccess;
}

export class OrderIntake extends Construct {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly secret: secretsmanager.Secret;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly receiver: AppFunction;
  readonly importer: AppFunction;
  /** With `intakeShoptet`: the API token's secret and the sweep's schedule. */
  readonly shoptet: IntakeShoptet | undefined;
  private readonly settings: OrderIntakeProps;

  constructor(scope: Construct, id: string, props: OrderIntakeProps) {
    super(scope, id);
    this.settings = props;
    const { config, resources } = props;
    const removalPolicy = config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.secret = new secretsmanager.Secret(this, 'Secrets', {
      description:
        'Webhook signing secrets of the order intake: {"shopify","woocommerce","generic","shoptet"}',
      secretObjectValue: {},
      removalPolicy,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Webhook signing secrets are issued by the shop platforms; they are rotated there and stored here by hand.',
    });

    const fifo = { fifo: true, encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;
    this.deadLetterQueue = new sqs.Queue(this, 'Dlq', {
      ...fifo,
      retentionPeriod: Duration.days(config.deadLetterRetentionDays),
      removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...fifo,
      // A delivery repeated inside 5 minutes is dropped; deliveries of one order keep their order.
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: visibilityTimeoutFor(IMPORT_TIMEOUT),
      retentionPeriod: Duration.days(config.redriveWindowDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    this.receiver = this.fn('Receiver', INTAKE_WEBHOOK_HANDLER, {
      description: 'Order intake endpoint: verifies shop webhooks, queues the order, answers 202',
      memorySize: config.actionMemoryMb,
      timeout: Duration.seconds(10),
    });
    useSecret(this.receiver, this.secret, INTAKE_ENV.secretsSecret);
    useQueueSend(this.receiver, this.queue, INTAKE_ENV.queueUrl);
    // Its own connection's source, or with the registry any connection's (the path names it).
    const source = props.connections.publishSource;
    props.connections.grantRegistryRead(this.receiver);
    useEventBus(this.receiver, resources.eventBus, FUNCTION_ENV.eventBusName, {
      source,
      // `Paid`: a shop's payment topic (Shopify `orders/paid`, WooCommerce's paid order).
      detailTypes: [intakeDetailType('Received'), intakeDetailType('Rejected'), intakeDetailType('Paid')],
    });

    this.importer = this.importFunction(props, source);
    useQueueConsume(this.importer, this.queue, { batchSize: 10, maxConcurrency: 2 });
    for (const fn of [this.receiver, this.importer]) {
      for (const [name, value] of Object.entries(config.intakeSettings)) fn.setEnv(name, value);
    }

    this.shoptet = config.intakeShoptet
      ? intakeShoptet(this, { config, importer: this.importer, queue: this.queue, removalPolicy })
      : undefined;

    ({ api: this.api, stage: this.stage } = this.httpApi(config, removalPolicy));
    this.alarms(props.alarmTopic);
  }

  /** The import function: its client's credentials, the idempotency table, and what it publishes. */
  private importFunction(props: OrderIntakeProps, source: string): AppFunction {
    const { config, resources } = props;
    const importer = this.fn('Importer', IMPORT_ORDERS_HANDLER, {
      description: 'Order intake import: one received order per shop order',
      memorySize: config.actionMemoryMb,
      timeout: IMPORT_TIMEOUT,
    });
    props.connections.grantConnectionAccess(importer);
    useTable(importer, resources.idempotencyTable, FUNCTION_ENV.idempotencyTable, 'idempotency');
    this.claimCheckGrants(resources, importer);
    importer.setEnv(ENV.actionsIdempotencyExpiresSeconds, String(idempotencyExpirySeconds(config)));
    useEventBus(importer, resources.eventBus, FUNCTION_ENV.eventBusName, {
      source,
      // With Shoptet, a notification's order is received here, once it is fetched; `Paid`:
      // Shoptet's `order:paid`, announced once the order is fetched and imported.
      detailTypes: [
        ...(config.intakeShoptet ? [intakeDetailType('Received')] : []),
        intakeDetailType('Imported'),
        intakeDetailType('Rejected'),
        intakeDetailType('Paid'),
      ],
    });
    return importer;
  }

  /** Orders too large for a queue message, under their own prefix: the endpoint puts, the import gets. */
  private claimCheckGrants(resources: StatefulResources, importer: AppFunction): void {
    const { claimCheckBucket } = resources;
    const env = FUNCTION_ENV.claimCheckBucket;
    useBucket(this.receiver, claimCheckBucket, env, {
      objects: [{ prefix: ORDER_CLAIM_PREFIX, actions: ['s3:PutObject'] }],
    });
    useBucket(importer, claimCheckBucket, env, {
      objects: [{ prefix: ORDER_CLAIM_PREFIX, actions: ['s3:GetObject'] }],
      // An expired claim check answers 404 ("expired or never stored"), not 403.
      missingKeysAnswer404: true,
    });
  }

  private fn(
    id: string,
    handler: string,
    props: { description: string; memorySize: number; timeout: Duration },
  ): AppFunction {
    const { config } = this.settings;
    const fn = new AppFunction(this, id, {
      handler,
      usedBy: 'the order intake',
      ...props,
      serviceName: handler,
      metricsNamespace: METRICS_NAMESPACE,
      logLevel: config.logLevel,
      logRetention: retentionOf(config.logRetentionDays),
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    fn.setEnv(FUNCTION_ENV.connection, config.connection);
    fn.setEnv(FUNCTION_ENV.eventSource, eventSourceOf(config));
    return fn;
  }

  private httpApi(config: InfraConfig, removalPolicy: RemovalPolicy) {
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: retentionOf(config.logRetentionDays),
      removalPolicy,
    });
    const api = new apigwv2.HttpApi(this, 'Api', {
      description: 'E-shop order intake: POST /intake/{connection}/{source} or /intake/{source}',
      createDefaultStage: false,
    });
    const integration = new HttpLambdaIntegration('Receive', this.receiver.function, {
      payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
    });
    // Any source name reaches the function (which answers 404 for one it does not serve), so a new
    // source needs no route; every method too, so a wrong one is answered 405 (not 404).
    for (const path of ['/intake/{source}', '/intake/{connection}/{source}']) {
      api.addRoutes({ path, methods: [apigwv2.HttpMethod.ANY], integration });
    }
    const stage = new apigwv2.HttpStage(this, 'Stage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.intakeThrottleRate, burstLimit: config.intakeThrottleBurst },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        // Request metadata only: no body, no header value.
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: apigw.AccessLogField.contextRequestId(),
            time: apigw.AccessLogField.contextRequestTime(),
            method: apigw.AccessLogField.contextHttpMethod(),
            path: apigw.AccessLogField.contextPath(),
            status: apigw.AccessLogField.contextStatus(),
            length: apigw.AccessLogField.contextResponseLength(),
            latency: apigw.AccessLogField.contextResponseLatency(),
          }),
        ),
      },
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Shop webhooks authenticate by an HMAC or Standard Webhooks signature over the body, checked by the function.',
    });
    return { api, stage };
  }

  private alarms(topic: AlarmTopic): void {
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold = 0) =>
      topic.notify(
        new cloudwatch.Alarm(this, id, {
          alarmName: topic.alarmName(`Intake${id}`),
          alarmDescription: description,
          metric,
          threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    const minute = Duration.minutes(1);
    const fiveMinutes = Duration.minutes(5);
    alarm(
      'DlqAlarm',
      'Shop orders the import gave up on: messages in the intake DLQ (inspect, then redrive)',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum' }),
    );
    // The shop retries while the endpoint answers 5xx; an order the import gave up on waits in the
    // DLQ. Those two guard against loss; the rest only with `operationalAlarms`.
    alarm(
      'Api5xxAlarm',
      'The intake API answered 5xx',
      this.api.metricServerError({ period: fiveMinutes, statistic: 'Sum' }),
    );
    if (!this.settings.config.operationalAlarms) return;
    alarm(
      'QueueAgeAlarm',
      'Shop orders waiting for the import longer than the queue-age threshold',
      this.queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
      this.settings.config.queueAgeAlarmSeconds,
    );
    alarm(
      'ReceiverErrorsAlarm',
      'The intake endpoint failed (shops retry on 5xx)',
      this.receiver.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
    );
    alarm(
      'ImporterErrorsAlarm',
      'The intake import failed an invocation',
      this.importer.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
    );
  }
}
