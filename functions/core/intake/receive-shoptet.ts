/**
 * The endpoint's part for a signed Shoptet notification: it carries no order, only its code, so
 * each order code is queued as a notice and the importer fetches the order after the answer
 * (Shoptet waits 4 s). One notice per (eshop, event, order code): a repeated notification is
 * dropped by the queue's deduplication, and the import itself is once per order code, so an
 * `order:update` of an order already received makes no second one.
 *
 * Answers: 400 malformed JSON · 422 not a notification, or an order event whose instance is not
 * an order code (a list of codes for a mass event) · 200 `{ignored: true}` an event the intake
 * does not act on · 202 queued.
 */
import type * as z from 'zod';
import type { Clock } from '../ports.js';
import { IGNORED, type IntakeLog, type IntakeResponse, issuesOf, reply } from './intake-response.js';
import type { IntakeQueue } from './ports.js';
import {
  noticeDeduplicationId,
  orderNoticesOf,
  type ShoptetNoticeMessage,
  type ShoptetNotification,
  shoptetNotificationSchema,
} from './shoptet-notification.js';

export interface ShoptetReceiveDeps {
  /** The connection the notification's orders go to (named by the path, or the deployment's own). */
  connection: string;
  queue: IntakeQueue;
  clock: Clock;
}

/** Queue sends in flight at once for a mass notification (Shoptet's 4 s answer). */
const SEND_CONCURRENCY = 10;

function parseNotification(
  body: Buffer,
): { notification: ShoptetNotification } | { status: number; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, problems: ['(body): not valid JSON'] };
  }
  const parsed: z.ZodSafeParseResult<ShoptetNotification> = shoptetNotificationSchema.safeParse(json);
  if (!parsed.success) return { status: 422, problems: issuesOf(parsed.error) };
  return { notification: parsed.data };
}

export async function acceptShoptetNotification(
  deps: ShoptetReceiveDeps,
  request: { body: Buffer },
  log: IntakeLog,
): Promise<IntakeResponse> {
  const parsed = parseNotification(request.body);
  if ('problems' in parsed) {
    const malformed = parsed.status === 400;
    log(parsed.status, malformed ? 'malformed JSON' : 'schema', { problems: parsed.problems.slice(0, 20) });
    return reply(parsed.status, {
      error: malformed ? 'malformed JSON' : 'the notification does not match the expected schema',
      problems: parsed.problems,
    });
  }
  const { notification } = parsed;
  const event = notification.event.slice(0, 64);
  const result = orderNoticesOf(notification);
  if ('problems' in result) {
    log(422, 'schema', { topic: event, problems: result.problems });
    return reply(422, { error: 'the notification does not name orders', problems: result.problems });
  }
  if (result.notices.length === 0) {
    // Signed, but nothing the intake imports: 2xx, so Shoptet neither retries nor deactivates the webhook.
    log(200, IGNORED, { topic: event });
    return reply(200, { ignored: true, topic: event });
  }
  const receivedAt = deps.clock.now().toISOString();
  const ids: string[] = [];
  const pending = [...result.notices];
  const send = async () => {
    for (let notice = pending.shift(); notice; notice = pending.shift()) {
      const deliveryId = noticeDeduplicationId(notice);
      const message: ShoptetNoticeMessage = {
        version: 1,
        connection: deps.connection,
        source: 'shoptet',
        deliveryId,
        receivedAt,
        notice,
      };
      await deps.queue.send(message, { deduplicationId: deliveryId, groupId: `shoptet:${notice.code}` });
      ids.push(`shoptet:${notice.code}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, pending.length) }, send));
  log(202, 'queued', { topic: event, eshopId: notification.eshopId, orders: ids.length });
  return reply(202, { accepted: true, ids });
}
