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
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type OrderShape,
  randomShape,
  seededRandom,
  shoptetOrder,
  shoptetTime,
  type TwinOrder,
} from './shoptet-orders.js';

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

export interface TwinFaults {
  /** The next N API requests answer 429 with `Retry-After: 1`. */
  rateLimitNext: number;
  /** The next N API requests answer 423. */
  lockNext: number;
  /** Notifications are not delivered (every try is lost). */
  dropNotifications: boolean;
  /** Slows every API answer by this many ms (so requests overlap). */
  latencyMs: number;
}

export interface TwinStats {
  requests: number;
  rateLimited: number;
  locked: number;
  maxInFlight: number;
  notificationsSent: number;
  notificationsLost: number;
}

interface Webhook {
  id: number;
  event: string;
  url: string;
  created: string;
  updated: string | null;
  sendPayload: null;
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
  notify(event: string, eventInstance: string): Promise<{ url: string; status: number | null }[]>;
  close(): Promise<void>;
}

const CONTENT_TYPE = 'application/vnd.shoptet.v1.0';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const envelope = (data: unknown, errors: unknown[] | null = null) => ({
  data,
  errors,
  metadata: { requestId: randomUUID() },
});
const failure = (errorCode: string, message: string) =>
  envelope(null, [{ errorCode, message, instance: 'request' }]);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startShoptetTwin(options: ShoptetTwinOptions): Promise<ShoptetTwin> {
  const eshopId = options.eshopId ?? 222651;
  let signatureKey = options.signatureKey ?? randomBytes(16).toString('hex');
  const capacity = options.bucketCapacity ?? 50;
  const leak = options.bucketLeakPerSecond ?? 3;
  const retryMs = options.notificationRetryMs ?? 15 * 60_000;
  const orders = new Map<string, TwinOrder>();
  const webhooks: Webhook[] = [];
  const faults: TwinFaults = { rateLimitNext: 0, lockNext: 0, dropNotifications: false, latencyMs: 0 };
  const stats: TwinStats = {
    requests: 0,
    rateLimited: 0,
    locked: 0,
    maxInFlight: 0,
    notificationsSent: 0,
    notificationsLost: 0,
  };
  let inFlight = 0;
  let bucket = 0;
  let bucketAt = Date.now();
  const recentWrites = new Map<string, number>();
  let nextCode = 2026000001;
  let nextWebhookId = 1;
  let closed = false;

  const fill = () => {
    const now = Date.now();
    bucket = Math.max(0, bucket - ((now - bucketAt) / 1000) * leak);
    bucketAt = now;
    return bucket;
  };

  /** The answer to the last try of each hook (null: no answer), for the admin's report. */
  const deliver = async (hook: Webhook, body: string): Promise<{ url: string; status: number | null }> => {
    let status: number | null = null;
    for (let attempt = 1; attempt <= 3 && !closed; attempt += 1) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, retryMs).unref());
      if (faults.dropNotifications) {
        stats.notificationsLost += 1;
        continue;
      }
      try {
        const res = await fetch(hook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'shoptet-webhook-signature': createHmac('sha1', signatureKey).update(body).digest('hex'),
          },
          body,
          signal: AbortSignal.timeout(4000),
        });
        await res.arrayBuffer();
        stats.notificationsSent += 1;
        status = res.status;
        if (res.status >= 200 && res.status < 300) break;
      } catch {
        stats.notificationsLost += 1;
      }
    }
    return { url: hook.url, status };
  };

  const notify = async (event: string, eventInstance: string) => {
    const body = JSON.stringify({ eshopId, event, eventCreated: shoptetTime(new Date()), eventInstance });
    return Promise.all(webhooks.filter((h) => h.event === event).map((h) => deliver(h, body)));
  };

  const touch = (order: TwinOrder) => {
    order.changeTime = shoptetTime(new Date());
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const token = req.headers['shoptet-private-api-token'] ?? req.headers['shoptet-access-token'];
    if (token !== options.token) {
      send(res, 401, failure('invalid-token', 'Invalid access token.'));
      return;
    }
    stats.requests += 1;
    // Every open request of the token counts, refused or not: the most ever open is the client's concurrency.
    inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    try {
      if (faults.rateLimitNext > 0 || fill() + 1 > capacity || inFlight > 3) {
        if (faults.rateLimitNext > 0) faults.rateLimitNext -= 1;
        stats.rateLimited += 1;
        const wait = Math.max(1, Math.ceil((bucket + 1 - capacity) / leak));
        send(res, 429, failure('too-many-requests', 'Too many requests.'), {
          'retry-after': String(wait),
          'x-ratelimit-bucket-filling': String(Math.round(bucket)),
        });
        return;
      }
      if (faults.lockNext > 0) {
        faults.lockNext -= 1;
        stats.locked += 1;
        send(res, 423, failure('locked', 'Resource is locked.'), { 'retry-after': '1' });
        return;
      }
      bucket += 1;
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      await route(req, res, url);
    } finally {
      inFlight -= 1;
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const orderPath = /^\/api\/orders\/([^/]+)$/.exec(path);
    if (method === 'GET' && orderPath) {
      const order = orders.get(decodeURIComponent(orderPath[1] ?? ''));
      if (!order) send(res, 404, failure('order-not-found', 'Order not found.'));
      else send(res, 200, envelope({ order }));
      return;
    }
    if (method === 'GET' && path === '/api/orders') {
      const from = url.searchParams.get('changeTimeFrom');
      const since = from
        ? Date.parse(from.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
        : Number.NEGATIVE_INFINITY;
      const perPage = Math.min(50, Number(url.searchParams.get('itemsPerPage') ?? 50) || 50);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const changed = [...orders.values()]
        .filter((o) => Date.parse(o.changeTime.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) >= since)
        .sort((a, b) => a.code.localeCompare(b.code));
      const slice = changed.slice((page - 1) * perPage, page * perPage);
      send(
        res,
        200,
        envelope({
          orders: slice.map((o) => ({
            code: o.code,
            guid: o.guid,
            creationTime: o.creationTime,
            changeTime: o.changeTime,
            email: o.email,
            phone: o.phone,
            price: o.price,
            paid: o.paid,
            status: o.status,
          })),
          paginator: {
            totalCount: changed.length,
            page,
            pageCount: Math.ceil(changed.length / perPage),
            itemsOnPage: slice.length,
            itemsPerPage: perPage,
          },
        }),
      );
      return;
    }
    if (path === '/api/webhooks' && method === 'GET') {
      send(
        res,
        200,
        envelope({
          webhooks,
          paginator: {
            totalCount: webhooks.length,
            page: 1,
            pageCount: 1,
            itemsOnPage: webhooks.length,
            itemsPerPage: 50,
          },
        }),
      );
      return;
    }
    if (path === '/api/webhooks' && method === 'POST') {
      const text = await readBody(req);
      const last = recentWrites.get(text);
      if (last !== undefined && Date.now() - last < 5000) {
        stats.locked += 1;
        send(res, 423, failure('locked', 'Identical request within 5 s.'), { 'retry-after': '5' });
        return;
      }
      recentWrites.set(text, Date.now());
      let data: { event?: unknown; url?: unknown }[] = [];
      try {
        data = (JSON.parse(text) as { data: typeof data }).data;
      } catch {
        send(res, 400, failure('invalid-request-body', 'Invalid JSON.'));
        return;
      }
      if (!Array.isArray(data) || data.length === 0 || data.length > 50) {
        send(res, 400, failure('invalid-request-body', 'Expected data: 1 to 50 webhooks.'));
        return;
      }
      const made: Webhook[] = [];
      for (const d of data) {
        if (typeof d.event !== 'string' || typeof d.url !== 'string' || d.url.length > 2000) {
          send(res, 400, failure('invalid-request-body', 'Expected event and url.'));
          return;
        }
        if (webhooks.some((h) => h.event === d.event && h.url === d.url)) continue;
        const hook: Webhook = {
          id: nextWebhookId++,
          event: d.event,
          url: d.url,
          created: shoptetTime(new Date()),
          updated: null,
          sendPayload: null,
        };
        webhooks.push(hook);
        made.push(hook);
      }
      send(res, 201, envelope({ webhooks: made }));
      return;
    }
    if (path === '/api/webhooks/renew-signature-key' && method === 'POST') {
      signatureKey = randomBytes(16).toString('hex');
      send(res, 200, envelope({ signatureKey }));
      return;
    }
    send(res, 404, failure('not-found', 'Endpoint not found.'));
  };

  const makeOrder = (shape: Partial<OrderShape> | undefined, seed: number | undefined) => {
    const random = seededRandom(seed ?? Math.floor(Math.random() * 2 ** 31));
    const code = String(nextCode++);
    const order = shoptetOrder(code, { ...randomShape(random), ...shape }, random, new Date());
    orders.set(code, order);
    return order;
  };

  const twin: Omit<ShoptetTwin, 'url' | 'close'> = {
    eshopId,
    signatureKey: () => signatureKey,
    orders,
    webhooks: () => webhooks,
    setFaults(next) {
      Object.assign(faults, next);
    },
    stats: () => ({ ...stats }),
    async createOrder(shape, seed) {
      const order = makeOrder(shape, seed);
      await notify('order:create', order.code);
      return order;
    },
    async updateOrder(code) {
      const order = orders.get(code);
      if (!order) throw new Error(`no order ${code}`);
      touch(order);
      await notify('order:update', code);
    },
    async payOrder(code) {
      const order = orders.get(code);
      if (!order) throw new Error(`no order ${code}`);
      if (order.paid === true) return;
      order.paid = true;
      touch(order);
      await notify('order:paid', code);
    },
    notify,
  };

  const admin = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
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
      send(res, 200, { ...stats, orders: orders.size, webhooks: webhooks.length });
      return;
    }
    if (method === 'POST' && url.pathname === '/_twin/faults') {
      twin.setFaults(body as Partial<TwinFaults>);
      send(res, 200, { ok: true });
      return;
    }
    if (method === 'POST' && url.pathname === '/_twin/orders') {
      const shape: Partial<OrderShape> = {};
      if (body.country === 'cz' || body.country === 'sk') shape.country = body.country;
      if (
        typeof body.lines === 'number' &&
        Number.isInteger(body.lines) &&
        body.lines >= 1 &&
        body.lines <= 300
      )
        shape.lines = body.lines;
      const order = makeOrder(shape, typeof body.seed === 'number' ? body.seed : undefined);
      const notified = await notify('order:create', order.code);
      send(res, 201, {
        notified,
        code: order.code,
        total: order.price.withVat,
        currency: order.price.currencyCode,
        lines: order.items.length,
      });
      return;
    }
    const change = /^\/_twin\/orders\/([^/]+)\/(update|paid)$/.exec(url.pathname);
    if (method === 'POST' && change) {
      const code = decodeURIComponent(change[1] ?? '');
      if (!orders.has(code)) {
        send(res, 404, { error: `no order ${code}` });
        return;
      }
      await (change[2] === 'paid' ? twin.payOrder(code) : twin.updateOrder(code));
      send(res, 200, { ok: true });
      return;
    }
    send(res, 404, { error: 'unknown twin endpoint' });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const handle = url.pathname.startsWith('/_twin/') ? admin(req, res, url) : api(req, res, url);
    handle.catch(() => {
      if (!res.headersSent) send(res, 500, failure('internal', 'Internal error.'));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...twin,
    url: `http://127.0.0.1:${port}`,
    async close() {
      // Tries still waiting (Shoptet waits 15 minutes between them) end unsent.
      closed = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

export { CONTENT_TYPE as SHOPTET_CONTENT_TYPE };
