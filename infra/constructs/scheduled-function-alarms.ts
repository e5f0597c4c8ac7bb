/**
 * Alarms of a function invoked on a schedule (asynchronously): a throttled tick is retried by Lambda
 * only for a while, and an event Lambda drops (too old, out of retries) is lost without an error
 * metric. Both mean a poll or a status check did not run.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { AlarmTopic } from './alarm-topic.js';
import type { AppFunction } from './app-function.js';

export function scheduledFunctionAlarms(
  scope: Construct,
  topic: AlarmTopic,
  fn: AppFunction,
  what: string,
): cloudwatch.Alarm[] {
  const period = Duration.minutes(5);
  const alarm = (id: string, description: string, metric: cloudwatch.IMetric) =>
    topic.notify(
      new cloudwatch.Alarm(scope, id, {
        alarmName: topic.alarmName(id),
        alarmDescription: description,
        metric,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  const id = fn.node.id;
  return [
    alarm(
      `${id}-ThrottlesAlarm`,
      `${what}: invocations were throttled (a scheduled run waited or did not run)`,
      fn.function.metricThrottles({ period, statistic: 'Sum' }),
    ),
    alarm(
      `${id}-AsyncEventsDroppedAlarm`,
      `${what}: Lambda dropped scheduled invocations (too old or out of retries): a run was skipped`,
      fn.function.metric('AsyncEventsDropped', { period, statistic: 'Sum' }),
    ),
  ];
}
