/**
 * `IntakeQueue` in process, with what the AWS FIFO queue gives: a repeated deduplication id inside
 * 5 minutes is dropped, messages of one group are handled one after another, a failed message is
 * retried with backoff and dead-lettered after `maxAttempts`. Kept in memory: a local run that
 * stops drains it first.
 */

import { RetryLaterError } from '../../core/actions/errors.js';
import type { EntryResult } from '../../core/actions/run-action.js';
import type { EnqueueOptions, IntakeQueue } from '../../core/intake/ports.js';
import type { IntakeMessage } from '../../core/intake/shop-order.js';
import type { Clock, Logger } from '../../core/ports.js';

export const DEDUPLICATION_WINDOW_MS = 5 * 60_000;

export interface LocalIntakeQueueOptions {
  handle: (message: IntakeMessage) => Promise<EntryResult>;
  clock: Clock;
  logger: Logger;
  maxAttempts?: number;
  /** Orders imported at once (the import function's concurrency on AWS); default 2. */
  concurrency?: number;
  baseDelayMs?: number;
  /** Awaited before each message is handled: holds the imports back (the benchmark measures the endpoint alone). */
  gate?: () => Promise<void>;
  onResult?: (
    message: IntakeMessage,
    result: EntryResult | { status: 'dead-lettered'; reason: string },
  ) => void;
}

export interface LocalIntakeQueue extends IntakeQueue {
  /** Resolves when every queued message was handled (or dead-lettered). */
  drain(): Promise<void>;
  deadLetters(): readonly { message: IntakeMessage; reason: string }[];
  /** Messages dropped as repeats inside the deduplication window. */
  deduplicated(): number;
}

export function createLocalIntakeQueue(options: LocalIntakeQueueOptions): LocalIntakeQueue {
  const { clock, logger } = options;
  const maxAttempts = options.maxAttempts ?? 8;
  const baseDelay = options.baseDelayMs ?? 100;
  const seen = new Map<string, number>();
  const groups = new Map<string, Promise<void>>();
  const dead: { message: IntakeMessage; reason: string }[] = [];
  let dropped = 0;
  // A small semaphore: at most `concurrency` groups import at a time.
  const limit = Math.max(1, options.concurrency ?? 2);
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (active < limit) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const releaseSlot = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };

  const handleWithRetries = async (message: IntakeMessage): Promise<void> => {
    await options.gate?.();
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await options.handle(message);
        options.onResult?.(message, result);
        if (result.status === 'invalid') dead.push({ message, reason: result.reason });
        return;
      } catch (error) {
        const reason =
          error instanceof RetryLaterError
            ? error.reason
            : error instanceof Error
              ? error.message
              : String(error);
        if (attempt >= maxAttempts) {
          logger.warn('intake message dead-lettered', {
            source: message.source,
            shopOrderId: message.order.id,
            reason,
          });
          dead.push({ message, reason });
          options.onResult?.(message, { status: 'dead-lettered', reason });
          return;
        }
        const hint = error instanceof RetryLaterError ? error.retryAfterMs : undefined;
        await clock.sleep(hint ?? Math.min(5000, baseDelay * 2 ** (attempt - 1))).catch(() => {});
      }
    }
  };

  return {
    async send(message: IntakeMessage, enqueue: EnqueueOptions): Promise<void> {
      const now = clock.now().getTime();
      for (const [id, at] of seen) if (now - at > DEDUPLICATION_WINDOW_MS) seen.delete(id);
      if (seen.has(enqueue.deduplicationId)) {
        dropped += 1;
        return;
      }
      seen.set(enqueue.deduplicationId, now);
      const previous = groups.get(enqueue.groupId) ?? Promise.resolve();
      const next = previous.then(async () => {
        await acquire();
        try {
          await handleWithRetries(message);
        } finally {
          releaseSlot();
        }
      });
      groups.set(enqueue.groupId, next);
      void next.finally(() => {
        if (groups.get(enqueue.groupId) === next) groups.delete(enqueue.groupId);
      });
    },
    async drain() {
      while (groups.size > 0) await Promise.allSettled([...groups.values()]);
    },
    deadLetters: () => dead,
    deduplicated: () => dropped,
  };
}
