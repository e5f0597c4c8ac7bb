/**
 * A Shoptet twin, from Shoptet's OpenAPI and its documented limits: `GET /api/orders/{code}`,
 * `GET /api/orders` (paged, `changeTimeFrom`), `GET`/`POST /api/webhooks`,
 * `POST /api/webhooks/renew-signature-key`, authenticated by `Shoptet-Private-API-Token` (or an
 * add-on's `Shoptet-Access-Token`). Limits: 3 requests in flight per token (a 4th gets 429), a
 * leaky bucket per token (429 with `Retry-After` and `X-RateLimit-Bucket-Filling`), and 423 for
 * a write identical to one made within 5 s. It plays the shop too: orders are created, updated
 * and paid, and each event is notified to the registered webhooks, signed
 * (`Shoptet-Webhook-Signature`: hex HMAC-SHA1 of the body), tried 3 times.
 *
 * Admin (the twin's own, under `/_twin/`): `POST /_twin/orders` {country?, lines?, seed?} makes an
 * order and notifies `order:create`; `POST /_twin/orders/{code}/update|paid` change one; `POST
 * /_twin/faults` sets faults; `GET /_twin/stats` counts requests and the most in flight.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OrderShape, TwinOrder } from './shoptet-orders.js';
import { routeAdmin } from './twin-admin-routes.js';
import { routeApi } from './twin-api-routes.js';
import { failure, send } from './twin-http.js';
import { createNotifier, type Delivery } from './twin-notifier.js';
import { createRequestGate } from './twin-request-gate.js';
import { createTwinShop } from './twin-shop.js';
import { createTwinState, type TwinFaults, type TwinStats, type Webhook } from './twin-state.js';

export type { TwinFaults, TwinStats } from './twin-state.js';

export interface ShoptetTwinOptions {
  /** The private API token the twin accepts. */
  token: string;
  /** The webhook signature key (renewed by `POST /api/webhooks/renew-signature-key`). */
  signatureKey?: string;
  eshopId?: number;
  /** Leaky bucket: capacity and requests drained per second. */
  bucketCapacity?: number;
  bucketLeakPerSecond?: number;
  /** Wait between notification tries (Shoptet: 15 minutes). */
  notificationRetryMs?: number;
  port?: number;
}

export interface ShoptetTwin {
  url: string;
  eshopId: number;
  signatureKey(): string;
  orders: Map<string, TwinOrder>;
  webhooks(): readonly Webhook[];
  setFaults(faults: Partial<TwinFaults>): void;
  stats(): TwinStats;
  /** Makes an order of `shape` (random when left out) and notifies `order:create`. */
  createOrder(shape?: Partial<OrderShape>, seed?: number): Promise<TwinOrder>;
  /** Changes an order (its change time) and notifies `order:update`. */
  updateOrder(code: string): Promise<void>;
  /** Marks an order paid and notifies `order:paid` (only an unpaid order becomes paid). */
  payOrder(code: string): Promise<void>;
  /** Sends a notification to the webhooks of its event; resolves when every try ended, with each hook's last answer. */
  notify(event: string, eventInstance: string): Promise<Delivery[]>;
  close(): Promise<void>;
}

const CONTENT_TYPE = 'application/vnd.shoptet.v1.0';

export async function startShoptetTwin(options: ShoptetTwinOptions): Promise<ShoptetTwin> {
  const state = createTwinState(
    options.eshopId ?? 222651,
    options.signatureKey ?? randomBytes(16).toString('hex'),
  );
  const notify = createNotifier(state, options.notificationRetryMs ?? 15 * 60_000);
  const shop = createTwinShop(state, notify);
  const gate = createRequestGate(state, {
    token: options.token,
    capacity: options.bucketCapacity ?? 50,
    leak: options.bucketLeakPerSecond ?? 3,
  });

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const handle = url.pathname.startsWith('/_twin/')
      ? routeAdmin(state, shop, notify, req, res, url)
      : gate(req, res, () => routeApi(state, req, res, url));
    handle.catch(() => {
      if (!res.headersSent) send(res, 500, failure('internal', 'Internal error.'));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    eshopId: state.eshopId,
    signatureKey: () => state.signatureKey,
    orders: state.orders,
    webhooks: () => state.webhooks,
    setFaults(next) {
      Object.assign(state.faults, next);
    },
    stats: () => ({ ...state.stats }),
    createOrder: shop.createOrder,
    updateOrder: shop.updateOrder,
    payOrder: shop.payOrder,
    notify,
    url: `http://127.0.0.1:${port}`,
    async close() {
      // Tries still waiting (Shoptet waits 15 minutes between them) end unsent.
      state.closed = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

export { CONTENT_TYPE as SHOPTET_CONTENT_TYPE };
