/**
 * Polling the deployment's connections: one poller (`poll-connections`), its ticks, and the
 * `Connection.Unhealthy` rule and alarm, for one company or many.
 *
 * - One company: its registry of one, which the poller reads from its environment (its connection,
 *   credentials secret and service), ticked every `scheduleRateMinutes` as shard 0 of 1. The
 *   poller and its schedule are the stack's `Poller` and `PollSchedule`, as they always were.
 * - Many: the connection registry (DynamoDB) split into shards — its scan segments — and one
 *   EventBridge Scheduler schedule per shard that invokes the poller every minute with
 *   `{"shard": i, "shards": n}`. Each invocation takes its shard's lease (one conditional write on
 *   the checkpoints table: a late or retried tick polls nothing while another invocation still
 *   polls the shard), reads the shard's segment of the registry and polls its due connections side
 *   by side, each with the credentials of its own secret — which must live under
 *   `<prefix>/connections/`, the only secrets it may read. docs/deploy.md has the limits relied on.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONNECTION_SOURCE_PREFIX } from '#functions/core/connection.js';
import { CONNECTION_RECOVERED, CONNECTION_UNHEALTHY } from '#functions/core/events/connection-events.js';
import { ENV } from '#functions/shared/env-names.js';
import { ruleSourcesOf } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import type { StatefulResources } from '../stacks/stateful-stack.js';
import type { FunctionSpec } from '../stacks/stateless/function-factory.js';
import { rateSchedule } from '../stacks/stateless/schedule.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AlarmTopic } from './alarm-topic.js';
import { AppFunction, retentionOf } from './app-function.js';
import { claimCheckAccessOf } from './claim-check-access.js';
import type { ConnectionsAccess } from './connections-access.js';
import { FUNCTION_ENV } from './function-env.js';
import { putEventsStatement, useBucket, useTable } from './grants.js';
import { POLLER_HANDLER } from './handler-access.js';
import { METRICS_NAMESPACE, SERVICE } from './metric-names.js';
import { scheduledFunctionAlarms } from './scheduled-function-alarms.js';

export { CONNECTION_SOURCE_PREFIX };
/** What every poller publishes: `<RecordType>.<Change>` of the record events (`StringLike` patterns). */
export const POLLER_DETAIL_TYPE_PATTERNS = ['*.Created', '*.Updated', '*.Deleted'] as const;
/** The payment detector's detail-types (docs/payments.md): granted only with `payments` on. */
export const PAYMENT_DETAIL_TYPE_PATTERNS = ['*.Paid', '*.PartiallyPaid', '*.Overdue'] as const;

/** What the poller may publish under this configuration: its changes and its connections' health. */
export function pollerDetailTypePatterns(config: { payments: boolean }): string[] {
  return [
    ...POLLER_DETAIL_TYPE_PATTERNS,
    ...(config.payments ? PAYMENT_DETAIL_TYPE_PATTERNS : []),
    CONNECTION_UNHEALTHY,
    CONNECTION_RECOVERED,
  ];
}

export interface ConnectionPollingProps {
  readonly config: InfraConfig;
  readonly resources: StatefulResources;
  readonly alarmTopic: AlarmTopic;
  /** Where Scheduler puts ticks it could not deliver. */
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  /** The registry table, or the registry of one. */
  readonly connections: ConnectionsAccess;
  /** Builds a function in the stack with the access its handler declares (the stack's function factory). */
  readonly functions: { appFunction(id: string, handler: string, spec: FunctionSpec): AppFunction };
}

export class ConnectionPolling extends Construct {
  readonly poller: AppFunction;
  /** One per shard of the registry, every minute; the registry of one's, every `scheduleRateMinutes`. */
  readonly schedules: scheduler.Schedule[];
  readonly unhealthyRule: events.Rule;
  /** Whether it made the poller's throttle and dropped-tick alarms (the registry's: always). */
  readonly pollerRunAlarmed: boolean;
  private readonly props: ConnectionPollingProps;

