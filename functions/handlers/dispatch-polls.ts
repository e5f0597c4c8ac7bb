/**
 * The dispatcher of many connections, ticked by one EventBridge Scheduler schedule every minute:
 * reads the connection registry and enqueues one poll request per due, unpaused connection on the
 * poll queue (SQS FIFO, one message group per connection). The schedule passes its scheduled time
 * (`{"scheduledTime": "<aws.scheduler.scheduled-time>"}`), so a retried tick makes the same requests
 * and the queue drops them as duplicates; without it (a manual run) the current minute is used.
 * A connection added, paused or removed is seen on the next tick: no deployment.
 *
 * Metrics (EMF): `ConnectionsRegistered`, `ConnectionsPaused`, `PollsDispatched`, `PollsNotDispatched`.
 */
import * as z from 'zod';
import {
  DispatchIncompleteError,
  type DispatchSummary,
  dispatchDue,
  type PollQueue,
} from '../core/connections/dispatch.js';
import type { ConnectionRegistry } from '../core/connections/registry.js';
import type { Clock, Logger } from '../core/ports.js';
import type { PollMetrics } from './poll-changes.js';

export interface DispatchHandlerDeps {
  registry: Pick<ConnectionRegistry, 'list'>;
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
  metrics.flush();
}
