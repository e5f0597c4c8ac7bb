/**
 * `intake send --source shoptet`: plays a Shoptet shop through the sandbox's Shoptet twin
 * (`sandbox --shoptet-port N`). The intake's URL is registered as the twin's webhook for the order
 * events (through Shoptet's own `POST /api/webhooks`, with the token), then the twin makes each
 * order and sends its signed `order:create` notification to the intake, which fetches the order
 * back from the twin.
 */
import { request } from 'undici';
import * as z from 'zod';

const ORDER_EVENTS = ['order:create', 'order:update', 'order:paid'] as const;

export interface ShoptetSent {
  status: number;
  code: string;
  total: string;
  currency: string;
  lines: number;
  ms: number;
}

const madeSchema = z.object({
  code: z.string(),
  total: z.string(),
  currency: z.string(),
  lines: z.number(),
  notified: z.array(z.object({ url: z.string(), status: z.number().nullable() })),
});

/** Registers `intakeUrl` for the order events at the shop (nothing when registered already). */
export async function registerIntakeWebhooks(
  shopUrl: string,
  token: string,
  intakeUrl: string,
): Promise<void> {
  const base = shopUrl.replace(/\/+$/, '');
  const headers = { 'shoptet-private-api-token': token, 'content-type': 'application/vnd.shoptet.v1.0' };
  const listed = await request(`${base}/api/webhooks`, { headers });
  const text = await listed.body.text();
  if (listed.statusCode !== 200)
    throw new Error(`the shop answered ${listed.statusCode} to GET /api/webhooks`);
  const hooks =
    (JSON.parse(text) as { data?: { webhooks?: { event: string; url: string }[] } }).data?.webhooks ?? [];
  const missing = ORDER_EVENTS.filter(
    (event) => !hooks.some((h) => h.event === event && h.url === intakeUrl),
  );
  if (missing.length === 0) return;
  const made = await request(`${base}/api/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ data: missing.map((event) => ({ event, url: intakeUrl })) }),
  });
  await made.body.dump();
  if (made.statusCode >= 300) throw new Error(`the shop answered ${made.statusCode} to POST /api/webhooks`);
}

/** Has the twin make one order (and notify it); the status is the intake's answer to the notification. */
export async function sendShoptetOrder(
  shopUrl: string,
  shape: { country?: 'cz' | 'sk'; lines?: number; seed: number },
): Promise<ShoptetSent> {
  const started = performance.now();
  const res = await request(`${shopUrl.replace(/\/+$/, '')}/_twin/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(shape),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201)
    throw new Error(`the Shoptet twin answered ${res.statusCode}: ${text.slice(0, 200)}`);
  const made = madeSchema.parse(JSON.parse(text));
  const statuses = made.notified.map((n) => n.status ?? 0);
  return {
    status: statuses.length === 0 ? 0 : Math.max(...statuses),
    code: made.code,
    total: made.total,
    currency: made.currency,
    lines: made.lines,
    ms: performance.now() - started,
  };
}
