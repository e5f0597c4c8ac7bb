/**
 * Local delivery of events to HTTP consumers: a subscriber of the local bus that POSTs each event
 * matching a target, signed per Standard Webhooks, retried with exponential backoff on network
 * errors, timeouts, 408, 429 and 5xx, and dead-lettered after the policy's last attempt (at once
 * on another 4xx, as EventBridge API destinations do). Each target has its own queue and
 * concurrency, so a slow consumer holds up no other. The same event keeps its `webhook-id` on
 * every attempt: consumers deduplicate on it.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { postSigned } from '../adapters/http/webhook-sender.js';
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import {
  backoffMs,
  DEFAULT_DELIVERY_POLICY,
  type DeliveryPolicy,
  type DeliveryTarget,
  isRetryableStatus,
  targetMatches,
} from '../core/delivery/delivery-targets.js';

export type DeliveryOutcome = {
  targetId: string;
  url: string;
  eventId: string;
  detailType: string;
  attempt: number;
  status?: number;
} & ({ result: 'delivered' } | { result: 'retrying' | 'dead-lettered'; error: string });

export interface DeliveryDeadLetter {
  targetId: string;
  url: string;
  event: EventBridgeEvent;
  attempts: number;
  error: string;
  at: string;
}

export interface HttpDelivery {
  /** The bus subscriber: queues the event for every target whose pattern it matches. */
  handle(event: EventBridgeEvent): void;
  /** Resolves when nothing is queued, backing off or in flight. */
  drain(): Promise<void>;
  /** Starts nothing more, stops the backoff waits, lets running POSTs finish; returns what was not delivered. */
  close(): Promise<{ undelivered: number }>;
  deadLetters(): readonly DeliveryDeadLetter[];
}

interface TargetQueue {
  target: DeliveryTarget;
  pending: EventBridgeEvent[];
  active: number;
}

export function createHttpDelivery(options: {
  targets: readonly DeliveryTarget[];
  secret: string;
  policy?: Partial<DeliveryPolicy>;
  onOutcome?: (outcome: DeliveryOutcome) => void;
}): HttpDelivery {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy };
  const queues: TargetQueue[] = options.targets.map((target) => ({ target, pending: [], active: 0 }));
  const dead: DeliveryDeadLetter[] = [];
  const closing = new AbortController();
  const running = new Set<Promise<void>>();
  let abandoned = 0;
  let idle: (() => void)[] = [];
  const report = options.onOutcome ?? (() => {});

  const settleIdle = () => {
    if (running.size > 0 || queues.some((q) => q.pending.length > 0)) return;
    for (const resolve of idle) resolve();
    idle = [];
  };

  const deliverOne = async (queue: TargetQueue, event: EventBridgeEvent): Promise<void> => {
    const { target } = queue;
    const body = JSON.stringify(event);
    const base = {
      targetId: target.id,
      url: target.url,
      eventId: event.id,
      detailType: event['detail-type'],
    };
    for (let attempt = 1; ; attempt += 1) {
      const result = await postSigned({
        url: target.url,
        id: event.id,
        body,
        secret: options.secret,
        timeoutMs: policy.timeoutMs,
      });
      const status = result.status !== undefined ? { status: result.status } : {};
      if (result.ok) {
        report({ ...base, attempt, ...status, result: 'delivered' });
        return;
      }
      const retryable = result.status === undefined || isRetryableStatus(result.status);
      if (!retryable || attempt >= policy.maxAttempts) {
        dead.push({
          targetId: target.id,
          url: target.url,
          event,
          attempts: attempt,
          error: result.error,
          at: new Date().toISOString(),
        });
        report({ ...base, attempt, ...status, result: 'dead-lettered', error: result.error });
        return;
      }
      report({ ...base, attempt, ...status, result: 'retrying', error: result.error });
      if (!(await pause(backoffMs(policy, attempt + 1), closing.signal))) {
        abandoned += 1;
        return;
      }
    }
  };

  const pump = (queue: TargetQueue) => {
    while (!closing.signal.aborted && queue.active < policy.concurrency && queue.pending.length > 0) {
      const event = queue.pending.shift() as EventBridgeEvent;
      queue.active += 1;
      const job = deliverOne(queue, event).finally(() => {
        queue.active -= 1;
        running.delete(job);
        pump(queue);
        settleIdle();
      });
      running.add(job);
    }
  };

  return {
    handle(event) {
      if (closing.signal.aborted) return;
      for (const queue of queues) {
        if (!targetMatches(queue.target, event['detail-type'])) continue;
        queue.pending.push(event);
        pump(queue);
      }
    },
    drain() {
      return new Promise<void>((resolve) => {
        idle.push(resolve);
        settleIdle();
      });
    },
    async close() {
      closing.abort();
      for (const queue of queues) {
        abandoned += queue.pending.length;
        queue.pending = [];
      }
      await Promise.allSettled([...running]);
      settleIdle();
      return { undelivered: abandoned };
    },
    deadLetters: () => dead,
  };
}

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** File in the data directory holding the local signing secret (created once, owner-only). */
export const SIGNING_SECRET_FILE = 'delivery-signing-secret';

/**
 * The signing secret: `DELIVERY_SIGNING_SECRET` when set, else the data directory's own, created
 * on first use (`whsec_` + 24 random bytes, base64) so consumers can keep verifying across restarts.
 */
export async function signingSecret(
  env: Record<string, string | undefined>,
  dataDir: string,
): Promise<{ secret: string; source: string }> {
  const fromEnv = env.DELIVERY_SIGNING_SECRET?.trim();
  if (fromEnv) return { secret: fromEnv, source: 'DELIVERY_SIGNING_SECRET' };
  const path = join(dataDir, SIGNING_SECRET_FILE);
  try {
    const stored = (await readFile(path, 'utf8')).trim();
    if (stored) return { secret: stored, source: path };
  } catch {
    // none yet
  }
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'w' });
  return { secret, source: path };
}
