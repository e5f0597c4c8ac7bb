/**
 * One queue message of the delivery function: an EventBridge event for one target (the queue
 * says which). Its body goes out unchanged, signed per Standard Webhooks with the target's secret
 * (`webhook-id` = the event id, the same on every attempt). Then, by `decideDelivery`: delivered —
 * acknowledged; retryable — visible again after the backoff and reported as failed, so SQS keeps
 * it; not retryable or out of attempts — sent to the target's dead-letter queue and acknowledged.
 * A body that is no event goes to the dead-letter queue at once. What cannot be sent there stays a
 * failed message, which the queue's own redrive moves after its last receive.
 */
import * as z from 'zod';
import type { DeadLetterSink } from '../actions/dead-letter-sink.js';
import type { Logger } from '../ports.js';
import { decideDelivery, type PostResult } from './delivery-decision.js';
import type { DeliveryFunctionConfig, DeliveryFunctionTarget } from './delivery-function-config.js';

/** The message is to be received again (a retry), or could not be settled. */
export class DeliveryRetryError extends Error {
  override readonly name = 'DeliveryRetryError';
}

/** A queue message: what the SQS record carries. */
export interface DeliveryMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** The queue it came from (its ARN). */
  readonly queueArn: string;
  /** This receive's number (1 = the first). */
  readonly receiveCount: number;
}

export interface DeliveryPorts {
  readonly config: DeliveryFunctionConfig;
  /** The target's `whsec_` secret. */
  secretOf(target: DeliveryFunctionTarget): Promise<string>;
  /** One signed POST; never throws. */
  post(request: {
    url: string;
    id: string;
    body: string;
    secret: string;
    timeoutMs: number;
  }): Promise<PostResult>;
  /** The target's dead-letter queue. */
  deadLetters(target: DeliveryFunctionTarget): DeadLetterSink;
  /** Makes the message visible again after `seconds`. */
  retryAfter(target: DeliveryFunctionTarget, receiptHandle: string, seconds: number): Promise<void>;
  readonly logger: Logger;
}

const envelopeSchema = z.looseObject({
  id: z.string({ error: 'expected the event id (string)' }).min(1, 'expected the event id'),
  'detail-type': z.string({ error: 'expected detail-type (string)' }),
  source: z.string({ error: 'expected source (string)' }),
});

function envelopeOf(
  body: string,
): { ok: true; id: string; detailType: string } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  const parsed = envelopeSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not an event'}` };
  }
  return { ok: true, id: parsed.data.id, detailType: parsed.data['detail-type'] };
}

/** Delivers one message; throws `DeliveryRetryError` when SQS must keep it. */
export async function deliverMessage(ports: DeliveryPorts, message: DeliveryMessage): Promise<void> {
  const { config, logger } = ports;
  const target = config.targets.get(message.queueArn);
  if (!target) {
    logger.error('delivery message from an unknown queue', {
      queueArn: message.queueArn,
      messageId: message.messageId,
    });
    throw new DeliveryRetryError(`no target is fed by ${message.queueArn}`);
  }
  const base = { target: target.id, messageId: message.messageId, attempt: message.receiveCount };
  const deadLetter = async (reason: string, data: Record<string, unknown>) => {
    try {
      await ports.deadLetters(target).send(message.body, {
        action: target.id,
        reason,
        messageId: message.messageId,
      });
    } catch (error) {
      logger.error('delivery dead-letter send failed', { ...base, ...data, error: (error as Error).name });
      throw new DeliveryRetryError(`dead-letter send failed: ${reason}`, { cause: error });
    }
    logger.warn('delivery dead-lettered', { ...base, ...data, reason });
  };

  const envelope = envelopeOf(message.body);
  if (!envelope.ok) return deadLetter(envelope.reason, {});
  const event = { eventId: envelope.id, detailType: envelope.detailType };

  let secret: string;
  try {
    secret = await ports.secretOf(target);
  } catch (error) {
    // A missing or malformed secret: kept on the queue until it is fixed (or the redrive takes it).
    logger.error('delivery signing secret unavailable', {
      ...base,
      error: (error as Error).name,
      reason: (error as Error).message,
    });
    throw new DeliveryRetryError('signing secret unavailable', { cause: error });
  }
  const result = await ports.post({
    url: target.url,
    id: envelope.id,
    body: message.body,
    secret,
    timeoutMs: config.policy.timeoutMs,
  });
  const decision = decideDelivery(result, message.receiveCount, config.policy);
  switch (decision.kind) {
    case 'delivered':
      logger.info('event delivered', { ...base, ...event, status: decision.status });
      return;
    case 'dead-letter':
      return deadLetter(decision.reason, {
        ...event,
        ...(decision.status ? { status: decision.status } : {}),
      });
    case 'retry':
      logger.warn('delivery will be retried', {
        ...base,
        ...event,
        ...(decision.status ? { status: decision.status } : {}),
        error: decision.error,
        delaySeconds: decision.delaySeconds,
      });
      try {
        await ports.retryAfter(target, message.receiptHandle, decision.delaySeconds);
      } catch (error) {
        // The queue's own visibility timeout applies instead.
        logger.warn('delivery backoff not set', { ...base, error: (error as Error).name });
      }
      throw new DeliveryRetryError(`${decision.error} (attempt ${message.receiveCount})`);
  }
}
