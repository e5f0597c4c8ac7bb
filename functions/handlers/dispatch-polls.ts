/**
 * The dispatcher of many connections, ticked by one EventBridge Scheduler schedule every minute:
 * reads the connection registry and enqueues one poll request per due, unpaused connection on the
 * poll queue (SQS FIFO, one message group per connection). The schedule passes its scheduled time
 * (`{"scheduledTime": "<aws.scheduler.scheduled-time>"}`), so a retried tick makes the same requests
 * and the queue drops them as duplicates; without it (a manual run) the current minute is used.
 * A connection added, paused or removed is seen on the next tick: no deployment.
 *
 * A malformed registry item is skipped and the others dispatched; it is logged (`registry item
 * skipped`, with its key and fields) and counted in `RegistryItemsMalformed`.
 *
 * Metrics (EMF): `ConnectionsRegistered`, `ConnectionsPaused`, `PollsDispatched`, `PollsNotDispatched`,
 * `RegistryItemsMalformed`.
 */

import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createSqsPollQueue } from '../adapters/aws/sqs-poll-queue.js';
import {
  DispatchIncompleteError,
  type DispatchSummary,
  dispatchDue,
  type PollQueue,
} from '../core/connections/dispatch.js';
import type { RegistryScanner } from '../core/connections/registry.js';
import type { Clock, Logger } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import { loadDispatcherConfig } from './connections-config.js';
import { lazyHandler } from './lazy-handler.js';
import { createPowertoolsPollMetrics, type PollMetrics } from './poll-metrics.js';

export interface DispatchHandlerDeps {
  registry: RegistryScanner;
  queue: PollQueue;
  clock: Clock;
  logger: Logger;
  metrics?: PollMetrics;
}

const inputSchema = z.looseObject({
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected an ISO date-time' }).optional(),
});

export function createHandler(deps: DispatchHandlerDeps) {
  return async (event: unknown): Promise<DispatchSummary> => {
    const input = inputSchema.safeParse(event ?? {});
    if (!input.success) {
      const issues = input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      deps.logger.error('dispatch input rejected', { issues });
      throw new Error(`invalid dispatch input: ${issues.join('; ')}`);
    }
    const at = input.data.scheduledTime ? Date.parse(input.data.scheduledTime) : deps.clock.now().getTime();
    try {
      const summary = await dispatchDue(deps, at);
      record(deps.metrics, summary);
      return summary;
    } catch (error) {
      if (error instanceof DispatchIncompleteError) record(deps.metrics, error.summary);
      throw error;
    }
  };
}

function record(metrics: PollMetrics | undefined, summary: DispatchSummary): void {
  if (!metrics) return;
  metrics.count('ConnectionsRegistered', summary.registered);
  metrics.count('ConnectionsPaused', summary.paused);
  metrics.count('PollsDispatched', summary.enqueued);
  metrics.count('PollsNotDispatched', summary.failed);
  metrics.count('RegistryItemsMalformed', summary.malformed);
  metrics.flush();
}

/** Builds the handler's dependencies from the environment (once per container). */
export function createDepsFromEnv(env: Readonly<Record<string, string | undefined>>): DispatchHandlerDeps {
  const config = loadDispatcherConfig(env);
  const logger = new LambdaLogger({ level: config.logLevel, service: 'dispatch-polls' });
  return {
    registry: createDynamoDbConnectionRegistry({
      client: instrumentClient(new DynamoDBClient({})),
      tableName: config.connectionsTable,
    }),
    queue: createSqsPollQueue({ client: instrumentClient(new SQSClient({})), queueUrl: config.pollQueueUrl }),
    clock: systemClock,
    logger,
    metrics: createPowertoolsPollMetrics(
      new Metrics({
        namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'AccountingEvents',
        serviceName: 'dispatch-polls',
      }),
    ),
  };
}

/** The Lambda entry point, invoked by the schedule with `{"scheduledTime": …}`. */
export const handler = lazyHandler(async () => createHandler(createDepsFromEnv(process.env)));
