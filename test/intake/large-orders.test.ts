/**
 * Orders of real shops' size end to end on the local wire: a signed 250-line Shopify order (about a
 * third of a megabyte) under the default body limit, imported at the shop's totals; claim-checked
 * through the object store when its queue message would pass the queue's size; and a claim check
 * that does not match what was stored is refused.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import {
  ORDER_CLAIM_PREFIX,
  OrderClaimCheckError,
  withClaimedOrder,
} from '#functions/core/intake/order-claim-check.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import { ordersWithMarker, receivedOrderCount, SECRETS, startIntake, useIntakeBed } from './support.js';
import { centsOf, largeShopifyOrder } from './support-orders.js';

const bed = useIntakeBed();
let n = Math.floor(Date.now() / 1000) % 1_000_000;

function order250() {
  n += 1;
  const { payload, totals } = largeShopifyOrder(250);
  const id = 6_200_000_000_000 + n;
  const body = JSON.stringify({ ...payload, id, name: `#L${n}` });
  return { id, body, totals };
}

/** The sandbox's totals of the received order created for `id`. */
function importedTotals(id: number) {
  const [record] = ordersWithMarker(bed, orderMarker('shopify', String(id)));
  if (!record) throw new Error(`no received order for ${id}`);
  const recap = record.DocumentRecapitulation as {
    TotalPrice: number;
    VatRateSums: { Vat: number; VatRateType: string }[];
  };
  const percent: Record<string, number> = {
    BasicVatRate: 23,
    FirstReducedVatRate: 19,
    SecondReducedVatRate: 5,
  };
  return {
    items: (record.Items as unknown[]).length,
    totals: centsOf({
      total: recap.TotalPrice,
      vatByRate: recap.VatRateSums.map((s) => ({ ratePercent: percent[s.VatRateType] ?? 0, vat: s.Vat })),
    }),
  };
}

const queuedLog = (lines: { message: string; data?: Record<string, unknown> }[]) =>
  lines.filter((l) => l.message === 'intake request accepted' && l.data?.reason === 'queued').at(-1)?.data;

describe('a 250-line Shopify order', () => {
  it("is accepted under the default limits and imported at the shop's totals", async () => {
    const started = await startIntake(bed);
    try {
      const { id, body, totals } = order250();
      const bytes = Buffer.byteLength(body);
      expect(bytes).toBeGreaterThan(300_000);
      const res = await postSignedOrder({
        baseUrl: started.intake.url,
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body,
      });
      expect(res.status, res.body).toBe(202);
      await started.intake.queue.drain();
      const log = queuedLog(started.logger.lines);
      console.info(
        `250-line Shopify order: body ${bytes} bytes, queue message ${String(log?.messageBytes)} bytes`,
      );
      expect(log).toMatchObject({ lineCount: 250, claimChecked: false });
      expect(importedTotals(id)).toEqual({ items: 251, totals: centsOf(totals) });
      expect(started.publisher.ofType('EshopOrder.Imported')).toHaveLength(1);
    } finally {
      await started.intake.close();
    }
  });

  it('goes through the object store when its queue message is over the queue size', async () => {
    const started = await startIntake(bed, { env: { INTAKE_QUEUE_MESSAGE_MAX_BYTES: '16384' } });
    try {
      const { id, body, totals } = order250();
      const res = await postSignedOrder({
        baseUrl: started.intake.url,
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body,
      });
      expect(res.status, res.body).toBe(202);
      await started.intake.queue.drain();
      const log = queuedLog(started.logger.lines);
      console.info(`claim-checked: queue message ${String(log?.messageBytes)} bytes`);
      expect(log).toMatchObject({ lineCount: 250, claimChecked: true });
      expect(Number(log?.messageBytes)).toBeLessThan(16_384);
      expect(importedTotals(id)).toEqual({ items: 251, totals: centsOf(totals) });
      expect(started.intake.queue.deadLetters()).toHaveLength(0);
    } finally {
      await started.intake.close();
    }
  });

  it('answers 500 and queues nothing when the message is over the queue size and no store is set', async () => {
    const started = await startIntake(bed, {
      env: { INTAKE_QUEUE_MESSAGE_MAX_BYTES: '16384' },
      orderStore: false,
    });
    try {
      const before = receivedOrderCount(bed);
      const { body } = order250();
      const res = await postSignedOrder({
        baseUrl: started.intake.url,
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body,
      });
      expect(res.status).toBe(500);
      await started.intake.queue.drain();
      expect(receivedOrderCount(bed)).toBe(before);
    } finally {
      await started.intake.close();
    }
  });
});

describe('a claim-checked order is read back only as it was stored', () => {
  it('refuses an altered object, a missing one and a key outside the prefix', async () => {
    const store = createS3ObjectStore({ client: bed.servers.s3, bucket: await bed.servers.bucket('claims') });
    const body = Buffer.from('{"id":"1"}');
    const sha256 = createHash('sha256').update(body).digest('hex');
    const key = `${ORDER_CLAIM_PREFIX}acme/generic/${sha256}.json`;
    await store.put({ key, body: Buffer.from('{"id":"2"}'), contentType: 'application/json' });
    const message = {
      version: 1,
      connection: 'acme',
      source: 'generic',
      deliveryId: 'd-1',
      receivedAt: new Date().toISOString(),
    };
    const claim = (orderRef: Record<string, unknown>) => withClaimedOrder({ ...message, orderRef }, store);
    await expect(claim({ key, bytes: body.length, sha256 })).rejects.toThrow(/does not match/);
    const gone = createHash('sha256').update('never stored').digest('hex');
    await expect(
      claim({ key: `${ORDER_CLAIM_PREFIX}acme/generic/${gone}.json`, bytes: body.length, sha256: gone }),
    ).rejects.toThrow(/no object/);
    await expect(claim({ key: `elsewhere/${sha256}.json`, bytes: 10, sha256 })).rejects.toBeInstanceOf(
      OrderClaimCheckError,
    );
  });
});
