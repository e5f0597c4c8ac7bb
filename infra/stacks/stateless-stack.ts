/**
 * Code and wiring, safe to replace at any time: the poller and its schedule, one rule → queue
 * (+ DLQ) → function per route of the routing table, scheduled actions, alarms and the dashboard.
 * Stateful resources arrive as typed props.
 */
import {
  Annotations,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseTargetSpecs } from '../../functions/core/delivery/delivery-targets.js';
import {
  ACTION_FAILED,
  actionEvents,
  type OutcomeDetailType,
} from '../../functions/core/events/action-events.js';
import type { RoutePattern } from '../../functions/core/route-spec.js';
import type { Route, ScheduledAction } from '../../functions/core/routes.js';
import { ENV } from '../../functions/shared/env-names.js';
import {
  eventSourceOf,
  type InfraConfig,
  idempotencyExpirySeconds,
  namePrefix,
  ruleSourcesOf,
} from '../config.js';
import { acknowledgeWildcardResource } from '../constructs/acknowledge-wildcards.js';
import { AlarmTopic } from '../constructs/alarm-topic.js';
import { AppFunction, retentionOf, visibilityTimeoutFor } from '../constructs/app-function.js';
import {
  CONNECTION_SOURCE_PREFIX,
  ConnectionPolling,
  POLLER_DETAIL_TYPE_PATTERNS,
} from '../constructs/connection-polling.js';
import { FUNCTION_ENV } from '../constructs/function-env.js';
import {
  type PutEventsScope,
  useBucket,
  useEventBus,
  useQueueSend,
  useSecret,
  useTable,
} from '../constructs/grants.js';
import { accessOf, POLLER_HANDLER } from '../constructs/handler-access.js';
import { findHandlerEntry, MissingHandlerError } from '../constructs/handler-entry.js';
import { HttpDeliveries } from '../constructs/http-deliveries.js';
import { EventLogGroup } from '../constructs/log-group-target.js';
import { METRIC, METRICS_NAMESPACE, SERVICE } from '../constructs/metric-names.js';
import { OperationsDashboard } from '../constructs/operations-dashboard.js';
import { OrderIntake } from '../constructs/order-intake.js';
import { scheduledFunctionAlarms } from '../constructs/scheduled-function-alarms.js';
import { ARCHIVE_PREFIX, type StatefulResources } from './stateful-stack.js';

/**
 * The detail-type of a failed action (functions/core/events/action-events.ts), the detail-type
 * patterns every poller publishes (`<RecordType>.<Change>`) and the poller's handler module.
 */
export { ACTION_FAILED, POLLER_DETAIL_TYPE_PATTERNS, POLLER_HANDLER };

export interface StatelessStackProps extends StackProps {
  readonly config: InfraConfig;
  readonly resources: StatefulResources;
  /** The routing table (`buildRoutes(actionsConfig)` of functions/core/routes.ts). */
  readonly routes: readonly Route[];
  /** Functions run on a rate (`buildScheduledActions(actionsConfig)`). */
  readonly scheduledActions: readonly ScheduledAction[];
}

/** One route's resources. */
export interface RouteResources {
  readonly route: Route;
  readonly rule: events.Rule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly fn: AppFunction;
}

/** The routing table's pattern in the shape `events.Rule` takes; renders back to the same JSON. */
export function toEventPattern(pattern: RoutePattern): events.EventPattern {
  return {
    // A `{ prefix }` source (every connection's) renders as EventBridge reads it.
    ...(pattern.source ? { source: pattern.source as string[] } : {}),
    detailType: pattern['detail-type'],
    ...(pattern.detail ? { detail: pattern.detail as Record<string, unknown> } : {}),
  };
}

