/**
 * Shoptet on the intake (`intakeShoptet`): the API token in a secret of its own, read by the
 * import function only, and the reconciliation sweep as a schedule on the import function (the
 * fetch and the sweep in the import's role). The sweep queues a notice per changed order to the
 * intake queue, so the import takes each once, as a notification's.
 *
 * Shoptet allows 3 requests in flight per token. The queue's event source runs at most 2 imports
 * at once (`MaximumConcurrency`, AWS's least), the schedule one sweep per interval (no retry: the
 * next sweep lists again from the checkpoint), each with 1 request in flight: 3 at most.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';
import type { InfraConfig } from '../config/schema.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AppFunction } from './app-function.js';
import { useQueueSend, useSecret } from './grants.js';

/** The sweep's schedule rate: `INTAKE_SHOPTET_SWEEP_SECONDS` in whole minutes (Scheduler's least is 1), or none. */
export function sweepRateMinutes(config: InfraConfig): number | undefined {
  const seconds = loadIntakeConfig(config.intakeSettings).shoptet.sweepSeconds;
  return seconds > 0 ? Math.max(1, Math.ceil(seconds / 60)) : undefined;
}

export interface IntakeShoptet {
  readonly tokenSecret: secretsmanager.Secret;
  readonly sweepSchedule: scheduler.Schedule | undefined;
}

export function intakeShoptet(
  scope: Construct,
  props: {
    config: InfraConfig;
    importer: AppFunction;
    queue: sqs.IQueue;
    removalPolicy: RemovalPolicy;
  },
): IntakeShoptet {
  const { importer } = props;
  const tokenSecret = new secretsmanager.Secret(scope, 'ShoptetToken', {
    description: 'Shoptet API token of the order intake: {"token"} (a private API token, or an access token)',
    secretObjectValue: {},
    removalPolicy: props.removalPolicy,
  });
  Validations.of(tokenSecret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The Shoptet API token is issued in the shop administration; it is renewed there and stored here by hand.',
  });
  useSecret(importer, tokenSecret, INTAKE_ENV.shoptetTokenSecret);
  const minutes = sweepRateMinutes(props.config);
  if (minutes === undefined) return { tokenSecret, sweepSchedule: undefined };

  useQueueSend(importer, props.queue, INTAKE_ENV.queueUrl);
  // A sweep that could not start within its interval is stale: the next one lists the same orders.
  const maxEventAge = Duration.minutes(Math.min(minutes, 360));
  importer.function.configureAsyncInvoke({ maxEventAge, retryAttempts: 0 });
  acknowledgeWildcardResource(
    Stack.of(scope),
    `${importer.function.functionArn}:*`,
    'The Scheduler role may invoke the import function and its versions/aliases (arn:*) only.',
  );
  const sweepSchedule = new scheduler.Schedule(scope, 'ShoptetSweep', {
    description: 'Shoptet reconciliation sweep: queues the orders changed since its checkpoint',
    schedule: scheduler.ScheduleExpression.rate(Duration.minutes(minutes)),
    timeWindow: scheduler.TimeWindow.off(),
    target: new schedulerTargets.LambdaInvoke(importer.function, {
      input: scheduler.ScheduleTargetInput.fromObject({
        shoptetSweep: { scheduledTime: scheduler.ContextAttribute.scheduledTime },
      }),
      retryAttempts: 0,
      maxEventAge,
    }),
  });
  return { tokenSecret, sweepSchedule };
}
