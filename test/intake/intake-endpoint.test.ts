/**
 * The intake endpoint and import end to end on the local wire: signed webhooks posted over HTTP to
 * the local endpoint, queued, imported into the sandbox through the client, intake records in dynalite.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { hmacBase64, signHeaders } from '#functions/core/intake/signatures.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import {
  ordersWithMarker,
  receivedOrderCount,
  SECRETS,
  type StartedIntake,
  startIntake,
  useIntakeBed,
} from './support.js';

const bed = useIntakeBed();
let started: StartedIntake | undefined;
afterEach(async () => {
  await started?.intake.close();
  started = undefined;
});

let counter = Math.floor(Date.now() / 1000) % 100_000;
const nextN = () => {
  counter += 1;
  return counter;
};

async function post(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
) {
  if (!started) throw new Error('no intake');
  const res = await request(`${started.intake.url}${path}`, { method: 'POST', ...init } as never);
  return { status: res.statusCode, body: await res.body.text() };
}

describe('intake endpoint (local HTTP, sandbox, dynalite)', () => {
  it('imports a signed Shopify order once and announces it', async () => {
    started = await startIntake(bed);
    // An order whose first line is a price-list SKU (KAN-001): sample n ≡ 0 (mod 5).
    let n = nextN();
    while (n % 5 !== 0) n = nextN();
    const order = sampleOrder('shopify', n);
    const res = await postSignedOrder({
      baseUrl: started.intake.url,
      source: 'shopify',
      secret: SECRETS.INTAKE_SHOPIFY_SECRET,
      body: JSON.stringify(order),
    });
    expect(res.status).toBe(202);
    await started.intake.queue.drain();
    const created = ordersWithMarker(bed, orderMarker('shopify', String(order.id)));
    expect(created).toHaveLength(1);
    const record = created[0] ?? { Id: '' };
    expect(record.Doklad).toBe(order.name);
    expect(String(record.Text)).toContain(String(order.name));
    const items = record.Items as {
      PriceListItemId?: string | null;
      Code?: string;
      UnitPriceVatType?: string;
      VatRateType?: string;
    }[];
    // Lines with a known SKU are price-list items; the shipping line is a text item with its code.
    expect(items.filter((i) => i.PriceListItemId).length).toBeGreaterThan(0);
    expect(items.some((i) => i.Code === 'SHIPPING' && i.UnitPriceVatType === 'WithVat')).toBe(true);
    const types = started.publisher.events.map((e) => e.detailType);
    expect(types).toEqual(['EshopOrder.Received', 'EshopOrder.Imported']);
    expect(started.publisher.ofType('EshopOrder.Imported')[0]?.detail).toMatchObject({
      source: 'shopify',
      shopOrderId: String(order.id),
      receivedOrderId: record.Id,
      documentNumber: record.DocumentNumber,
      recovered: false,
    });
  });

  it('imports WooCommerce and generic orders, with fees as items and the VAT rate types mapped', async () => {
    started = await startIntake(bed);
    const woo = sampleOrder('woocommerce', nextN());
    const generic = sampleOrder('generic', nextN());
    for (const [source, body, secret] of [
      ['woocommerce', woo, SECRETS.INTAKE_WOOCOMMERCE_SECRET],
      ['generic', generic, SECRETS.INTAKE_GENERIC_SECRET],
    ] as const) {
      const res = await postSignedOrder({
        baseUrl: started.intake.url,
        source,
        secret,
        body: JSON.stringify(body),
      });
      expect(res.status, res.body).toBe(202);
    }
    await started.intake.queue.drain();
    const [wooOrder] = ordersWithMarker(bed, orderMarker('woocommerce', String(woo.id)));
    const wooItems = (wooOrder?.Items ?? []) as {
      Code?: string;
      VatRateType?: string;
      UnitPriceVatType?: string;
    }[];
    expect(wooItems.map((i) => i.Code)).toEqual(expect.arrayContaining(['SHIPPING', 'PAYMENT']));
    expect(wooItems.every((i) => i.UnitPriceVatType === 'WithoutVat')).toBe(true);
    expect(ordersWithMarker(bed, orderMarker('generic', String(generic.id)))).toHaveLength(1);
    expect(started.publisher.ofType('EshopOrder.Imported')).toHaveLength(2);
  });

  it('creates one order for three deliveries of one order, two of them concurrent', async () => {
    started = await startIntake(bed);
    const order = sampleOrder('shopify', nextN());
    const body = JSON.stringify(order);
    const send = (deliveryId?: string) =>
      postSignedOrder({
        baseUrl: started?.intake.url ?? '',
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body,
        ...(deliveryId ? { deliveryId } : {}),
      });
    // Shopify retries with the same webhook id; a resend from the admin gets a new one.
    const [a, b] = await Promise.all([send(), send()]);
    const c = await send(a.deliveryId);
    expect([a.status, b.status, c.status]).toEqual([202, 202, 202]);
    await started.intake.queue.drain();
    expect(ordersWithMarker(bed, orderMarker('shopify', String(order.id)))).toHaveLength(1);
    const imported = started.publisher.ofType('EshopOrder.Imported');
    expect(imported).toHaveLength(1);
    expect(started.intake.queue.deduplicated()).toBe(1);
  });

  it('answers every hostile request with 4xx and creates nothing', async () => {
    started = await startIntake(bed, { env: { INTAKE_GENERIC_SECRET: '' } });
    const before = receivedOrderCount(bed);
    const order = sampleOrder('shopify', nextN());
    const body = JSON.stringify(order);
    const good = signHeaders('shopify', SECRETS.INTAKE_SHOPIFY_SECRET, body, {
      deliveryId: randomUUID(),
      now: new Date(),
    });
    const json = { 'content-type': 'application/json' };
    const signed = (text: string) => ({
      ...json,
      'x-shopify-topic': 'orders/create',
      'x-shopify-hmac-sha256': hmacBase64(SECRETS.INTAKE_SHOPIFY_SECRET, text),
    });
    const wooBody = JSON.stringify(sampleOrder('woocommerce', nextN()));
    const stale = new Date(Date.now() - 6 * 60_000);
    const genericBody = JSON.stringify(sampleOrder('generic', nextN()));
    const tooLarge = `{"x":"${'a'.repeat(4 * 1024 * 1024)}"}`;
    const cases: [string, Promise<{ status: number; body: string }>, number][] = [
      ['no signature', post('/intake/shopify', { headers: json, body }), 401],
      [
        'wrong signature',
        post('/intake/shopify', {
          headers: { ...json, 'x-shopify-hmac-sha256': hmacBase64('wrong-secret-0123456789', body) },
          body,
        }),
        401,
      ],
      [
        'tampered body',
        post('/intake/shopify', {
          headers: { ...good, ...json },
          body: body.replace('"quantity":', '"quantity":9'),
        }),
        401,
      ],
      [
        'signature of another source',
        post('/intake/woocommerce', {
          headers: { ...json, 'x-wc-webhook-signature': hmacBase64(SECRETS.INTAKE_SHOPIFY_SECRET, wooBody) },
          body: wooBody,
        }),
        401,
      ],
      [
        'too large (over the 4 MiB default)',
        post('/intake/shopify', { headers: signed(tooLarge), body: tooLarge }),
        413,
      ],
      ['malformed JSON', post('/intake/shopify', { headers: signed('{"id": 1,'), body: '{"id": 1,' }), 400],
      [
        'schema failure',
        post('/intake/shopify', {
          headers: signed('{"id":1,"line_items":[]}'),
          body: '{"id":1,"line_items":[]}',
        }),
        422,
      ],
      [
        'signed without its topic header',
        post('/intake/shopify', {
          headers: { ...json, 'x-shopify-hmac-sha256': hmacBase64(SECRETS.INTAKE_SHOPIFY_SECRET, body) },
          body,
        }),
        400,
      ],
      ['unknown source', post('/intake/magento', { headers: json, body }), 404],
      [
        'disabled source (no secret)',
        post('/intake/generic', {
          headers: {
            ...json,
            ...signHeaders('generic', SECRETS.INTAKE_GENERIC_SECRET, genericBody, {
              deliveryId: 'd1',
              now: new Date(),
            }),
          },
          body: genericBody,
        }),
        404,
      ],
      ['wrong method', post('/intake/shopify', { method: 'PUT', headers: { ...good, ...json }, body }), 405],
      [
        'wrong content type',
        post('/intake/shopify', { headers: { ...good, 'content-type': 'text/plain' }, body }),
        415,
      ],
      [
        'unsigned delivery of a topic the intake ignores',
        post('/intake/shopify', { headers: { ...json, 'x-shopify-topic': 'orders/updated' }, body }),
        401,
      ],
    ];
    for (const [name, pending, expected] of cases) {
      const res = await pending;
      expect(res.status, name).toBe(expected);
    }
    await started.intake.close();
    // The generic source with its secret: a stale timestamp and a replay of a stale delivery.
    started = await startIntake(bed);
    const staleHeaders = signHeaders('generic', SECRETS.INTAKE_GENERIC_SECRET, genericBody, {
      deliveryId: 'd2',
      now: stale,
    });
    for (let i = 0; i < 2; i += 1) {
      const res = await post('/intake/generic', { headers: { ...json, ...staleHeaders }, body: genericBody });
      expect(res.status, 'stale timestamp').toBe(401);
    }
    await started.intake.queue.drain();
    expect(receivedOrderCount(bed)).toBe(before);
    // Nothing secret or from the body reached the logs.
    const logged = JSON.stringify(started.logger.lines);
    for (const secret of Object.values(SECRETS)) expect(logged).not.toContain(secret);
  });

  it('answers a signed delivery of a topic it does not import 200 ignored, and queues nothing', async () => {
    started = await startIntake(bed);
    const before = receivedOrderCount(bed);
    const shopify = JSON.stringify(sampleOrder('shopify', nextN()));
    const woo = JSON.stringify(sampleOrder('woocommerce', nextN()));
    const json = { 'content-type': 'application/json' };
    for (const [source, topicHeader, topic, body, secret, signatureHeader] of [
      [
        'shopify',
        'x-shopify-topic',
        'orders/updated',
        shopify,
        SECRETS.INTAKE_SHOPIFY_SECRET,
        'x-shopify-hmac-sha256',
      ],
      [
        'shopify',
        'x-shopify-topic',
        'orders/cancelled',
        shopify,
        SECRETS.INTAKE_SHOPIFY_SECRET,
        'x-shopify-hmac-sha256',
      ],
      [
        'woocommerce',
        'x-wc-webhook-topic',
        'order.updated',
        woo,
        SECRETS.INTAKE_WOOCOMMERCE_SECRET,
        'x-wc-webhook-signature',
      ],
      [
        'woocommerce',
        'x-wc-webhook-topic',
        'order.deleted',
        '{"id":7001}',
        SECRETS.INTAKE_WOOCOMMERCE_SECRET,
        'x-wc-webhook-signature',
      ],
    ] as const) {
      const res = await post(`/intake/${source}`, {
        headers: { ...json, [topicHeader]: topic, [signatureHeader]: hmacBase64(secret, body) },
        body,
      });
      expect(res.status, `${source} ${topic}`).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ ignored: true, topic });
    }
    await started.intake.queue.drain();
    expect(receivedOrderCount(bed)).toBe(before);
    expect(started.publisher.events).toHaveLength(0);
    const ignored = started.logger.lines.filter((l) => l.data?.reason === 'topic ignored');
    expect(ignored.map((l) => [l.level, l.message, l.data?.topic, l.data?.status])).toEqual([
      ['info', 'intake request ignored', 'orders/updated', 200],
      ['info', 'intake request ignored', 'orders/cancelled', 200],
      ['info', 'intake request ignored', 'order.updated', 200],
      ['info', 'intake request ignored', 'order.deleted', 200],
    ]);
  });

  it('replays of an accepted delivery create nothing more', async () => {
    started = await startIntake(bed);
    const order = sampleOrder('woocommerce', nextN());
    const body = JSON.stringify(order);
    const first = await postSignedOrder({
      baseUrl: started.intake.url,
      source: 'woocommerce',
      secret: SECRETS.INTAKE_WOOCOMMERCE_SECRET,
      body,
    });
    expect(first.status).toBe(202);
    await started.intake.queue.drain();
    const before = receivedOrderCount(bed);
    for (let i = 0; i < 3; i += 1) {
      const again = await postSignedOrder({
        baseUrl: started.intake.url,
        source: 'woocommerce',
        secret: SECRETS.INTAKE_WOOCOMMERCE_SECRET,
        body,
      });
      expect(again.status).toBe(202);
    }
    await started.intake.queue.drain();
    expect(receivedOrderCount(bed)).toBe(before);
    expect(ordersWithMarker(bed, orderMarker('woocommerce', String(order.id)))).toHaveLength(1);
  });
});
