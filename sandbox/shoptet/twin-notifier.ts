/**
 * The Shoptet twin's notifications: each event is posted to the webhooks registered for it, signed
 * (`Shoptet-Webhook-Signature`: hex HMAC-SHA1 of the body with the signature key), tried 3 times.
 */
import { createHmac } from 'node:crypto';
import { shoptetTime } from './shoptet-orders.js';
import type { TwinState, Webhook } from './twin-state.js';

export interface Delivery {
  url: string;
  /** The answer to the hook's last try (null: no answer). */
  status: number | null;
}

export type Notify = (event: string, eventInstance: string) => Promise<Delivery[]>;

/** The notifier of `state`'s webhooks, waiting `retryMs` between tries. */
export function createNotifier(state: TwinState, retryMs: number): Notify {
  const deliver = async (hook: Webhook, body: string): Promise<Delivery> => {
    let status: number | null = null;
    for (let attempt = 1; attempt <= 3 && !state.closed; attempt += 1) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, retryMs).unref());
      if (state.faults.dropNotifications) {
        state.stats.notificationsLost += 1;
        continue;
      }
      try {
        const res = await fetch(hook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'shoptet-webhook-signature': createHmac('sha1', state.signatureKey).update(body).digest('hex'),
          },
          body,
          signal: AbortSignal.timeout(4000),
        });
        await res.arrayBuffer();
        state.stats.notificationsSent += 1;
        status = res.status;
        if (res.status >= 200 && res.status < 300) break;
      } catch {
        state.stats.notificationsLost += 1;
      }
    }
    return { url: hook.url, status };
  };

  return async (event, eventInstance) => {
    const body = JSON.stringify({
      eshopId: state.eshopId,
      event,
      eventCreated: shoptetTime(new Date()),
      eventInstance,
    });
    return Promise.all(state.webhooks.filter((h) => h.event === event).map((h) => deliver(h, body)));
  };
}
