/** A function ticked on a rate by EventBridge Scheduler. */
import { Duration } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '#infra/constructs/acknowledge-wildcards.js';
import type { AppFunction } from '#infra/constructs/app-function.js';

export interface RateScheduleProps {
  readonly fn: AppFunction;
  readonly rateMinutes: number;
  readonly description: string;
  /** Where Scheduler puts ticks it could not deliver. */
  readonly deadLetterQueue: sqs.IQueue;
}

/** Ticks `fn` every `rateMinutes`; a tick older than one interval is superseded by the next one. */
export function rateSchedule(scope: Construct, id: string, props: RateScheduleProps): scheduler.Schedule {
  const { fn, rateMinutes, description, deadLetterQueue } = props;
  // No function reserves concurrency (an account limited to 10 concurrent executions cannot): a run
  // ends before the next tick instead, and the stores a run writes are conditional on what it read.
  const timeout = fn.function.timeout?.toSeconds() ?? 3;
  if (timeout >= rateMinutes * 60) {
    throw new Error(
      `${fn.handler}: timeout ${timeout} s must be shorter than its tick (${rateMinutes * 60} s), or runs overlap`,
    );
  }
  // One interval, within what Lambda (6 hours) and Scheduler (24 hours) allow.
  const maxEventAge = Duration.seconds(Math.min(24 * 3600, Math.max(60, rateMinutes * 60)));
  // A tick that waits (throttled behind a running one) longer than one interval is stale: the
  // next tick does the same work. Errors are not retried either; the next tick retries.
  fn.function.configureAsyncInvoke({
    maxEventAge: Duration.seconds(Math.min(6 * 3600, maxEventAge.toSeconds())),
    retryAttempts: 0,
  });
  acknowledgeWildcardResource(
    scope,
    `${fn.function.functionArn}:*`,
    `The Scheduler role may invoke the ${fn.handler} function and its versions/aliases (arn:*) only.`,
  );
  return new scheduler.Schedule(scope, id, {
    description,
    schedule: scheduler.ScheduleExpression.rate(Duration.minutes(rateMinutes)),
    timeWindow: scheduler.TimeWindow.off(),
    target: new schedulerTargets.LambdaInvoke(fn.function, {
      deadLetterQueue,
      retryAttempts: 2,
      maxEventAge,
    }),
  });
}
