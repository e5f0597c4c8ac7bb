/**
 * The import of a Shoptet order named by a notice (a notification, or the sweep): fetch the order
 * from the shop, map it, and import it exactly as any other shop order (core/intake/import-order.ts,
 * once per order code, so `order:update` of an order received already makes no second one).
 * Unless Shoptet validated the customer's VAT id, no address-book partner is linked by what the
 * customer typed (the order keeps its document address), whatever the partner matching says.
 */

import { RetryLaterError } from '../actions/errors.js';
import type { ActionOutcome } from '../actions/outcomes.js';
import { type ImportDeps, importOrder } from './import-order.js';
import { publishIntakeEvent } from './intake-events-out.js';
import { issuesOf } from './intake-response.js';
import { announcePayment } from './receive-payment.js';
import { type IntakeMessage, shopOrderSchema } from './shop-order.js';
import { type ShoptetPaidOrder, shoptetPayment } from './shop-payment.js';
import type { ShoptetNoticeMessage } from './shoptet-notification.js';
import { shoptetOrderSchema, shoptetToShopOrder } from './shoptet-order.js';

export type ShoptetImportDeps = ImportDeps;

/** `paymentMethod.name` of the order, when it is there. */
function nameOf(method: unknown): string | null {
  const name = (method as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 255) : null;
}

/** A notice → the shop order to import, or the outcome when there is none to import. */
async function fetchOrder(
  deps: ShoptetImportDeps,
  message: ShoptetNoticeMessage,
): Promise<{ message: IntakeMessage; partnerVerified: boolean; paid: ShoptetPaidOrder } | ActionOutcome> {
  const { notice } = message;
  if (!deps.shoptet) throw new RetryLaterError('no Shoptet API token is configured to fetch the order');
  const origin = {
    connection: message.connection,
    source: 'shoptet',
    shopOrderId: notice.code,
    orderNumber: notice.code,
  } as const;
  const log = {
    source: 'shoptet',
    shopOrderId: notice.code,
    deliveryId: message.deliveryId,
    event: notice.event,
  };
  const raw = await deps.shoptet.getOrder(notice.code);
  if (raw === undefined) {
    deps.logger.warn('shoptet order not found', log);
    return { status: 'skipped', reason: `the shop has no order ${notice.code}` };
  }
  const parsed = shoptetOrderSchema.safeParse(raw);
  const mapped = parsed.success ? shoptetToShopOrder(parsed.data) : undefined;
  const checked = mapped ? shopOrderSchema.safeParse(mapped.order) : undefined;
  if (!parsed.success || !checked?.success || !mapped) {
    const problems = !parsed.success
      ? issuesOf(parsed.error)
      : checked && !checked.success
        ? issuesOf(checked.error, 'order.')
        : [];
    deps.logger.warn('import rejected', { ...log, stage: 'validation', reasons: problems.slice(0, 20) });
    await publishIntakeEvent(
      { ...deps, eventSource: deps.config.eventSource },
      origin,
      'Rejected',
      { stage: 'validation', reasons: problems },
      message.deliveryId,
    );
    return { status: 'failed', reason: 'validation' };
  }
  if (checked.data.id !== notice.code) {
    throw new RetryLaterError(`the shop answered order ${checked.data.id.slice(0, 64)} for ${notice.code}`);
  }
  return {
    message: {
      version: 1,
      connection: message.connection,
      source: 'shoptet',
      deliveryId: message.deliveryId,
      receivedAt: message.receivedAt,
      order: checked.data,
    },
    partnerVerified: mapped.partnerVerified,
    paid: {
      code: notice.code,
      paid: parsed.data.paid,
      total: parsed.data.price.withVat,
      currency: parsed.data.price.currencyCode,
      creationTime: parsed.data.creationTime,
      paymentMethod: nameOf(parsed.data.paymentMethod),
    },
  };
}

/**
 * `order:paid` → `EshopOrder.Paid`, once the order is imported (its liquidation follows the
 * order → received order → invoice chain). An order the shop no longer says is paid announces
 * nothing.
 */
async function announceShoptetPayment(
  deps: ShoptetImportDeps,
  message: ShoptetNoticeMessage,
  order: ShoptetPaidOrder,
): Promise<void> {
  const result = shoptetPayment(order, message.notice.eventCreated);
  const log = { source: 'shoptet', shopOrderId: order.code, deliveryId: message.deliveryId };
  if ('problems' in result) {
    deps.logger.warn('shop payment not announced', { ...log, problems: result.problems });
    return;
  }
  if (!result.payment) {
    deps.logger.info('shop order not paid', log);
    return;
  }
  await announcePayment(
    { ...deps, eventSource: deps.config.eventSource },
    message.connection,
    'shoptet',
    result.payment,
    message.deliveryId,
  );
}

export async function importShoptetNotice(
  deps: ShoptetImportDeps,
  message: ShoptetNoticeMessage,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const fetched = await fetchOrder(deps, message);
  if ('status' in fetched) return fetched;
  const { order } = fetched.message;
  if (message.notice.event === 'order:create') {
    await publishIntakeEvent(
      { ...deps, eventSource: deps.config.eventSource },
      { connection: message.connection, source: 'shoptet', shopOrderId: order.id, orderNumber: order.number },
      'Received',
      { deliveryId: message.deliveryId, lineCount: order.lines.length, currency: order.currency },
      message.deliveryId,
    );
  }
  const mapping = fetched.partnerVerified
    ? deps.config.mapping
    : { ...deps.config.mapping, partnerMatch: [] };
  const outcome = await importOrder(
    { ...deps, config: { ...deps.config, mapping } },
    fetched.message,
    options,
  );
  if (message.notice.event === 'order:paid') await announceShoptetPayment(deps, message, fetched.paid);
  return outcome;
}
