/**
 * The stateless stack's alarms, each notifying the alarm topic. Always, as they guard against loss:
 * the schedule's and each route's dead-letter queue, the poller's errors (failed runs, failed
 * collections, publish failures) and lag (which also fires when the poller does not run), and
 * `Action.Failed` events. With `operationalAlarms`: route queue age, action function errors (a
 * failed message ends in its DLQ, which alarms anyway) and the scheduled functions' throttles and
 * dropped invocations.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { InfraConfig } from '#infra/config/schema.js';
import type { AlarmTopic } from '#infra/constructs/alarm-topic.js';
import type { AppFunction } from '#infra/constructs/app-function.js';
import { METRIC, METRICS_NAMESPACE } from '#infra/constructs/metric-names.js';
import { scheduledFunctionAlarms } from '#infra/constructs/scheduled-function-alarms.js';
import type { RouteResources } from './action-routes.js';
import type { BankStatementDrop } from './bank-statements.js';

export interface StatelessAlarmsProps {
  readonly config: InfraConfig;
  readonly topic: AlarmTopic;
  readonly scheduleDeadLetterQueue: sqs.Queue;
  readonly poller: AppFunction;
  /** The poller's throttle and dropped-tick alarms exist already (the registry's polling construct makes them). */
  readonly pollerRunAlarmed: boolean;
  readonly eventBus: events.IEventBus;
  readonly actionFailedRule: events.Rule;
  readonly routes: readonly RouteResources[];
  /** The bank statement drop's queue, dead-letter queue and function, alarmed as a route's. */
  readonly bankStatements: BankStatementDrop | undefined;
  readonly scheduledFunctions: readonly AppFunction[];
}

const FIVE_MINUTES = Duration.minutes(5);

/** Every alarm of the stateless stack, in a fixed order. */
export function statelessAlarms(scope: Construct, props: StatelessAlarmsProps): void {
  const { topic } = props;
  dlqAlarm(
    scope,
    topic,
    'ScheduleDlqAlarm',
    props.scheduleDeadLetterQueue,
    'Scheduler ticks that could not invoke their function',
  );
  pollerAlarms(scope, props);
  topic.notify(actionFailedEventsAlarm(scope, props));
  const operational = props.config.operationalAlarms;
  const fed = [
    ...props.routes.map((r) => ({ id: `Route-${r.route.id}`, what: `Route ${r.route.id}`, ...r })),
    ...(props.bankStatements
      ? [{ id: 'BankStatements', what: 'Bank statements', ...props.bankStatements }]
      : []),
  ];
  for (const { id, what, queue, deadLetterQueue, fn } of fed) {
    dlqAlarm(scope, topic, `${id}-DlqAlarm`, deadLetterQueue, what);
    if (!operational) continue;
    topic.notify(
      new cloudwatch.Alarm(scope, `${id}-AgeAlarm`, {
        alarmName: topic.alarmName(`${id}-AgeAlarm`),
        alarmDescription: `${what}: the oldest waiting message is older than ${props.config.queueAgeAlarmSeconds} s`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        threshold: props.config.queueAgeAlarmSeconds,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    topic.notify(actionFailuresAlarm(scope, props, `${id}-FailuresAlarm`, fn, what));
  }
  if (!operational) return;
  for (const fn of props.scheduledFunctions) {
    topic.notify(actionFailuresAlarm(scope, props, `${fn.node.id}-FailuresAlarm`, fn, fn.node.id));
    scheduledFunctionAlarms(scope, topic, fn, fn.node.id);
  }
  if (!props.pollerRunAlarmed) scheduledFunctionAlarms(scope, topic, props.poller, 'The poller');
}

/** Any message in a dead-letter queue. */
function dlqAlarm(scope: Construct, topic: AlarmTopic, id: string, queue: sqs.Queue, what: string): void {
  topic.notify(
    new cloudwatch.Alarm(scope, id, {
      alarmName: topic.alarmName(id),
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
}

/** The poller's errors (failed runs and failed collections) and its lag. */
function pollerAlarms(scope: Construct, props: StatelessAlarmsProps): void {
  const { topic, config, poller } = props;
  topic.notify(
    new cloudwatch.Alarm(scope, 'PollerErrorsAlarm', {
      alarmName: topic.alarmName('PollerErrorsAlarm'),
      alarmDescription: 'The poller failed, or collections failed within a run (see the poller log group)',
      metric: new cloudwatch.MathExpression({
        expression: 'FILL(errors, 0) + FILL(failed, 0)',
        label: 'poller errors + failed collections',
        period: FIVE_MINUTES,
        usingMetrics: {
          errors: poller.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
          failed: new cloudwatch.Metric({
            namespace: METRICS_NAMESPACE,
            metricName: METRIC.collectionsFailed,
            dimensionsMap: { service: poller.serviceName },
            statistic: 'Sum',
            period: FIVE_MINUTES,
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
    new cloudwatch.Alarm(scope, 'PollerLagAlarm', {
      alarmName: topic.alarmName('PollerLagAlarm'),
      alarmDescription: `Changes older than ${config.lagAlarmSeconds} s are not yet published in some collection (or the poller reports no lag at all)`,
      // The worst collection: the poller reports it as one series, or (`detailedMetrics`) one series
      // per collection, which a query takes the maximum of.
      metric: config.detailedMetrics
        ? new cloudwatch.MathExpression({
            expression: `SELECT MAX(${METRIC.watermarkLagMs}) FROM SCHEMA("${METRICS_NAMESPACE}", collection, service) WHERE service = '${poller.serviceName}'`,
            label: 'worst watermark lag (ms)',
            period: FIVE_MINUTES,
            usingMetrics: {},
          })
        : new cloudwatch.Metric({
            namespace: METRICS_NAMESPACE,
            metricName: METRIC.watermarkLagMs,
            dimensionsMap: { service: poller.serviceName },
            statistic: 'Maximum',
            period: FIVE_MINUTES,
          }),
      threshold: config.lagAlarmSeconds * 1000,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No lag reported means no poll ran: that is lag too.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    }),
  );
}

/** `Action.Failed` events matched on the bus. */
function actionFailedEventsAlarm(scope: Construct, props: StatelessAlarmsProps): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, 'ActionFailedAlarm', {
    alarmName: props.topic.alarmName('ActionFailedAlarm'),
    alarmDescription:
      'Actions reported failures (Action.Failed events; details in the action outcomes log group)',
    metric: new cloudwatch.Metric({
      namespace: 'AWS/Events',
      metricName: 'MatchedEvents',
      dimensionsMap: {
        EventBusName: props.eventBus.eventBusName,
        RuleName: props.actionFailedRule.ruleName,
      },
      statistic: 'Sum',
      period: FIVE_MINUTES,
    }),
    threshold: props.config.actionFailuresThreshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** Unhandled errors of an action function (failed batch items do not count; the DLQ alarm catches those). */
function actionFailuresAlarm(
  scope: Construct,
  props: StatelessAlarmsProps,
  id: string,
  fn: AppFunction,
  what: string,
): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmName: props.topic.alarmName(id),
    alarmDescription: `${what}: the function failed`,
    metric: fn.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
    threshold: props.config.actionFailuresThreshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}