  constructor(scope: Construct, id: string, props: ConnectionPollingProps) {
    super(scope, id);
    this.props = props;
    const { config, resources } = props;
    const table = props.connections.table;
    if (table) {
      this.poller = this.registryPoller(table);
      this.schedules = this.ticks(props.scheduleDeadLetterQueue);
    } else {
      this.poller = this.onePoller();
      this.schedules = [
        rateSchedule(Stack.of(this), 'PollSchedule', {
          fn: this.poller,
          rateMinutes: config.scheduleRateMinutes,
          description: 'Ticks the poller',
          deadLetterQueue: props.scheduleDeadLetterQueue,
        }),
      ];
    }
    this.unhealthyRule = new events.Rule(this, 'UnhealthyRule', {
      eventBus: resources.eventBus,
      description: 'Connection.Unhealthy events of any connection: logged, counted by the unhealthy alarm',
      eventPattern: { source: ruleSourcesOf(config), detailType: [CONNECTION_UNHEALTHY] },
    });
    this.pollerRunAlarmed = table !== undefined;
    this.alarms(props, table);
  }

  /** The first tick (the only one with one company, or shard 0's). */
  get pollSchedule(): scheduler.Schedule {
    return this.schedules[0] as scheduler.Schedule;
  }

  /**
   * The registry of one's poller, in the stack's scope (its logical id stays `Poller`): the access
   * its handler declares, the deployment's credentials, its connection's source.
   */
  private onePoller(): AppFunction {
    const { config } = this.props;
    const poller = this.props.functions.appFunction('Poller', POLLER_HANDLER, {
      usedBy: 'the poller',
      description: 'Polls the accounting service for changes and publishes one event per change',
      serviceName: SERVICE.poller,
      memorySize: config.pollerMemoryMb,
      timeout: Duration.seconds(config.pollerTimeoutSeconds),
      publishes: { detailTypePatterns: pollerDetailTypePatterns(config) },
      ...(config.pollerReservedConcurrency > 0
        ? { reservedConcurrentExecutions: config.pollerReservedConcurrency }
        : {}),
    });
    poller
      .setEnv(FUNCTION_ENV.collections, config.collections.join(','))
      .setEnv(FUNCTION_ENV.eventSource, this.props.connections.publishSource)
      .setEnv(ENV.pollerPayments, String(config.payments))
      .setEnv(ENV.pollerDetailedMetrics, String(config.detailedMetrics));
    return poller;
  }

  /** The poller of the registry's shards: any connection's entry, secret, token bucket and source. */
  private registryPoller(table: dynamodb.ITable): AppFunction {
    const { config, resources } = this.props;
    const poller = new AppFunction(this, 'Poller', {
      handler: POLLER_HANDLER,
      usedBy: 'the poller of the connection registry (connectionRegistry=true)',
      description: 'Polls the due connections of one shard of the registry and publishes their changes',
      serviceName: SERVICE.connectionPoller,
      memorySize: config.pollerMemoryMb,
      timeout: Duration.seconds(config.pollerTimeoutSeconds),
      metricsNamespace: METRICS_NAMESPACE,
      logLevel: config.logLevel,
      logRetention: retentionOf(config.logRetentionDays),
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    this.props.connections.grantConnectionAccess(poller);
    // The shard's segment of the registry: a (paginated, eventually consistent) segment Scan.
    table.grant(poller.function, 'dynamodb:Scan');
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
        [this.props.connections.publishSource],
        pollerDetailTypePatterns(config),
      ),
    );
    poller.setEnv(FUNCTION_ENV.eventBusName, resources.eventBus.eventBusName);
    poller.setEnv(ENV.pollerConnectionMetrics, String(config.perConnectionMetrics));
    poller.setEnv(ENV.pollerDetailedMetrics, String(config.detailedMetrics));
    poller.setEnv(ENV.pollerPayments, String(config.payments));
    return poller;
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

  /**
   * The unhealthy alarm, either way; with the registry also the poller's scheduled-run alarms and
   * malformed registry items (a registry of one has no items).
   */
  private alarms(props: ConnectionPollingProps, table: dynamodb.ITable | undefined): void {
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
    if (!table) return;
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
