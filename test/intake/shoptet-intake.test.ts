/**
 * Shoptet intake end to end on the local wire: the sandbox's Shoptet twin plays the shop (orders,
 * signed notifications, its API with token, rate limits and locks), the local intake endpoint
 * answers, queues the notice, and the importer fetches the order from the twin and imports it
 * into the accounting sandbox; intake records in dynalite.
 */
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createShoptetApi } from '#functions/adapters/http/shoptet-api.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { hmacSha1Hex } from '#functions/core/intake/signatures.js';
import { registerIntakeWebhooks, sendShoptetOrder } from '#functions/local/shoptet-send.js';
import { type ShoptetTwin, startShoptetTwin } from '#sandbox/shoptet/shoptet-twin.js';
import { ordersWithMarker, type StartedIntake, startIntake, useIntakeBed } from './support.js';

const TOKEN = '123456-p-654321-0123456789abcdef0123456789abcdef';
const KEY = '8a5e881b19ad6cc0bc986587b22e30be';
const bed = useIntakeBed();
let twin: ShoptetTwin;
let started: StartedIntake | undefined;

beforeAll(async () => {
  // A roomy bucket: each test sets the 429s and 423s it needs as faults.
  twin = await startShoptetTwin({
    token: TOKEN,
    signatureKey: KEY,
    notificationRetryMs: 20,
    bucketCapacity: 500,
    bucketLeakPerSecond: 100,
  });
});
afterAll(async () => {
  await twin?.close();
});
afterEach(async () => {
  await started?.intake.close();
  started = undefined;
  twin.setFaults({ rateLimitNext: 0, lockNext: 0, dropNotifications: false, latencyMs: 0 });
});

