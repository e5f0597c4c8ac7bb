/**
 * The action routes: one rule → queue (+ DLQ) → function per route of the routing table
 * (functions/core/routes.ts), and the functions run on a rate (`ScheduledAction`).
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ACTION_FAILED, type OutcomeDetailType } from '#functions/core/event-catalog.js';
import type { RoutePattern } from '#functions/core/route-spec.js';
import type { Route, ScheduledAction } from '#functions/core/routes.js';
import type { InfraConfig } from '#infra/config/schema.js';
import { type AppFunction, visibilityTimeoutFor } from '#infra/constructs/app-function.js';
import { FUNCTION_ENV } from '#infra/constructs/function-env.js';
import { useQueueConsume, useQueueSend } from '#infra/constructs/grants.js';
import { SERVICE } from '#infra/constructs/metric-names.js';
import type { FunctionFactory } from './function-factory.js';
import { deadLetterQueue, encryptedQueue } from './queues.js';
import { rateSchedule } from './schedule.js';

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

/** Refuses a routing table in which two routes share an id (their resources would collide). */
export function assertUniqueRouteIds(routes: readonly Route[]): void {
  const ids = new Set<string>();
  for (const route of routes) {
    if (ids.has(route.id)) throw new Error(`routing table: route id '${route.id}' appears twice`);
    ids.add(route.id);
  }
}

/** What a function may publish: its outcomes, and `Action.Failed`. */
function outcomesOf(outcomes: readonly string[]) {
  // The registry checked every outcome against the action's own catalog entries.
  return {
    detailTypes: [
      ...new Set<OutcomeDetailType>([...(outcomes as readonly OutcomeDetailType[]), ACTION_FAILED]),
    ],
  };
}

export function actionRoute(
  scope: Construct,
  functions: FunctionFactory,
  props: { route: Route; config: InfraConfig; eventBus: events.IEventBus },
): RouteResources {
  const { route, config } = props;
  const id = `Route-${route.id}`;
  const timeout = Duration.seconds(route.timeoutSeconds);
  const dlq = deadLetterQueue(scope, `${id}-Dlq`, config);
  const queue = encryptedQueue(scope, `${id}-Queue`, {
    visibilityTimeout: visibilityTimeoutFor(timeout),
    // A message redriven from the DLQ may wait this long again (part of the replay horizon).
    retentionPeriod: Duration.days(config.redriveWindowDays),
    deadLetterQueue: { queue: dlq, maxReceiveCount: route.maxReceiveCount },
  });
  const rule = new events.Rule(scope, `${id}-Rule`, {
    eventBus: props.eventBus,
    description: route.description.slice(0, 512),
    eventPattern: toEventPattern(route.pattern),
    targets: [
      new targets.SqsQueue(queue, {
        // Events the bus cannot deliver land beside the ones the function gave up on.
        deadLetterQueue: dlq,
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
      }),
    ],
  });
  const fn = functions.appFunction(id, route.handler, {
    usedBy: `route '${route.id}' of functions/core/routes.ts`,
    description: route.description.slice(0, 256),
    serviceName: SERVICE.action(route.id),
    memorySize: config.actionMemoryMb,
    timeout,
    publishes: outcomesOf(route.outcomes),
  });
  functions.actionSettings(fn);
  // Invalid events go straight to this route's DLQ on their first receive (action-runtime.ts).
  useQueueSend(fn, dlq, FUNCTION_ENV.deadLetterQueueUrl);
  useQueueConsume(fn, queue, {
    batchSize: config.actionBatchSize,
    maxConcurrency: config.routeConcurrency[route.id] ?? route.maxConcurrency,
  });
  return { route, rule, queue, deadLetterQueue: dlq, fn };
}

/** A function run on a rate; with the registry, a run passes over every connection. */
export function scheduledAction(
  scope: Construct,
  functions: FunctionFactory,
  props: {
    action: ScheduledAction;
    config: InfraConfig;
    scheduleDeadLetterQueue: sqs.IQueue;
    /** The registry table, which a run lists (Scan); absent for the registry of one. */
    connectionsTable: dynamodb.ITable | undefined;
  },
): AppFunction {
  const { action, config } = props;
  const fn = functions.appFunction(`Scheduled-${action.id}`, action.handler, {
    usedBy: `scheduled action '${action.id}'`,
    description: action.description,
    serviceName: SERVICE.scheduled(action.id),
    memorySize: config.actionMemoryMb,
    timeout: Duration.seconds(action.timeoutSeconds),
    publishes: outcomesOf(action.outcomes),
  });
  props.connectionsTable?.grant(fn.function, 'dynamodb:Scan');
  functions.actionSettings(fn);
  rateSchedule(scope, `Schedule-${action.id}`, {
    fn,
    rateMinutes: action.rateMinutes,
    description: action.description,
    deadLetterQueue: props.scheduleDeadLetterQueue,
  });
  return fn;
}
