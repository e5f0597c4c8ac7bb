/**
 * Polling many connections: the connection registry (DynamoDB) split into shards — its scan
 * segments — and one EventBridge Scheduler schedule per shard that invokes the poller every minute
 * with `{"shard": i, "shards": n}`. Each invocation takes its shard's lease (one conditional write
 * on the checkpoints table: a late or retried tick polls nothing while another invocation still
 * polls the shard), reads the shard's segment of the registry and polls its due connections side
 * by side, each with the credentials of its own secret — which must live under
 * `<prefix>/connections/`, the only secrets it may read. docs/deploy.md has the limits relied on.
 */
import { ArnFormat, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
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
import { putEventsStatement, useBucket, useTable } from './grants.js';
import { METRICS_NAMESPACE } from './metric-names.js';
import { scheduledFunctionAlarms } from './scheduled-function-alarms.js';
import { grantSealedCredentialsRead } from './sealing-key.js';

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
  readonly poller: AppFunction;
  /** One per shard, every minute. */
  readonly schedules: scheduler.Schedule[];
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
    this.poller = new AppFunction(this, 'Poller', {
      handler: CONNECTION_POLLER_HANDLER,
      usedBy: 'the poller of the connection registry (connectionRegistry=true)',
      description: 'Polls the due connections of one shard of the registry and publishes their changes',
      serviceName: props.pollerServiceName,
      memorySize: config.pollerMemoryMb,
      timeout: Duration.seconds(config.pollerTimeoutSeconds),
      metricsNamespace: METRICS_NAMESPACE,
      logLevel: config.logLevel,
      logRetention: retentionOf(config.logRetentionDays),
      removalPolicy: props.removalPolicy,
    });
    this.grantPoller(this.poller, props);
    this.schedules = this.ticks(props.scheduleDeadLetterQueue);
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

  private grantPoller(poller: AppFunction, props: ConnectionPollingProps): void {
    const { config, resources } = props;
    this.grantConnectionAccess(poller);
    // The shard's segment of the registry: a (paginated, eventually consistent) segment Scan.
    this.connectionsTable.grant(poller.function, 'dynamodb:Scan');
    // The checkpoints, and the shards' leases beside them (one conditional PutItem per cycle).
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
   * entry by name, the connections' token buckets, and the secrets or SSM parameters under the
   * connections prefix — no other secret.
   */
  grantConnectionAccess(fn: AppFunction): void {
    const { config, resources } = this.props;
    this.grantRegistryRead(fn);
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
    // Or an SSM Parameter Store SecureString `/<prefix>/connections/<name>` (`ssm:` references),
    // read ten at a time; the AWS managed key `aws/ssm` decrypts it on the function's behalf.
    const parameters = Stack.of(this).formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: `${connectionSecretsPrefix(config)}*`,
    });
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['ssm:GetParameters'], resources: [parameters] }),
    );
    acknowledgeWildcardResource(
      fn.role,
      parameters,
      `Each connection's credentials may be an SSM parameter of its own under /${connectionSecretsPrefix(config)} (docs/deploy.md); the function may read those and no other parameter.`,
    );
    // Or sealed in the entry (`sealed:` references), opened with a data key read once per container.
    grantSealedCredentialsRead(fn, resources.sealingKey, config);
  }

  /** A registry entry by name, and nothing of the connections' credentials (the intake endpoint). */
  grantRegistryRead(fn: AppFunction): void {
    this.connectionsTable.grant(fn.function, 'dynamodb:GetItem');
    fn.setEnv(ENV.connectionsTable, this.connectionsTable.tableName);
  }

  /**
   * One schedule per shard, every minute, with the shard and its scheduled time. A tick that could
   * not start within the minute is stale (the next one does the same work); one that overlaps a
   * running poll of its shard finds the lease held and polls nothing.
   */
  private ticks(deadLetterQueue: sqs.IQueue): scheduler.Schedule[] {
    const shards = this.props.config.connectionPollerShards;
    const maxEventAge = Duration.minutes(1);
    this.poller.function.configureAsyncInvoke({ maxEventAge, retryAttempts: 0 });
    // Scheduler's role for the target is made in the stack's scope, not in this construct.
    acknowledgeWildcardResource(
      Stack.of(this),
      `${this.poller.function.functionArn}:*`,
      'The Scheduler role may invoke the poll-connections function and its versions/aliases (arn:*) only.',
    );
    return Array.from(
      { length: shards },
      (_, shard) =>
        new scheduler.Schedule(this, shards === 1 ? 'Schedule' : `Schedule${shard}`, {
          description: `Ticks the poller of shard ${shard} of ${shards} of the connection registry`,
          schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
          timeWindow: scheduler.TimeWindow.off(),
          target: new schedulerTargets.LambdaInvoke(this.poller.function, {
            input: scheduler.ScheduleTargetInput.fromObject({
              shard,
              shards,
              scheduledTime: scheduler.ContextAttribute.scheduledTime,
            }),
            deadLetterQueue,
            retryAttempts: 2,
            maxEventAge,
          }),
        }),
    );
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
    scheduledFunctionAlarms(this, topic, this.poller, 'The poller');
    alarm(
      'MalformedRegistryItemAlarm',
      'The registry holds an item that is no valid connection entry: it is not polled (the poller log names its key and fields)',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'RegistryItemsMalformed',
        dimensionsMap: { service: this.poller.serviceName },
        statistic: 'Maximum',
        period,
      }),
    );
  }
}
