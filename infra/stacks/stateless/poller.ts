/**
 * The poller and its schedule: one handler (`poll-connections`) either way — the single-company
 * deployment's, whose registry of one is its environment, or the shards of the connection registry.
 */

import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '../../../functions/shared/env-names.js';
import { eventSourceOf } from '../../config/names.js';
import type { InfraConfig } from '../../config/schema.js';
import type { AlarmTopic } from '../../constructs/alarm-topic.js';
import type { AppFunction } from '../../constructs/app-function.js';
import { ConnectionPolling, pollerDetailTypePatterns } from '../../constructs/connection-polling.js';
import { FUNCTION_ENV } from '../../constructs/function-env.js';
import { POLLER_HANDLER } from '../../constructs/handler-access.js';
import { SERVICE } from '../../constructs/metric-names.js';
import type { StatefulResources } from '../stateful-stack.js';
import type { FunctionFactory } from './function-factory.js';
import { rateSchedule } from './schedule.js';

export interface Poller {
  readonly poller: AppFunction;
  readonly pollSchedule: scheduler.Schedule;
}

/** With `connectionRegistry`: the poller of the registry's shards, one schedule per shard. */
export function connectionPollingOf(
  scope: Construct,
  props: {
    config: InfraConfig;
    resources: StatefulResources;
    alarmTopic: AlarmTopic;
    scheduleDeadLetterQueue: sqs.IQueue;
  },
): ConnectionPolling | undefined {
  const { config } = props;
  if (!config.connectionRegistry) return undefined;
  return new ConnectionPolling(scope, 'Connections', {
    ...props,
    removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    pollerServiceName: SERVICE.connectionPoller,
  });
}

/**
 * The poller of the deployment's one connection (shard 0 of 1 of its registry of one, built from
 * the function's environment), ticked every `scheduleRateMinutes`.
 */
export function singleConnectionPoller(
  scope: Construct,
  functions: FunctionFactory,
  config: InfraConfig,
  scheduleDeadLetterQueue: sqs.IQueue,
): Poller {
  const poller = functions.appFunction('Poller', POLLER_HANDLER, {
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
    .setEnv(FUNCTION_ENV.eventSource, eventSourceOf(config))
    .setEnv(ENV.pollerPayments, String(config.payments))
    .setEnv(ENV.pollerDetailedMetrics, String(config.detailedMetrics));
  const pollSchedule = rateSchedule(scope, 'PollSchedule', {
    fn: poller,
    rateMinutes: config.scheduleRateMinutes,
    description: 'Ticks the poller',
    deadLetterQueue: scheduleDeadLetterQueue,
  });
  return { poller, pollSchedule };
}
