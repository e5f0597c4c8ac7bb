/**
 * Issue 33 (info): the claim-check key was not bound to its message's connection. The import checked
 * only the key's prefix and the object's SHA-256, so a message of connection `beta` could name
 * `acme`'s stored order (same digest) and import it into beta. Now the key must be the one the
 * message's own connection, source and digest make.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import {
  OrderClaimCheckError,
  queueOrder,
  withClaimedOrder,
} from '#functions/core/intake/order-claim-check.js';
import type { IntakeMessage } from '#functions/core/intake/shop-order.js';

const order = {
  id: 'A-1001',
  number: '1001',
  currency: 'EUR',
  pricesIncludeVat: true,
  customer: { name: 'Jana Nováková', email: 'jana@example.com', country: 'SK' },
  lines: [{ name: 'Kniha', quantity: 1, unitPrice: 12.5, vatRatePercent: 5 }],
  shipping: [],
  paymentFees: [],
};

async function claimChecked(connection: string) {
  const store = createMemoryObjectStore();
  const sent: unknown[] = [];
  const message: IntakeMessage = {
    version: 1,
    connection,
    source: 'generic',
    deliveryId: 'd-1',
    receivedAt: '2026-11-27T10:00:00Z',
    order,
  };
  await queueOrder(
    {
      queue: {
        send: async (m) => {
          sent.push(m);
        },
      },
      orderStore: store,
      maxMessageBytes: 10,
    },
    message,
    {} as never,
  );
  return { store, ref: sent[0] as Record<string, unknown> & { orderRef: { key: string } } };
}

describe("a claim-checked order is taken only under its own message's connection", () => {
  it('reads back its own order', async () => {
    const { store, ref } = await claimChecked('acme');
    expect(await withClaimedOrder(ref, store)).toMatchObject({ connection: 'acme', order: { id: 'A-1001' } });
  });

  it("refuses another connection's key, digest and size right", async () => {
    const { store, ref } = await claimChecked('acme');
    expect(ref.orderRef.key).toMatch(/^intake-orders\/acme\/generic\//);
    const forged = { ...ref, connection: 'beta' };
    await expect(withClaimedOrder(forged, store)).rejects.toBeInstanceOf(OrderClaimCheckError);
    await expect(withClaimedOrder(forged, store)).rejects.toThrow(/intake-orders\/beta\/generic\//);
    const otherSource = { ...ref, source: 'shopify' };
    await expect(withClaimedOrder(otherSource, store)).rejects.toBeInstanceOf(OrderClaimCheckError);
  });
});
