/**
 * Where an action event that can never succeed (fails its catalog schema, or is not JSON) is sent
 * on its first receive, so it is dead-lettered at once instead of being redelivered until the
 * queue's `maxReceiveCount`. Adapters: `adapters/aws/sqs-dead-letter-sink.ts` (the route's DLQ),
 * the local bus's dead-letter list (`adapters/local/local-bus.ts`).
 */
import type { Logger } from '../ports.js';

/** What travels with the dead-lettered body: which action gave up on it, why, and the original message. */
export interface DeadLetterAttributes {
  /** The action (handler) name, e.g. `transfer-documents`. */
  action: string;
  /** Why the event can never succeed (field names and expectations only, never values). */
  reason: string;
  /** Id of the message (or event) as it was received. */
  messageId: string;
}

export interface DeadLetterSink {
  /** Stores `body` (the message exactly as received) with `attributes`; rejects when it could not. */
  send(body: string, attributes: DeadLetterAttributes): Promise<void>;
}

/** Reported for a delivery that must reach the dead-letter queue some other way (no sink, or its send failed). */
export class DeadLetterError extends Error {
  override readonly name = 'DeadLetterError';
  constructor(
    readonly messageId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`message ${messageId} dead-lettered: ${reason}`, options);
  }
}

/** Where an invalid event goes when the sink cannot take it: the SQS queue's redrive, or the local bus's retries. */
export type DeadLetterFallback = 'queue' | 'bus';

const SEND_FAILED: Record<DeadLetterFallback, string> = {
  queue: 'dead-letter send failed, left to the queue redrive',
  bus: 'dead-letter send failed, left to the bus retries',
};

/**
 * An event that can never succeed: sent (exactly as received) to the route's dead-letter sink, after
 * which the delivery is acknowledged. Without a sink, or when the send fails, throws
 * `DeadLetterError`: the delivery fails and reaches the DLQ by the fallback.
 */
export async function deadLetterInvalid(
  sink: DeadLetterSink | undefined,
  logger: Logger,
  body: string,
  attributes: DeadLetterAttributes,
  fallback: DeadLetterFallback,
): Promise<void> {
  if (!sink) throw new DeadLetterError(attributes.messageId, attributes.reason);
  try {
    await sink.send(body, attributes);
  } catch (error) {
    logger.warn(SEND_FAILED[fallback], {
      action: attributes.action,
      messageId: attributes.messageId,
      error: error instanceof Error ? error.name : 'unknown',
    });
    throw new DeadLetterError(attributes.messageId, attributes.reason, { cause: error });
  }
}
