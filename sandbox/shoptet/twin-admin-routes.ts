/**
 * The Shoptet twin's own admin, under `/_twin/`: `POST /_twin/orders` {country?, lines?, seed?}
 * makes an order and notifies `order:create`; `POST /_twin/orders/{code}/update|paid` change one;
 * `POST /_twin/faults` sets faults; `GET /_twin/stats` counts requests and the most in flight.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OrderShape } from './shoptet-orders.js';
import { readBody, send } from './twin-http.js';
import type { Notify } from './twin-notifier.js';
import type { TwinShop } from './twin-shop.js';
import type { TwinFaults, TwinState } from './twin-state.js';

/** The shape asked for by the admin's body: only the fields it allows, the rest random. */
function requestedShape(body: Record<string, unknown>): Partial<OrderShape> {
  const shape: Partial<OrderShape> = {};
  if (body.country === 'cz' || body.country === 'sk') shape.country = body.country;
  if (typeof body.lines === 'number' && Number.isInteger(body.lines) && body.lines >= 1 && body.lines <= 300)
    shape.lines = body.lines;
  return shape;
}

async function createOrder(
  shop: TwinShop,
  notify: Notify,
  res: ServerResponse,
  body: Record<string, unknown>,
) {
  const order = shop.makeOrder(requestedShape(body), typeof body.seed === 'number' ? body.seed : undefined);
  const notified = await notify('order:create', order.code);
  send(res, 201, {
    notified,
    code: order.code,
    total: order.price.withVat,
    currency: order.price.currencyCode,
    lines: order.items.length,
  });
}

export async function routeAdmin(
  state: TwinState,
  shop: TwinShop,
  notify: Notify,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) {
  const method = req.method ?? 'GET';
  const text = method === 'POST' ? await readBody(req) : '';
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    send(res, 400, { error: 'expected JSON' });
    return;
  }
  if (method === 'GET' && url.pathname === '/_twin/stats') {
    send(res, 200, { ...state.stats, orders: state.orders.size, webhooks: state.webhooks.length });
    return;
  }
  if (method === 'POST' && url.pathname === '/_twin/faults') {
    Object.assign(state.faults, body as Partial<TwinFaults>);
    send(res, 200, { ok: true });
    return;
  }
  if (method === 'POST' && url.pathname === '/_twin/orders') return createOrder(shop, notify, res, body);
  const change = /^\/_twin\/orders\/([^/]+)\/(update|paid)$/.exec(url.pathname);
  if (method === 'POST' && change) {
    const code = decodeURIComponent(change[1] ?? '');
    if (!state.orders.has(code)) {
      send(res, 404, { error: `no order ${code}` });
      return;
    }
    await (change[2] === 'paid' ? shop.payOrder(code) : shop.updateOrder(code));
    send(res, 200, { ok: true });
    return;
  }
  send(res, 404, { error: 'unknown twin endpoint' });
}
