/** Posts one signed order to an intake endpoint, as the shop would (for `intake send`, the demo, tests). */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { IntakeSource } from '../core/intake/shop-order.js';
import { signHeaders } from '../core/intake/signatures.js';

export interface SentDelivery {
  status: number;
  body: string;
  deliveryId: string;
  ms: number;
}

export async function postSignedOrder(options: {
  baseUrl: string;
  source: IntakeSource;
  /** The connection the order is for (`/intake/<connection>/<source>`); else the intake's own. */
  connection?: string;
  secret: string;
  body: string;
  deliveryId?: string;
  now?: Date;
}): Promise<SentDelivery> {
  const deliveryId = options.deliveryId ?? randomUUID();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'accounting-events intake send',
    ...signHeaders(options.source, options.secret, options.body, {
      deliveryId,
      now: options.now ?? new Date(),
    }),
  };
  const started = performance.now();
  const path = options.connection ? `${options.connection}/${options.source}` : options.source;
  const res = await request(`${options.baseUrl.replace(/\/$/, '')}/intake/${path}`, {
    method: 'POST',
    headers,
    body: options.body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text, deliveryId, ms: performance.now() - started };
}
