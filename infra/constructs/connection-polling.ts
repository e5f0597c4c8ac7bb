/**
 * Polling many connections on AWS's own engines: one EventBridge Scheduler schedule ticks the
 * dispatcher every minute; the dispatcher reads the connection registry (DynamoDB) and sends one
 * message per due, unpaused connection to an SQS FIFO queue (message group = connection, so one
 * connection is never polled by two invocations at once); the connection poller consumes the queue
 * (bounded batch and maximum concurrency, partial batch failures, a FIFO dead-letter queue) and polls
 * one connection per message with the credentials of that connection's secret — which must live
 * under `<prefix>/connections/`, the only secrets it may read. docs/deploy.md has the limits relied on.
 */
import { ArnFormat, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONNECTION_SOURCE_PREFIX } from '../../functions/core/connection.js';
import { CONNECTION_SECRET_CACHE_SECONDS } from '../../functions/core/connections/connection-secret.js';
import { CONNECTION_RECOVERED, CONNECTION_UNHEALTHY } from '../../functions/core/events/connection-events.js';
import { ENV } from '../../functions/shared/env-names.js';
import { connectionSecretsPrefix } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import type { StatefulResources } from '../stacks/stateful-stack.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AlarmTopic } from './alarm-topic.js';
import { AppFunction, retentionOf } from './app-function.js';
import { claimCheckAccessOf } from './claim-check-access.js';
import { FUNCTION_ENV } from './function-env.js';
import { putEventsStatement, useBucket, useQueueConsume, useQueueSend, useTable } from './grants.js';
import { METRICS_NAMESPACE } from './metric-names.js';
import { scheduledFunctionAlarms } from './scheduled-function-alarms.js';

export const DISPATCHER_HANDLER = 'dispatch-polls';
export const CONNECTION_POLLER_HANDLER = 'poll-connections';
export { CONNECTION_SOURCE_PREFIX };
/** What every poller publishes: `<RecordType>.<Change>` of the record events (`StringLike` patterns). */
export const POLLER_DETAIL_TYPE_PATTERNS = ['*.Created', '*.Updated', '*.Deleted'] as const;
/** The payment detector's detail-types (docs/payments.md): granted only with `payments` on. */
export const PAYMENT_DETAIL_TYPE_PATTERNS = ['*.Paid', '*.PartiallyPaid', '*.Overdue'] as const;

/** What the poller may publish under this configuration. */
export function pollerDetailTypePatterns(config: { payments: boolean }): string[] {
  return [...POLLER_DETAIL_TYPE_PATTERNS, ...(config.payments ? PAYMENT_DETAIL_TYPE_PATTERNS : [])];
}
/** Receives of one poll request before it goes to the dead-letter queue. */
export const POLL_MAX_RECEIVE_COUNT = 3;
/** A poll request older than this is dropped: newer ones of the same connection follow every minute. */
export const POLL_REQUEST_RETENTION = Duration.hours(1);

/** Beyond the poller's timeout, before a failed poll request is received again. */
export const POLL_VISIBILITY_MARGIN = Duration.seconds(10);

/**
 * Visibility of a poll request: the poller's timeout (Lambda requires at least that) plus a margin,
 * and no more. A message group is one connection, and a FIFO queue delivers nothing more of a group
 * while one of its messages is invisible: a failed poll must come back within about one poll
 * interval, not the usual six timeouts (12 minutes at 120 s), which would hold the connection that
 * long per retry.
 */
export function pollVisibilityTimeout(pollerTimeoutSeconds: number): Duration {
  return Duration.seconds(pollerTimeoutSeconds + POLL_VISIBILITY_MARGIN.toSeconds());
}

export interface ConnectionPollingProps {
  readonly config: InfraConfig;
  readonly resources: StatefulResources;
  readonly alarmTopic: AlarmTopic;
  /** Where Scheduler puts ticks it could not deliver. */
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  readonly removalPolicy: RemovalPolicy;
  readonly pollerServiceName: string;
}

