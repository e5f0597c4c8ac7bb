/**
 * What the delivery function on AWS does with one attempt's result: a queue message is one event
 * for one target, and SQS counts its receives. Delivered (2xx): acknowledged. Retryable (a network
 * error, a timeout, 408, 429, 5xx) before the last attempt: left on the queue, visible again after
 * an exponential backoff. Any other status, or the last attempt: dead-lettered, as EventBridge API
 * destinations and the local runtime treat them.
 */
import { backoffMs, type DeliveryPolicy, isRetryableStatus } from './delivery-targets.js';

/** One POST's result: a status, or an error without one (network, timeout). */
export type PostResult = { ok: true; status: number } | { ok: false; status?: number; error: string };

export type DeliveryDecision =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; delaySeconds: number; error: string; status?: number }
  | { kind: 'dead-letter'; reason: string; status?: number };

/** Longest visibility timeout SQS accepts (12 hours). */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** The decision after attempt `attempt` (1 = the first) of at most `policy.maxAttempts`. */
export function decideDelivery(
  result: PostResult,
  attempt: number,
  policy: Pick<DeliveryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'>,
): DeliveryDecision {
  const status = result.status !== undefined ? { status: result.status } : {};
  if (result.ok) return { kind: 'delivered', status: result.status };
  const retryable = result.status === undefined || isRetryableStatus(result.status);
  if (!retryable) return { kind: 'dead-letter', reason: `${result.error}: not retried`, ...status };
  if (attempt >= policy.maxAttempts) {
    return { kind: 'dead-letter', reason: `${result.error} after ${attempt} attempts`, ...status };
  }
  const delaySeconds = Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(backoffMs(policy, attempt + 1) / 1000));
  return { kind: 'retry', delaySeconds, error: result.error, ...status };
}