export class StatelessStack extends Stack {
  readonly poller: AppFunction;
  readonly pollSchedule: scheduler.Schedule;
  /** With `connectionRegistry`: the dispatcher, the poll queue and the poller of many connections. */
  readonly connectionPolling: ConnectionPolling | undefined;
  readonly scheduleDeadLetterQueue: sqs.Queue;
  readonly routeResources: RouteResources[] = [];
  readonly scheduledFunctions: AppFunction[] = [];
  readonly alarmTopic: AlarmTopic;
  readonly dashboard: OperationsDashboard;
  /** The e-shop order intake (absent with `intakeEnabled=false`). */
  readonly orderIntake: OrderIntake | undefined;
  readonly outcomesLogGroup: logs.LogGroup;
  readonly actionFailedRule: events.Rule;
  /** API destinations to the configured HTTP consumers (`deliveries`), when there are any. */
  readonly httpDeliveries: HttpDeliveries | undefined;

  private readonly config: InfraConfig;
  private readonly resources: StatefulResources;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, resources } = props;
    this.config = config;
    this.resources = resources;
    const prefix = namePrefix(config);

    const ids = new Set<string>();
    for (const route of props.routes) {
      if (ids.has(route.id)) throw new Error(`routing table: route id '${route.id}' appears twice`);
      ids.add(route.id);
    }

    // Bundling needs every handler module: name all the missing ones at once.
    if (this.bundlingRequired) {
      const wanted = [
        { handler: POLLER_HANDLER, usedBy: 'the poller' },
        ...props.routes.map((r) => ({ handler: r.handler, usedBy: `route '${r.id}'` })),
        ...props.scheduledActions.map((a) => ({ handler: a.handler, usedBy: `scheduled action '${a.id}'` })),
      ];
      const missing = wanted.filter((w) => findHandlerEntry(w.handler) === undefined);
      if (missing.length > 0) throw new MissingHandlerError(missing);
    }

    this.alarmTopic = new AlarmTopic(this, 'Alarms', {
      topicName: `${prefix}-alarms`,
      alarmNamePrefix: `${prefix}-`,
      ...(config.alarmEmail ? { email: config.alarmEmail } : {}),
    });

    this.scheduleDeadLetterQueue = this.deadLetterQueue('ScheduleDlq');
    Validations.of(this.scheduleDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the EventBridge Scheduler schedules itself.',
    });

    // --- poller + schedule: one connection, or the fan-out over the connection registry
    if (config.connectionRegistry) {
      this.connectionPolling = new ConnectionPolling(this, 'Connections', {
        config,
        resources,
        alarmTopic: this.alarmTopic,
        scheduleDeadLetterQueue: this.scheduleDeadLetterQueue,
        removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
        pollerServiceName: SERVICE.connectionPoller,
      });
      this.poller = this.connectionPolling.poller;
      this.pollSchedule = this.connectionPolling.schedule;
    } else {
      this.poller = this.appFunction('Poller', POLLER_HANDLER, {
        usedBy: 'the poller',
        description: 'Polls the accounting service for changes and publishes one event per change',
        serviceName: SERVICE.poller,
        memorySize: config.pollerMemoryMb,
        timeout: Duration.seconds(config.pollerTimeoutSeconds),
        publishes: { detailTypePatterns: [...POLLER_DETAIL_TYPE_PATTERNS] },
        ...(config.pollerReservedConcurrency > 0
          ? { reservedConcurrentExecutions: config.pollerReservedConcurrency }
          : {}),
      });
      this.poller
        .setEnv(FUNCTION_ENV.collections, config.collections.join(','))
        .setEnv(FUNCTION_ENV.eventSource, eventSourceOf(config));
      this.pollSchedule = this.schedule(
        'PollSchedule',
        this.poller,
        config.scheduleRateMinutes,
        'Ticks the poller',
      );
    }

    // --- one rule → queue (+DLQ) → function per route
    for (const route of props.routes) this.routeResources.push(this.route(route));

    // --- e-shop order intake: HTTP API → verify → FIFO queue → import
    if (config.intakeEnabled) {
      const polling = this.connectionPolling;
      this.orderIntake = new OrderIntake(this, 'OrderIntake', {
        config,
        resources: props.resources,
        alarmTopic: this.alarmTopic,
        ...(polling ? { connectionAccess: (fn: AppFunction) => polling.grantConnectionAccess(fn) } : {}),
      });
      new CfnOutput(this, 'IntakeUrl', { value: `${this.orderIntake.api.apiEndpoint}/intake/` });
      new CfnOutput(this, 'IntakeSecretArn', { value: this.orderIntake.secret.secretArn });
    }

    // --- scheduled actions
    for (const action of props.scheduledActions) {
      const fn = this.appFunction(`Scheduled-${action.id}`, action.handler, {
        usedBy: `scheduled action '${action.id}'`,
        description: action.description,
        serviceName: SERVICE.scheduled(action.id),
        memorySize: config.actionMemoryMb,
        timeout: Duration.seconds(action.timeoutSeconds),
        reservedConcurrentExecutions: 1,
        publishes: { detailTypes: [...new Set<OutcomeDetailType>([...action.outcomes, ACTION_FAILED])] },
        everyConnection: config.connectionRegistry,
      });
      // With the registry a run passes over every connection: it lists them (Scan).
      this.connectionPolling?.connectionsTable.grant(fn.function, 'dynamodb:Scan');
      this.actionSettings(fn);
      this.schedule(`Schedule-${action.id}`, fn, action.rateMinutes, action.description);
      this.scheduledFunctions.push(fn);
    }

    // --- action outcomes: every outcome event lands in one log group (audit trail, dashboard)
    const outcomesLog = new EventLogGroup(this, 'ActionOutcomesLog', {
      retention: retentionOf(config.logRetentionDays),
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    this.outcomesLogGroup = outcomesLog.logGroup;
    this.connectionPolling?.unhealthyRule.addTarget(outcomesLog.target());
    const outcomeTypes = actionEvents.map((e) => e.detailType).filter((t) => t !== ACTION_FAILED);
    new events.Rule(this, 'ActionOutcomesRule', {
      eventBus: resources.eventBus,
      description: 'Copies action outcome events to the action outcomes log group',
      eventPattern: { source: ruleSourcesOf(config), detailType: outcomeTypes },
      targets: [outcomesLog.target()],
    });
    this.actionFailedRule = new events.Rule(this, 'ActionFailedRule', {
      eventBus: resources.eventBus,
      description: 'Action.Failed events: logged, counted by the action failures alarm',
      eventPattern: { source: ruleSourcesOf(config), detailType: [ACTION_FAILED] },
      targets: [outcomesLog.target()],
    });

    if (config.deliveries.length > 0) {
      this.httpDeliveries = new HttpDeliveries(this, 'HttpDeliveries', {
        namePrefix: prefix,
        eventBus: resources.eventBus,
        sources: ruleSourcesOf(config),
        targets: parseTargetSpecs(config.deliveries),
        alarmTopic: this.alarmTopic,
        retryAttempts: config.deliveryRetryAttempts,
        maxEventAge: Duration.hours(24),
        rateLimitPerSecond: config.deliveryRateLimitPerSecond,
        removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      });
      new CfnOutput(this, 'DeliveryKeySecretArn', { value: this.httpDeliveries.keySecret.secretArn });
    }

    this.alarms();
    this.dashboard = new OperationsDashboard(this, 'Dashboard', {
      dashboardName: prefix,
      namespace: METRICS_NAMESPACE,
      poller: this.poller,
      routes: this.routeResources,
      scheduled: this.scheduledFunctions,
      scheduleDeadLetterQueue: this.scheduleDeadLetterQueue,
      alarms: this.alarmTopic.alarms,
      outcomesLogGroup: this.outcomesLogGroup,
      ...(config.connectionRegistry ? { connections: { perConnection: config.perConnectionMetrics } } : {}),
    });

    new CfnOutput(this, 'PollerFunctionName', { value: this.poller.function.functionName });
    new CfnOutput(this, 'PollerLogGroupName', { value: this.poller.logGroup.logGroupName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: prefix });
  }

  private queue(id: string, props: sqs.QueueProps = {}): sqs.Queue {
    return new sqs.Queue(this, id, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...props,
    });
  }

  /** A dead-letter queue: what it holds waits for a person, so it is kept with the stack under RETAIN. */
  private deadLetterQueue(id: string): sqs.Queue {
    return this.queue(id, {
      retentionPeriod: Duration.days(this.config.deadLetterRetentionDays),
      removalPolicy: this.config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }

  private appFunction(
    id: string,
    handler: string,
    props: {
      usedBy: string;
      description: string;
      serviceName: string;
      memorySize: number;
      timeout: Duration;
      reservedConcurrentExecutions?: number;
      /** What the function may put on the bus (with `access.publishEvents`). */
      publishes?: Omit<PutEventsScope, 'source'>;
      /** It serves every connection of the registry (an action route with `connectionRegistry`). */
      everyConnection?: boolean;
    },
  ): AppFunction {
    const { config, resources } = this;
    const { publishes, everyConnection, ...functionProps } = props;
    const fn = new AppFunction(this, id, {
      handler,
      ...functionProps,
      metricsNamespace: METRICS_NAMESPACE,
      logLevel: config.logLevel,
      logRetention: retentionOf(config.logRetentionDays),
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    // One connection for the poller and every action: events, checkpoints, archive keys, sendings.
    fn.setEnv(FUNCTION_ENV.connection, config.connection);
    const { access, known } = accessOf(handler);
    if (!known) {
      Annotations.of(fn).addWarningV2(
        'accounting-events:unknownHandlerAccess',
        `handler '${handler}' is neither the poller nor an action of functions/core/actions/registry.ts; it gets the default action access`,
      );
    }
    if (access.accountingApi && everyConnection) {
      // Each event's connection: its registry entry, its own secret, its token bucket.
      this.connectionPolling?.grantConnectionAccess(fn);
    } else if (access.accountingApi) {
      useSecret(fn, resources.credentialsSecret, FUNCTION_ENV.credentialsSecret);
      fn.setEnv(FUNCTION_ENV.serviceVariant, config.serviceVariant);
      if (config.accountingBaseUrl) fn.setEnv(FUNCTION_ENV.baseUrl, config.accountingBaseUrl);
      if (config.accountingAuthUrl) fn.setEnv(FUNCTION_ENV.authUrl, config.accountingAuthUrl);
    }
    if (access.publishEvents) {
      useEventBus(fn, resources.eventBus, FUNCTION_ENV.eventBusName, {
        source: everyConnection ? `${CONNECTION_SOURCE_PREFIX}*` : eventSourceOf(config),
        ...(publishes ?? { detailTypes: [ACTION_FAILED] }),
      });
    }
    if (access.checkpoints)
      useTable(fn, resources.checkpointsTable, FUNCTION_ENV.checkpointsTable, 'checkpoints');
    if (access.idempotency)
      useTable(fn, resources.idempotencyTable, FUNCTION_ENV.idempotencyTable, 'idempotency');
    if (access.actionState) useTable(fn, resources.actionStateTable, FUNCTION_ENV.actionStateTable, 'state');
    if (access.archiveWrite) {
      useBucket(fn, resources.archiveBucket, FUNCTION_ENV.archiveBucket, {
        prefix: ARCHIVE_PREFIX,
        read: true,
        write: true,
        list: true,
      });
    }
    if (access.claimCheckWrite || access.claimCheckRead) {
      useBucket(fn, resources.claimCheckBucket, FUNCTION_ENV.claimCheckBucket, {
        read: access.claimCheckRead,
        write: access.claimCheckWrite,
      });
    }
    return fn;
  }

  /** Every action function gets the same action settings the routing table was built from. */
  private actionSettings(fn: AppFunction): void {
    for (const [name, value] of Object.entries(this.config.actions)) fn.setEnv(name, value);
    // Derived from the replay horizon (config.ts refuses a shorter explicit one).
    const derived = idempotencyExpirySeconds(this.config);
    const given = Number(this.config.actions[ENV.actionsIdempotencyExpiresSeconds] ?? 0);
    fn.setEnv(ENV.actionsIdempotencyExpiresSeconds, String(Math.max(derived, given)));
  }

  /** Ticks `fn` every `rateMinutes`; a tick older than one interval is superseded by the next one. */
  private schedule(
    id: string,
    fn: AppFunction,
    rateMinutes: number,
    description: string,
  ): scheduler.Schedule {
    const maxEventAge = Duration.seconds(Math.max(60, rateMinutes * 60));
    // A tick that waits (throttled behind a running one) longer than one interval is stale: the
    // next tick does the same work. Errors are not retried either; the next tick retries.
    fn.function.configureAsyncInvoke({ maxEventAge, retryAttempts: 0 });
    acknowledgeWildcardResource(
      this,
      `${fn.function.functionArn}:*`,
      `The Scheduler role may invoke the ${fn.handler} function and its versions/aliases (arn:*) only.`,
    );
    return new scheduler.Schedule(this, id, {
      description,
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(rateMinutes)),
      timeWindow: scheduler.TimeWindow.off(),
      target: new schedulerTargets.LambdaInvoke(fn.function, {
        deadLetterQueue: this.scheduleDeadLetterQueue,
        retryAttempts: 2,
        maxEventAge,
      }),
    });
  }

  private route(route: Route): RouteResources {
    const { config, resources } = this;
    const id = `Route-${route.id}`;
    const timeout = Duration.seconds(route.timeoutSeconds);
    const deadLetterQueue = this.deadLetterQueue(`${id}-Dlq`);
    const queue = this.queue(`${id}-Queue`, {
      visibilityTimeout: visibilityTimeoutFor(timeout),
      // A message redriven from the DLQ may wait this long again (part of the replay horizon).
      retentionPeriod: Duration.days(config.redriveWindowDays),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: route.maxReceiveCount },
    });
    const rule = new events.Rule(this, `${id}-Rule`, {
      eventBus: resources.eventBus,
      description: route.description.slice(0, 512),
      eventPattern: toEventPattern(route.pattern),
      targets: [
        new targets.SqsQueue(queue, {
          // Events the bus cannot deliver land beside the ones the function gave up on.
          deadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
    const fn = this.appFunction(id, route.handler, {
      usedBy: `route '${route.id}' of functions/core/routes.ts`,
      description: route.description.slice(0, 256),
      serviceName: SERVICE.action(route.id),
      memorySize: config.actionMemoryMb,
      timeout,
      publishes: { detailTypes: [...new Set<OutcomeDetailType>([...route.outcomes, ACTION_FAILED])] },
      everyConnection: config.connectionRegistry,
    });
    this.actionSettings(fn);
    // Invalid events go straight to this route's DLQ on their first receive (action-runtime.ts).
    useQueueSend(fn, deadLetterQueue, FUNCTION_ENV.deadLetterQueueUrl);
    fn.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: config.actionBatchSize,
        maxConcurrency: config.routeConcurrency[route.id] ?? route.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    return { route, rule, queue, deadLetterQueue, fn };
  }

  private alarms(): void {
    const { config } = this;
    const topic = this.alarmTopic;
    const dlqAlarm = (id: string, queue: sqs.Queue, what: string) =>
      topic.notify(
        new cloudwatch.Alarm(this, id, {
          alarmName: this.alarmTopic.alarmName(id),
          alarmDescription: `${what}: messages in the dead-letter queue (inspect, then redrive)`,
          metric: queue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );

    dlqAlarm(
      'ScheduleDlqAlarm',
      this.scheduleDeadLetterQueue,
      'Scheduler ticks that could not invoke their function',
    );
    const fiveMinutes = Duration.minutes(5);
    topic.notify(
      new cloudwatch.Alarm(this, 'PollerErrorsAlarm', {
        alarmName: this.alarmTopic.alarmName('PollerErrorsAlarm'),
        alarmDescription: 'The poller failed, or collections failed within a run (see the poller log group)',
        metric: new cloudwatch.MathExpression({
          expression: 'FILL(errors, 0) + FILL(failed, 0)',
          label: 'poller errors + failed collections',
          period: fiveMinutes,
          usingMetrics: {
            errors: this.poller.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
            failed: new cloudwatch.Metric({
              namespace: METRICS_NAMESPACE,
              metricName: METRIC.collectionsFailed,
              dimensionsMap: { service: this.poller.serviceName },
              statistic: 'Sum',
              period: fiveMinutes,
            }),
          },
        }),
        threshold: config.pollerErrorsThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    topic.notify(
      new cloudwatch.Alarm(this, 'PollerLagAlarm', {
        alarmName: this.alarmTopic.alarmName('PollerLagAlarm'),
        alarmDescription: `Changes older than ${config.lagAlarmSeconds} s are not yet published in some collection (or the poller reports no lag at all)`,
        // The worst collection: one series over every collection the poller reports.
        metric: new cloudwatch.MathExpression({
          expression: `SELECT MAX(${METRIC.watermarkLagMs}) FROM SCHEMA("${METRICS_NAMESPACE}", collection, service) WHERE service = '${this.poller.serviceName}'`,
          label: 'worst watermark lag (ms)',
          period: fiveMinutes,
          usingMetrics: {},
        }),
        threshold: config.lagAlarmSeconds * 1000,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // No lag reported means no poll ran: that is lag too.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      }),
    );
    topic.notify(
      new cloudwatch.Alarm(this, 'ActionFailedAlarm', {
        alarmName: this.alarmTopic.alarmName('ActionFailedAlarm'),
        alarmDescription:
          'Actions reported failures (Action.Failed events; details in the action outcomes log group)',
        metric: new cloudwatch.Metric({
          namespace: 'AWS/Events',
          metricName: 'MatchedEvents',
          dimensionsMap: {
            EventBusName: this.resources.eventBus.eventBusName,
            RuleName: this.actionFailedRule.ruleName,
          },
          statistic: 'Sum',
          period: fiveMinutes,
        }),
        threshold: config.actionFailuresThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const { route, queue, deadLetterQueue, fn } of this.routeResources) {
      dlqAlarm(`Route-${route.id}-DlqAlarm`, deadLetterQueue, `Route ${route.id}`);
      topic.notify(
        new cloudwatch.Alarm(this, `Route-${route.id}-AgeAlarm`, {
          alarmName: this.alarmTopic.alarmName(`Route-${route.id}-AgeAlarm`),
          alarmDescription: `Route ${route.id}: the oldest waiting message is older than ${config.queueAgeAlarmSeconds} s`,
          metric: queue.metricApproximateAgeOfOldestMessage({
            period: Duration.minutes(5),
            statistic: 'Maximum',
          }),
          threshold: config.queueAgeAlarmSeconds,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      topic.notify(this.actionFailuresAlarm(`Route-${route.id}-FailuresAlarm`, fn, `Route ${route.id}`));
    }
    for (const fn of this.scheduledFunctions) {
      topic.notify(this.actionFailuresAlarm(`${fn.node.id}-FailuresAlarm`, fn, fn.node.id));
      scheduledFunctionAlarms(this, topic, fn, fn.node.id);
    }
    scheduledFunctionAlarms(this, topic, this.poller, 'The poller');
  }

  /** Unhandled errors of an action function (failed batch items do not count; the DLQ alarm catches those). */
  private actionFailuresAlarm(id: string, fn: AppFunction, what: string): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this, id, {
      alarmName: this.alarmTopic.alarmName(id),
      alarmDescription: `${what}: the function failed`,
      metric: fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: this.config.actionFailuresThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