export class ConnectionPolling extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly dispatcher: AppFunction;
  readonly poller: AppFunction;
  readonly schedule: scheduler.Schedule;
  readonly unhealthyRule: events.Rule;
  readonly connectionsTable: dynamodb.ITable;
  private readonly props: ConnectionPollingProps;

  constructor(scope: Construct, id: string, props: ConnectionPollingProps) {
    super(scope, id);
    this.props = props;
    const { config, resources } = props;
    if (!resources.connectionsTable || !resources.rateLimitTable) {
      throw new Error('connectionRegistry needs the connections and rate-limit tables of the stateful stack');
    }
    this.connectionsTable = resources.connectionsTable;
    const fn = (
      fnId: string,
      handler: string,
      more: { description: string; serviceName: string; memorySize: number; timeout: Duration },
    ) =>
      new AppFunction(this, fnId, {
        handler,
        usedBy: 'the connection fan-out (connectionRegistry=true)',
        metricsNamespace: METRICS_NAMESPACE,
        logLevel: config.logLevel,
        logRetention: retentionOf(config.logRetentionDays),
        removalPolicy: props.removalPolicy,
        ...more,
      });

    this.poller = fn('Poller', CONNECTION_POLLER_HANDLER, {
      description: 'Polls one connection per poll request and publishes its changes',
      serviceName: props.pollerServiceName,
      memorySize: config.pollerMemoryMb,
      timeout: Duration.seconds(config.pollerTimeoutSeconds),
    });
    this.deadLetterQueue = new sqs.Queue(this, 'PollDlq', {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(config.deadLetterRetentionDays),
      removalPolicy: props.removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'PollQueue', {
      fifo: true,
      contentBasedDeduplication: false,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: pollVisibilityTimeout(config.pollerTimeoutSeconds),
      retentionPeriod: POLL_REQUEST_RETENTION,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: POLL_MAX_RECEIVE_COUNT },
    });
    this.dispatcher = fn('Dispatcher', DISPATCHER_HANDLER, {
      description: 'Reads the connection registry and enqueues one poll request per due connection',
      serviceName: 'dispatch-polls',
      memorySize: 256,
      timeout: Duration.seconds(50),
    });
    this.grantDispatcher(this.dispatcher);
    this.grantPoller(this.poller, props);
    useQueueConsume(this.poller, this.queue, {
      batchSize: config.connectionPollerBatchSize,
      maxConcurrency: config.connectionPollerMaxConcurrency,
    });
    this.schedule = this.tick(props.scheduleDeadLetterQueue);
    this.unhealthyRule = new events.Rule(this, 'UnhealthyRule', {
      eventBus: resources.eventBus,
      description: 'Connection.Unhealthy events of any connection: logged, counted by the unhealthy alarm',
      eventPattern: {
        source: events.Match.prefix(CONNECTION_SOURCE_PREFIX),
        detailType: [CONNECTION_UNHEALTHY],
      },
    });
    this.alarms(props);
  }

  private grantDispatcher(dispatcher: AppFunction): void {
    // The registry adapter lists with a (paginated, consistent) Scan; it reads nothing else.
    this.connectionsTable.grant(dispatcher.function, 'dynamodb:Scan');
    dispatcher.setEnv(ENV.connectionsTable, this.connectionsTable.tableName);
    useQueueSend(dispatcher, this.queue, ENV.pollQueueUrl);
  }

  private grantPoller(poller: AppFunction, props: ConnectionPollingProps): void {
    const { config, resources } = props;
    this.grantConnectionAccess(poller);
    useTable(poller, resources.checkpointsTable, FUNCTION_ENV.checkpointsTable, 'checkpoints');
    useBucket(
      poller,
      resources.claimCheckBucket,
      FUNCTION_ENV.claimCheckBucket,
      claimCheckAccessOf({ write: true, read: false }),
    );
    // Any connection's source, but only the poller's detail-types.
    poller.function.addToRolePolicy(
      putEventsStatement(
        resources.eventBus,
        [`${CONNECTION_SOURCE_PREFIX}*`],
        [...pollerDetailTypePatterns(config), CONNECTION_UNHEALTHY, CONNECTION_RECOVERED],
      ),
    );
    poller.setEnv(FUNCTION_ENV.eventBusName, resources.eventBus.eventBusName);
    poller.setEnv(ENV.pollerConnectionMetrics, String(config.perConnectionMetrics));
    poller.setEnv(ENV.pollerDetailedMetrics, String(config.detailedMetrics));
    poller.setEnv(ENV.pollerPayments, String(config.payments));
  }

  /**
   * What a function serving every connection (the poller, an action) needs of them: a registry
   * entry by name, the connections' token buckets, and the secrets under the connections prefix —
   * no other secret.
   */
  grantConnectionAccess(fn: AppFunction): void {
    const { config, resources } = this.props;
    this.connectionsTable.grant(fn.function, 'dynamodb:GetItem');
    fn.setEnv(ENV.connectionsTable, this.connectionsTable.tableName);
    resources.rateLimitTable?.grant(fn.function, 'dynamodb:GetItem', 'dynamodb:PutItem');
    fn.setEnv(ENV.rateLimitTable, resources.rateLimitTable?.tableName ?? '');
    fn.setEnv(ENV.credentialsCacheSeconds, String(CONNECTION_SECRET_CACHE_SECONDS));
    const secrets = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${connectionSecretsPrefix(config)}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] }),
    );
    acknowledgeWildcardResource(
      fn.role,
      secrets,
      `Each connection's credentials are a secret of its own, named under ${connectionSecretsPrefix(config)} (docs/deploy.md); the function may read those and no other secret.`,
    );
  }

  /** Every minute, with its scheduled time: a retried tick makes the same (deduplicated) requests. */
  private tick(deadLetterQueue: sqs.IQueue): scheduler.Schedule {
    // Lambda retries a failed tick (the same requests, dropped as duplicates) while SQS still
    // remembers them; later, the next tick is due anyway.
    const maxEventAge = Duration.minutes(4);
    this.dispatcher.function.configureAsyncInvoke({ maxEventAge, retryAttempts: 2 });
    // Scheduler's role for the target is made in the stack's scope, not in this construct.
    acknowledgeWildcardResource(
      Stack.of(this),
      `${this.dispatcher.function.functionArn}:*`,
      'The Scheduler role may invoke the dispatch-polls function and its versions/aliases (arn:*) only.',
    );
    return new scheduler.Schedule(this, 'Schedule', {
      description: 'Ticks the dispatcher of the connection polls',
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
      timeWindow: scheduler.TimeWindow.off(),
      target: new schedulerTargets.LambdaInvoke(this.dispatcher.function, {
        input: scheduler.ScheduleTargetInput.fromObject({
          scheduledTime: scheduler.ContextAttribute.scheduledTime,
        }),
        deadLetterQueue,
        retryAttempts: 2,
        maxEventAge,
      }),
    });
  }

  private alarms(props: ConnectionPollingProps): void {
    const topic = props.alarmTopic;
    const period = Duration.minutes(5);
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold = 0) =>
      topic.notify(
        new cloudwatch.Alarm(this, id, {
          alarmName: topic.alarmName(`Connections-${id}`),
          alarmDescription: description,
          metric,
          threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    alarm(
      'UnhealthyAlarm',
      'A connection became unhealthy (Connection.Unhealthy: refused credentials, a missing secret, no answer); the event names it',
      new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName: 'MatchedEvents',
        dimensionsMap: {
          EventBusName: props.resources.eventBus.eventBusName,
          RuleName: this.unhealthyRule.ruleName,
        },
        statistic: 'Sum',
        period,
      }),
    );
    alarm(
      'PollDlqAlarm',
      'Poll requests that failed three times: messages in the poll dead-letter queue',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
    );
    alarm(
      'PollQueueAgeAlarm',
      `Polls fall behind: the oldest poll request is older than ${props.config.queueAgeAlarmSeconds} s`,
      this.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      props.config.queueAgeAlarmSeconds,
    );
    scheduledFunctionAlarms(this, topic, this.dispatcher, 'The dispatcher');
    alarm(
      'MalformedRegistryItemAlarm',
      'The registry holds an item that is no valid connection entry: it is not polled (the dispatcher log names its key and fields)',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'RegistryItemsMalformed',
        dimensionsMap: { service: this.dispatcher.serviceName },
        statistic: 'Maximum',
        period,
      }),
    );
    alarm(
      'DispatcherErrorsAlarm',
      'The dispatcher failed: some connections were not asked to poll this minute',
      this.dispatcher.function.metricErrors({ period, statistic: 'Sum' }),
    );
  }
}
