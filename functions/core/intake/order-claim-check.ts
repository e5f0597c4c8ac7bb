/**
 * The intake's claim check: an accepted order whose queue message would pass the queue's message
 * size (SQS: 256 KiB) is stored in the object store and the message carries `orderRef` (key, size,
 * SHA-256) instead of the order; the import reads it back and checks the digest before anything else.
 * Keys are content-addressed under `intake-orders/<connection>/<source>/`, so a repeated delivery
 * stores the same object again; the import takes only the key its own message's connection, source
 * and digest make (never another connection's order).
 */
import { createHash } from 'node:crypto';
import { readStream } from '#functions/shared/read-stream.js';
import type { ObjectStore } from '../ports.js';
import type { EnqueueOptions, IntakeQueue } from './ports.js';
import {
  type ClaimCheckedMessage,
  claimCheckedMessageSchema,
  type IntakeMessage,
  type QueuedIntakeMessage,
  shopOrderSchema,
} from './shop-order.js';

/** The prefix of claim-checked orders in the object store (the functions' grants are narrowed to it). */
export const ORDER_CLAIM_PREFIX = 'intake-orders/';

/** The claim-checked order cannot be read back: missing, altered or not an order. */
export class OrderClaimCheckError extends Error {
  override readonly name = 'OrderClaimCheckError';
}

/** The key of a claim-checked order: `intake-orders/<connection>/<source>/<sha256>.json`. */
export function orderClaimKey(connection: string, source: string, sha256: string): string {
  return `${ORDER_CLAIM_PREFIX}${connection}/${source}/${sha256}.json`;
}

/** Queues `message`, claim-checking its order when the message is over `maxMessageBytes`. */
export async function queueOrder(
  deps: { queue: IntakeQueue; orderStore?: ObjectStore | undefined; maxMessageBytes: number },
  message: IntakeMessage,
  options: EnqueueOptions,
): Promise<{ messageBytes: number; claimChecked: boolean }> {
  const text = JSON.stringify(message);
  const messageBytes = Buffer.byteLength(text);
  if (messageBytes <= deps.maxMessageBytes) {
    await deps.queue.send(message, options);
    return { messageBytes, claimChecked: false };
  }
  if (!deps.orderStore) {
    throw new OrderClaimCheckError(
      `the queue message is ${messageBytes} bytes, over ${deps.maxMessageBytes}, and no claim-check store is configured`,
    );
  }
  const body = Buffer.from(JSON.stringify(message.order));
  const sha256 = createHash('sha256').update(body).digest('hex');
  const key = orderClaimKey(message.connection, message.source, sha256);
  await deps.orderStore.put({
    key,
    body,
    contentType: 'application/json',
    contentLength: body.length,
    checksumSha256: createHash('sha256').update(body).digest('base64'),
  });
  const { order: _order, ...rest } = message;
  const ref: ClaimCheckedMessage = { ...rest, orderRef: { key, bytes: body.length, sha256 } };
  await deps.queue.send(ref, options);
  return { messageBytes: Buffer.byteLength(JSON.stringify(ref)), claimChecked: true };
}

/**
 * A queued message (parsed JSON) with its order: a claim-checked one gets its order from the
 * store, checked against the digest; any other value is returned as it is (for the schema to judge).
 */
export async function withClaimedOrder(raw: unknown, orderStore: ObjectStore | undefined): Promise<unknown> {
  if (typeof raw !== 'object' || raw === null || !('orderRef' in raw)) return raw;
  const parsed = claimCheckedMessageSchema.safeParse(raw);
  if (!parsed.success) return raw;
  const { orderRef, ...rest } = parsed.data;
  if (!orderRef.key.startsWith(ORDER_CLAIM_PREFIX)) {
    throw new OrderClaimCheckError(`orderRef.key: expected a key under ${ORDER_CLAIM_PREFIX}`);
  }
  const expected = orderClaimKey(rest.connection, rest.source, orderRef.sha256);
  if (orderRef.key !== expected) {
    throw new OrderClaimCheckError(
      `orderRef.key: expected ${expected}, the key of this message's connection, source and SHA-256`,
    );
  }
  if (!orderStore) throw new OrderClaimCheckError('orderRef: no claim-check store is configured');
  const stream = await orderStore.get(orderRef.key);
  if (!stream)
    throw new OrderClaimCheckError(`orderRef.key: no object ${orderRef.key} (expired or never stored)`);
  const body = await readStream(stream, { maxBytes: orderRef.bytes });
  const digest = createHash('sha256').update(body).digest('hex');
  if (body.length !== orderRef.bytes || digest !== orderRef.sha256) {
    throw new OrderClaimCheckError(
      `orderRef: the object ${orderRef.key} does not match its size and SHA-256`,
    );
  }
  let order: unknown;
  try {
    order = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new OrderClaimCheckError(`orderRef: the object ${orderRef.key} is not JSON`, { cause: error });
  }
  const checked = shopOrderSchema.safeParse(order);
  if (!checked.success)
    throw new OrderClaimCheckError(`orderRef: the object ${orderRef.key} is not a shop order`);
  return { ...rest, order: checked.data } satisfies QueuedIntakeMessage;
}
