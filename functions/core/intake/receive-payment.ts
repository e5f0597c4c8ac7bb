/**
 * The endpoint's part for a signed delivery that reports a payment (Shopify `orders/paid`,
 * WooCommerce `order.created` / `order.updated` of a paid order): `EshopOrder.Paid` is published
 * at once, nothing is queued (the liquidation is the `liquidate-shop-payment` action's, once per
 * payment). Answers: 422 not the platform's order (the problems listed) · 200 `{ignored: true}`
 * an order that is not paid · 202 announced.
 */
import type { Clock, EventPublisher } from '../ports.js';
import type { IntakeTarget } from './intake-connections.js';
import { publishIntakeEvent } from './intake-events-out.js';
import { IGNORED, type IntakeLog, type IntakeResponse, reply } from './intake-response.js';
import type { IntakeSource } from './shop-order.js';
import { type PaymentOf, type ShopPayment, shopifyPayment, wooPayment } from './shop-payment.js';

/** The topics whose deliveries may report a payment, per platform. */
export const PAID_TOPICS: Partial<Record<IntakeSource, readonly string[]>> = {
  shopify: ['orders/paid'],
  woocommerce: ['order.created', 'order.updated'],
};

export function reportsPayment(source: IntakeSource, topic: string | undefined): boolean {
  return topic !== undefined && (PAID_TOPICS[source] ?? []).includes(topic);
}

/** The payment a delivery of the platform reports, when its order is paid. */
export function paymentOf(source: IntakeSource, json: unknown): PaymentOf {
  if (source === 'shopify') return shopifyPayment(json);
  if (source === 'woocommerce') return wooPayment(json);
  return { payment: undefined };
}

export interface PaymentAnnounceDeps {
  publisher: EventPublisher;
  clock: Clock;
}

/** `EshopOrder.Paid` of one payment; its idempotency key is the payment's, whichever delivery. */
export async function announcePayment(
  deps: PaymentAnnounceDeps & { eventSource?: string },
  connection: string,
  source: IntakeSource,
  payment: ShopPayment,
  deliveryId: string,
): Promise<void> {
  const { shopOrderId, orderNumber, paymentId, ...fields } = payment;
  await publishIntakeEvent(
    deps,
    { connection, source, shopOrderId, orderNumber },
    'Paid',
    { paymentId, ...fields, deliveryId },
    paymentId,
  );
}

export async function acceptPayment(
  deps: PaymentAnnounceDeps,
  target: IntakeTarget,
  request: { source: IntakeSource; json: unknown; deliveryId: string; topic: string },
  log: IntakeLog,
): Promise<IntakeResponse> {
  const { source, deliveryId, topic } = request;
  const result = paymentOf(source, request.json);
  if ('problems' in result) {
    log(422, 'schema', { deliveryId, topic, problems: result.problems.slice(0, 20) });
    return reply(422, { error: 'the order does not match the expected schema', problems: result.problems });
  }
  const { payment } = result;
  if (!payment) {
    log(200, IGNORED, { deliveryId, topic, paid: false });
    return reply(200, { ignored: true, topic });
  }
  await announcePayment(
    { ...deps, eventSource: target.eventSource },
    target.connection,
    source,
    payment,
    deliveryId,
  );
  log(202, 'payment announced', {
    connection: target.connection,
    deliveryId,
    topic,
    shopOrderId: payment.shopOrderId,
  });
  return reply(202, { accepted: true, id: `${source}:${payment.shopOrderId}`, paid: true });
}