async function startShoptetIntake(env: Record<string, string> = {}): Promise<StartedIntake> {
  const s = await startIntake(bed, {
    env: {
      INTAKE_SHOPTET_SIGNATURE_KEY: KEY,
      INTAKE_SHOPTET_API_URL: twin.url,
      INTAKE_SHOPTET_TOKEN: TOKEN,
      ...env,
    },
  });
  // The shop's webhooks point at this intake (registered through the API, as a user would).
  const api = createShoptetApi({
    baseUrl: twin.url,
    token: TOKEN,
    tokenKind: 'private',
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  const url = `${s.intake.url}/intake/shoptet`;
  const missing = ['order:create', 'order:update', 'order:paid', 'order:massCreate'].filter(
    (event) => !twin.webhooks().some((h) => h.event === event && h.url === url),
  );
  if (missing.length > 0) await api.registerWebhooks(missing.map((event) => ({ event, url })));
  return s;
}

const totalOf = (record: Record<string, unknown>) =>
  (record.DocumentRecapitulation as { TotalPrice: number }).TotalPrice;

async function post(body: string, headers: Record<string, string>) {
  if (!started) throw new Error('no intake');
  const res = await request(`${started.intake.url}/intake/shoptet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.statusCode, body: await res.body.text() };
}

describe('Shoptet intake (twin, local endpoint, sandbox, dynalite)', () => {
  it('a signed order:create gives exactly one received order at the shop’s total; repeated or updated, no second; order:paid announces the payment', async () => {
    started = await startShoptetIntake();
    const order = await twin.createOrder({
      country: 'sk',
      lines: 4,
      couponPercent: 10,
      shipping: true,
      codFee: true,
    });
    await started.intake.queue.drain();
    const marker = orderMarker('shoptet', order.code);
    let created = ordersWithMarker(bed, marker);
    expect(created).toHaveLength(1);
    expect(totalOf(created[0] as Record<string, unknown>)).toBe(Number(order.price.withVat));
    const received = started.publisher.events.filter((e) => e.detailType === 'EshopOrder.Received');
    expect(received.map((e) => (e.detail as { shopOrderId: string }).shopOrderId)).toEqual([order.code]);

    // The same notification again (Shoptet's retry), then the order changed and paid.
    await twin.notify('order:create', order.code);
    await twin.updateOrder(order.code);
    await twin.payOrder(order.code);
    await started.intake.queue.drain();
    created = ordersWithMarker(bed, marker);
    expect(created).toHaveLength(1);
    expect(started.intake.queue.deadLetters()).toEqual([]);
    const imported = started.publisher.events.filter((e) => e.detailType === 'EshopOrder.Imported');
    expect(imported).toHaveLength(1);
    // order:paid announces the payment (the order fetched says paid), once per payment id.
    await twin.notify('order:paid', order.code);
    await started.intake.queue.drain();
    const paid = started.publisher.events.filter((e) => e.detailType === 'EshopOrder.Paid');
    expect(paid.length).toBeGreaterThan(0);
    expect(paid[0]?.detail).toMatchObject({
      shopOrderId: order.code,
      paymentId: `paid:${order.code}`,
      amount: Number(order.price.withVat),
      currency: order.price.currencyCode.toUpperCase(),
    });
    expect(new Set(paid.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey)).size).toBe(1);
  });

  it('an order:update of an order never received imports it once', async () => {
    started = await startShoptetIntake();
    twin.setFaults({ dropNotifications: true });
    const order = await twin.createOrder({ country: 'sk', lines: 2 });
    twin.setFaults({ dropNotifications: false });
    await twin.updateOrder(order.code);
    await twin.updateOrder(order.code);
    await started.intake.queue.drain();
    expect(ordersWithMarker(bed, orderMarker('shoptet', order.code))).toHaveLength(1);
  });

  it('a forged or missing signature gets 401 and nothing is fetched', async () => {
    started = await startShoptetIntake();
    const order = await twin.createOrder({ country: 'sk', lines: 1 });
    await started.intake.queue.drain();
    const before = twin.stats().requests;
    const body = JSON.stringify({
      eshopId: twin.eshopId,
      event: 'order:create',
      eventCreated: '2026-11-28T10:00:00+0100',
      eventInstance: order.code,
    });
    expect((await post(body, {})).status).toBe(401);
    expect(
      (await post(body, { 'shoptet-webhook-signature': hmacSha1Hex('another-key-0123456789', body) })).status,
    ).toBe(401);
    const tampered = body.replace(order.code, `${order.code}9`);
    expect((await post(tampered, { 'shoptet-webhook-signature': hmacSha1Hex(KEY, body) })).status).toBe(401);
    await started.intake.queue.drain();
    expect(twin.stats().requests).toBe(before);
    // Signed, but an event the intake does not act on: 200, ignored, nothing fetched.
    const other = JSON.stringify({
      eshopId: twin.eshopId,
      event: 'invoice:create',
      eventCreated: '2026-11-28T10:00:00+0100',
      eventInstance: '1',
    });
    const ignored = await post(other, { 'shoptet-webhook-signature': hmacSha1Hex(KEY, other).toUpperCase() });
    expect(ignored.status).toBe(200);
    expect(JSON.parse(ignored.body)).toMatchObject({ ignored: true });
    // Signed, an order event whose instance is not an order code: 422 naming the field.
    const bad = JSON.stringify({
      eshopId: twin.eshopId,
      event: 'order:massCreate',
      eventCreated: '2026-11-28T10:00:00+0100',
      eventInstance: 'not a list',
    });
    const refused = await post(bad, { 'shoptet-webhook-signature': hmacSha1Hex(KEY, bad) });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('eventInstance');
    await started.intake.queue.drain();
    expect(twin.stats().requests).toBe(before);
  });

  it('the fetcher keeps at most 3 requests in flight per token and waits out 429 and 423', async () => {
    const orders = [];
    twin.setFaults({ dropNotifications: true });
    for (let i = 0; i < 12; i += 1) orders.push(await twin.createOrder({ country: 'cz', lines: 1 }));
    twin.setFaults({ dropNotifications: false, rateLimitNext: 5, lockNext: 4, latencyMs: 40 });
    const before = twin.stats();
    const slept: number[] = [];
    const api = createShoptetApi({
      baseUrl: twin.url,
      token: TOKEN,
      tokenKind: 'private',
      sleep: (ms) => {
        slept.push(ms);
        return new Promise((r) => setTimeout(r, Math.min(ms, 20)));
      },
    });
    const fetched = (await Promise.all(orders.map((o) => api.getOrder(o.code)))) as { code: string }[];
    expect(fetched.map((o) => o.code)).toEqual(orders.map((o) => o.code));
    const after = twin.stats();
    expect(after.rateLimited - before.rateLimited).toBeGreaterThanOrEqual(5);
    expect(after.locked - before.locked).toBe(4);
    expect(after.maxInFlight).toBeLessThanOrEqual(3);
    // Retry-After: 1 → a wait of 1 s each time it was limited.
    expect(slept.filter((ms) => ms === 1000).length).toBeGreaterThanOrEqual(9);
    expect(await api.getOrder('no-such-order')).toBeUndefined();
  });

  it('under 429 and 423 every order is imported, with at most 3 requests in flight per token', async () => {
    started = await startShoptetIntake();
    twin.setFaults({ dropNotifications: true });
    const orders = [];
    for (let i = 0; i < 8; i += 1) orders.push(await twin.createOrder({ country: 'sk', lines: 1 + (i % 3) }));
    twin.setFaults({ dropNotifications: false, rateLimitNext: 6, lockNext: 3, latencyMs: 30 });
    const statsBefore = twin.stats();
    // One mass notification for all of them: the importer fetches them concurrently.
    await twin.notify('order:massCreate', JSON.stringify(orders.map((o) => o.code)));
    await started.intake.queue.drain();
    for (const order of orders)
      expect(ordersWithMarker(bed, orderMarker('shoptet', order.code))).toHaveLength(1);
    const stats = twin.stats();
    expect(stats.rateLimited - statsBefore.rateLimited).toBeGreaterThanOrEqual(6);
    expect(stats.locked - statsBefore.locked).toBeGreaterThanOrEqual(3);
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(started.intake.queue.deadLetters()).toEqual([]);
  });

  it('a notification lost in all 3 tries is imported by the sweep, once; missing webhooks are reported and re-registered', async () => {
    started = await startShoptetIntake();
    twin.setFaults({ dropNotifications: true });
    const lostBefore = twin.stats().notificationsLost;
    const order = await twin.createOrder({ country: 'sk', lines: 3, shipping: true });
    // Three tries to each registered URL (every intake of this file registered its own), all lost.
    const hooks = twin.webhooks().filter((h) => h.event === 'order:create').length;
    expect(twin.stats().notificationsLost - lostBefore).toBe(3 * hooks);
    await started.intake.queue.drain();
    const marker = orderMarker('shoptet', order.code);
    expect(ordersWithMarker(bed, marker)).toHaveLength(0);

    const first = await started.intake.sweepShoptet();
    await started.intake.queue.drain();
    expect(first?.queued).toBeGreaterThanOrEqual(1);
    expect(first?.missingWebhooks).toEqual([]);
    const created = ordersWithMarker(bed, marker);
    expect(created).toHaveLength(1);
    expect(totalOf(created[0] as Record<string, unknown>)).toBe(Number(order.price.withVat));
    // The next sweep lists it again (the overlap) and imports nothing twice.
    await started.intake.sweepShoptet();
    await started.intake.queue.drain();
    expect(ordersWithMarker(bed, marker)).toHaveLength(1);
    expect(started.intake.queue.deadLetters()).toEqual([]);
    await started.intake.close();

    // Webhooks of another URL (a deactivated one, say): reported, and registered when asked.
    const url = 'http://127.0.0.1:9/intake/shoptet';
    started = await startShoptetIntake({ INTAKE_SHOPTET_WEBHOOK_URL: url });
    expect((await started.intake.sweepShoptet())?.missingWebhooks).toEqual([
      'order:create',
      'order:update',
      'order:paid',
    ]);
    expect(twin.webhooks().filter((h) => h.url === url)).toHaveLength(0);
    await started.intake.close();
    started = await startShoptetIntake({
      INTAKE_SHOPTET_WEBHOOK_URL: url,
      INTAKE_SHOPTET_REREGISTER_WEBHOOKS: 'true',
    });
    expect((await started.intake.sweepShoptet())?.registeredWebhooks).toEqual([
      'order:create',
      'order:update',
      'order:paid',
    ]);
    expect(
      twin
        .webhooks()
        .filter((h) => h.url === url)
        .map((h) => h.event),
    ).toEqual(['order:create', 'order:update', 'order:paid']);
  }, 120_000);

  it('intake send --source shoptet plays the shop through the twin: one received order at its total', async () => {
    started = await startShoptetIntake();
    await registerIntakeWebhooks(twin.url, TOKEN, `${started.intake.url}/intake/shoptet`);
    const sent = await sendShoptetOrder(twin.url, { country: 'sk', lines: 120, seed: 36 });
    expect(sent.status).toBe(202);
    await started.intake.queue.drain();
    const created = ordersWithMarker(bed, orderMarker('shoptet', sent.code));
    expect(created).toHaveLength(1);
    expect(totalOf(created[0] as Record<string, unknown>)).toBe(Number(sent.total));
    expect(sent.currency).toBe('EUR');
  });
});
