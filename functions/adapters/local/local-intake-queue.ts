/**
 * `IntakeQueue` in process, with what the AWS FIFO queue gives: a repeated deduplication id inside
 * 5 minutes is dropped, messages of one group are handled one after another, a failed message is
 * retried with backoff and dead-lettered after `maxAttempts`. Kept in memory: a local run that
 * stops drains it first.
 */

import { RetryLaterError } from '#functions/core/actions/errors.js';
import type { EntryResult } from '#functions/core/actions/run-action.js';
import type { EnqueueOptions, IntakeQueue } from '#functions/core/intake/ports.js';
import type { QueuedIntakeMessage } from '#functions/core/intake/shop-order.js';
import type { Clock, Logger } from '#functions/core/ports.js';
import { createSemaphore } from '#functions/shared/semaphore.js';

export const DEDUPLICATION_WINDOW_MS = 5 * 60_000;

export interface LocalIntakeQueueOptions {
  handle: (message: QueuedIntakeMessage) => Promise<EntryResult>;
  clock: Clock;
  logger: Logger;
  maxAttempts?: number;
  /** Orders imported at once (the import function's concurrency on AWS); default 2. */
  concurrency?: number;
  baseDelayMs?: number;
  /** Awaited before each message is handled: holds the imports back (the benchmark measures the endpoint alone). */
  gate?: () => Promise<void>;
  onResult?: (
    message: QueuedIntakeMessage,
    result: EntryResult | { status: 'dead-lettered'; reason: string },
  ) => void;
}

export interface LocalIntakeQueue extends IntakeQueue {
  /** Resolves when every queued message was handled (or dead-lettered). */
  drain(): Promise<void>;
  deadLetters(): readonly { message: QueuedIntakeMessage; reason: string }[];
  /** Messages dropped as repeats inside the deduplication window. */
  deduplicated(): number;
}

type DeadLetter = { message: QueuedIntakeMessage; reason: string };

const reasonOf = (error: unknown): string =>
  error instanceof RetryLaterError ? error.reason : error instanceof Error ? error.message : String(error);

/** Handles one message until it is done, retrying with backoff and dead-lettering after `maxAttempts`. */
async function handleWithRetries(
  options: LocalIntakeQueueOptions,
  dead: DeadLetter[],
  message: QueuedIntakeMessage,
): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 8;
  const baseDelay = options.baseDelayMs ?? 100;
  await options.gate?.();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await options.handle(message);
      options.onResult?.(message, result);
      if (result.status === 'invalid') dead.push({ message, reason: result.reason });
      return;
    } catch (error) {
      const reason = reasonOf(error);
      if (attempt >= maxAttempts) {
        options.logger.warn('intake message dead-lettered', {
          source: message.source,
          ...('order' in message
            ? { shopOrderId: message.order.id }
            : 'notice' in message
              ? { shopOrderId: message.notice.code }
              : { orderRef: message.orderRef.key }),
          reason,
        });
        dead.push({ message, reason });
        options.onResult?.(message, { status: 'dead-lettered', reason });
        return;
      }
      const hint = error instanceof RetryLaterError ? error.retryAfterMs : undefined;
      await options.clock.sleep(hint ?? Math.min(5000, baseDelay * 2 ** (attempt - 1))).catch(() => {});
    }
  }
}

export function createLocalIntakeQueue(options: LocalIntakeQueueOptions): LocalIntakeQueue {
  const seen = new Map<string, number>();
  const groups = new Map<string, Promise<void>>();
  const dead: DeadLetter[] = [];
  let dropped = 0;
  // At most `concurrency` groups import at a time.
  const slots = createSemaphore(Math.max(1, options.concurrency ?? 2));
  return {
    async send(message: QueuedIntakeMessage, enqueue: EnqueueOptions): Promise<void> {
      const now = options.clock.now().getTime();
      for (const [id, at] of seen) if (now - at > DEDUPLICATION_WINDOW_MS) seen.delete(id);
      if (seen.has(enqueue.deduplicationId)) {
        dropped += 1;
        return;
      }
      seen.set(enqueue.deduplicationId, now);
      const previous = groups.get(enqueue.groupId) ?? Promise.resolve();
      const next = previous.then(async () => {
        await slots.acquire();
        try {
          await handleWithRetries(options, dead, message);
        } finally {
          slots.release();
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
