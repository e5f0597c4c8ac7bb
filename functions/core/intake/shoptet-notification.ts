/**
 * Shoptet's webhook notification: thin, `{eshopId, event, eventCreated, eventInstance}`, where the
 * instance of an order event is the order's code and that of a mass event a JSON list of codes.
 * The endpoint turns each order code of a notification into one queued message; the importer
 * fetches the order (core/intake/import-shoptet.ts). Events the intake does not act on are
 * answered 200 and dropped.
 */
import * as z from 'zod';
import { connectionSchema } from '../connection.js';

/** The order events the intake acts on: an order to import, or an order that became paid. */
export const shoptetOrderEvents = ['order:create', 'order:update', 'order:paid'] as const;
export type ShoptetOrderEvent = (typeof shoptetOrderEvents)[number];

/** Mass events → the single event each of their codes stands for. */
const MASS_EVENTS: Record<string, ShoptetOrderEvent> = {
  'order:massCreate': 'order:create',
  'order:massUpdate': 'order:update',
  'order:massPaid': 'order:paid',
};

/** Most codes one mass notification may carry (Shoptet's lists are per request, 50 at most). */
export const MAX_CODES_PER_NOTIFICATION = 500;

/** An order code: "not just a number, it can also contain letters, a dash, etc." */
export const orderCodeSchema = z
  .string()
  .trim()
  .min(1, 'expected an order code')
  .max(64, 'expected an order code of at most 64 characters')
  .regex(/^[\p{L}\p{N}._/-]+$/u, 'expected an order code of letters, digits, dots, dashes or slashes');

export const shoptetNotificationSchema = z.looseObject({
  eshopId: z.number().int().positive(),
  event: z.string().min(1).max(64),
  eventCreated: z.string().min(1).max(64),
  eventInstance: z.union([z.string().min(1).max(100_000), z.number().int()]).transform(String),
});
export type ShoptetNotification = z.infer<typeof shoptetNotificationSchema>;

/** A notice of the reconciliation sweep: an order changed since its checkpoint (no notification). */
export const SWEEP_EVENT = 'sweep';

/** One order code of a notification (or of the sweep), as queued for the importer. */
export const shoptetOrderNoticeSchema = z
  .object({
    /** The shop's id; the sweep's notices have none (Shoptet's order list does not say it). */
    eshopId: z.number().int().positive().optional(),
    event: z.enum([...shoptetOrderEvents, SWEEP_EVENT]),
    code: orderCodeSchema,
    eventCreated: z.string().min(1).max(64),
  })
  .strict();
export type ShoptetOrderNotice = z.infer<typeof shoptetOrderNoticeSchema>;

/** What the endpoint queues for a Shoptet notification: the notice, no order (it is fetched). */
export const shoptetNoticeMessageSchema = z
  .object({
    version: z.literal(1),
    connection: connectionSchema,
    source: z.literal('shoptet'),
    deliveryId: z.string().min(1).max(128),
    receivedAt: z.iso.datetime({ offset: true }),
    notice: shoptetOrderNoticeSchema,
  })
  .strict();
export type ShoptetNoticeMessage = z.infer<typeof shoptetNoticeMessageSchema>;

export function isShoptetNoticeMessage(value: unknown): value is { notice: unknown } {
  return typeof value === 'object' && value !== null && 'notice' in value;
}

/**
 * The order notices of a notification: `[]` for an event the intake does not act on, or the
 * problems (field: expectation) when an order event's instance is not a code or a list of codes.
 */
export function orderNoticesOf(
  notification: ShoptetNotification,
): { notices: ShoptetOrderNotice[] } | { problems: string[] } {
  const { eshopId, event, eventCreated, eventInstance } = notification;
  const single = (shoptetOrderEvents as readonly string[]).includes(event)
    ? (event as ShoptetOrderEvent)
    : undefined;
  const mass = MASS_EVENTS[event];
  if (!single && !mass) return { notices: [] };
  let codes: unknown = [eventInstance];
  if (mass) {
    try {
      codes = JSON.parse(eventInstance);
    } catch {
      return { problems: ['eventInstance: expected a JSON list of order codes'] };
    }
  }
  const parsed = z
    .array(orderCodeSchema)
    .min(1, 'expected at least one order code')
    .max(MAX_CODES_PER_NOTIFICATION)
    .safeParse(codes);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues
        .slice(0, 20)
        .map((i) => `eventInstance${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`),
    };
  }
  const type = (single ?? mass) as ShoptetOrderEvent;
  return { notices: [...new Set(parsed.data)].map((code) => ({ eshopId, event: type, code, eventCreated })) };
}

/**
 * The deduplication id of one notice: the same (eshop, event, order) is queued once; a sweep's
 * notice once per (order, change time).
 */
export function noticeDeduplicationId(notice: ShoptetOrderNotice): string {
  if (notice.event === SWEEP_EVENT) return `shoptet:sweep:${notice.code}:${notice.eventCreated}`;
  return `shoptet:${notice.eshopId}:${notice.event}:${notice.code}`;
}
