/** Ports of the order intake beyond `core/ports.ts`. */
import type { QueuedIntakeMessage } from './shop-order.js';

export interface EnqueueOptions {
  /** Same delivery → same id: a FIFO queue drops the repeat inside its 5-minute window. */
  deduplicationId: string;
  /** One group per shop order: deliveries of one order are imported one after another. */
  groupId: string;
}

/**
 * Where the endpoint hands an accepted order to the import (SQS FIFO on AWS, in process locally):
 * the order itself, or its claim check when the message would be over the queue's size.
 */
export interface IntakeQueue {
  send(message: QueuedIntakeMessage, options: EnqueueOptions): Promise<void>;
}

/**
 * Create attempts of the import, one per shop order: `begin` records that a create is about to
 * be tried and says whether one was recorded before. Only then can a received order of this shop
 * order exist without a completed intake record (a crash after the create), so only then does
 * the import read the received orders back; the usual first import reads nothing.
 */
export interface ImportAttempts {
  /** `true` when no attempt was recorded for `key` before this one. */
  begin(key: string): Promise<boolean>;
}

/** One order of Shoptet's order list: its code and when it last changed. */
export interface ShoptetOrderSummary {
  code: string;
  changeTime: string | null;
}

/** A webhook registered at the shop. */
export interface ShoptetWebhook {
  id: number;
  event: string;
  url: string;
}

/**
 * Shoptet's REST API as the intake uses it (an HTTP adapter on Shoptet's or the sandbox twin's
 * URL). Rate limits are the adapter's: at most 3 requests in flight per token, `Retry-After` on
 * 429 and 423 honoured; a request it cannot finish within its budget fails with `RetryLaterError`.
 */
export interface ShoptetApi {
  /** `data.order` of `GET /api/orders/{code}`, or undefined when the shop has no such order (404). */
  getOrder(code: string): Promise<unknown>;
  /** One page of `GET /api/orders?changeTimeFrom=…` (1-based). */
  listOrders(query: {
    changeTimeFrom: string;
    page: number;
  }): Promise<{ orders: ShoptetOrderSummary[]; page: number; pageCount: number }>;
  listWebhooks(): Promise<ShoptetWebhook[]>;
  /** `POST /api/webhooks`: a write, never repeated after an unknown outcome. */
  registerWebhooks(hooks: readonly { event: string; url: string }[]): Promise<ShoptetWebhook[]>;
}
