/**
 * Shoptet on the deployed intake, run from its cloud assembly (the bundles with their roles and
 * environment, IAM enforced on every call): a signed notification through the HTTP API, the order
 * fetched by the import function from the Shoptet twin with the token of its secret, one received
 * order; a repeated notification and an `order:update` make none; the sweep, on its schedule in
 * the import's role, imports an order whose notification was lost, once; a token the shop refuses
 * is read again from its secret, and the replacement stored there is used at the next fetch.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { orderMarker } from '#functions/core/intake/map-order.js';
import { type ShoptetTwin, startShoptetTwin } from '#sandbox/shoptet/shoptet-twin.js';
import { type Deployment, deploy } from './deployment.js';
import { deadLetters, detailTypes, failedInvocations } from './flows.js';
import { describeDenials } from './iam.js';
import { findingsAfterTest, type OutOfFlow, overGrants, unusedAfterFile } from './proof-of-use.js';

let d: Deployment;
let twin: ShoptetTwin;
const TOKEN = randomBytes(24).toString('hex');
const SWEEP_MS = 5 * 60_000;

const secret = (prefix: string) => {
  const s = d.assembly.byType('AWS::SecretsManager::Secret').find((r) => r.logicalId.startsWith(prefix));
  if (!s) throw new Error(`no secret ${prefix}`);
  return s.ref;
};

/** What this file's flows do not run, and why. */
const OUT_OF_FLOW: OutOfFlow = {
  Routesendeinvoicefixed:
    'no invoice the e-invoicing pre-flight blocked is fixed in these flows; that flow is run in einvoicing.test.ts',
  Routeliquidatepayments: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  Routeliquidateshoppayment: "a shop's orders/paid through the intake is run in one-connection.test.ts",
  BankStatements: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  ActionFailedRule:
    'no action fails in these flows (a liquidation whose outcome is unknown fails in one-connection.test.ts)',
  ConnectionsUnhealthyRule: 'the connection stays healthy in this file (registry.test.ts: a refused one)',
};

beforeAll(async () => {
  twin = await startShoptetTwin({ token: TOKEN });
  d = await deploy({
    sandbox: { sizes: { documents: 20, partners: 6, perCollection: {} } },
    config: {
      intakeShoptet: true,
      intakeSettings: {
        INTAKE_SHOPTET_API_URL: twin.url,
        INTAKE_SHOPTET_SWEEP_SECONDS: String(SWEEP_MS / 1000),
      },
    },
  });
  d.standIn.secretStore.put(
    secret('CredentialsSecret'),
    JSON.stringify({ apiKey: d.sandbox.credentials.apiKey }),
  );
  d.standIn.secretStore.put(secret('OrderIntakeSecrets'), JSON.stringify({ shoptet: twin.signatureKey() }));
  d.standIn.secretStore.put(secret('OrderIntakeShoptetToken'), JSON.stringify({ token: TOKEN }));
}, 300_000);

afterEach(() => {
  if (d) expect(findingsAfterTest(d)).toBe('');
});

afterAll(async () => {
  const unused = d ? [unusedAfterFile(d, OUT_OF_FLOW), await overGrants(d)].filter(Boolean).join('\n') : '';
  await d?.close();
  await twin?.close();
  expect(unused).toBe('');
});

/** A notification as Shoptet sends it: the thin body, HMAC-SHA1 of it in hex with the shop's key. */
function notification(event: string, code: string, key = twin.signatureKey()) {
  const body = JSON.stringify({
    eshopId: twin.eshopId,
    event,
    eventCreated: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
    eventInstance: code,
  });
  const signature = createHmac('sha1', key).update(body).digest('hex');
  return d.http(
    'POST',
    '/intake/shoptet',
    { 'content-type': 'application/json', 'shoptet-webhook-signature': signature },
    body,
  );
}

const receivedOrders = (code: string) =>
  d.sandbox.state
    .list('ReceivedOrders', { pageSize: 100_000, pageNumber: 1 })
    .items.filter((o) => String(o.InternalNote ?? '').includes(orderMarker('shoptet', code)));
const totalOf = (order: ApiRecord) => (order.DocumentRecapitulation as { TotalPrice: number }).TotalPrice;
const importRuns = () => d.invocations.filter((i) => i.fn.startsWith('OrderIntakeImporter'));

describe('Shoptet, deployed', () => {
  it('a signed order:create gives one received order at the shop total; repeated or updated, none more', async () => {
    // The deployment's sandbox is the Slovak variant: a Slovak shop (23/19/5 %).
    const order = await twin.createOrder({ country: 'sk', lines: 6, couponPercent: 10, shipping: true });
    const first = await notification('order:create', order.code);
    expect(first.status, `${first.via}: ${JSON.stringify(first.error ?? first.body)}`).toBe(202);
    await d.settle();
    expect(failedInvocations(d)).toBe('');
    const created = receivedOrders(order.code);
    expect(created).toHaveLength(1);
    expect(totalOf(created[0] as ApiRecord)).toBe(Number(order.price.withVat));
    expect(detailTypes(d)['EshopOrder.Imported']).toBe(1);
    // Shoptet's retry of the same notification, then the order changed in the shop.
    const again = await notification('order:create', order.code);
    expect(again.status).toBeLessThan(300);
    await twin.updateOrder(order.code);
    expect((await notification('order:update', order.code)).status).toBe(202);
    await d.settle();
    expect(receivedOrders(order.code)).toHaveLength(1);
    expect(detailTypes(d)['EshopOrder.Imported']).toBe(1);
    expect(twin.stats().maxInFlight).toBeLessThanOrEqual(3);
    expect(deadLetters(d)).toEqual({});
    expect(describeDenials(d.authorizer.denied())).toBe('');
  }, 180_000);

  it('a forged signature is refused with 401 and nothing is fetched', async () => {
    const order = await twin.createOrder({ country: 'sk', lines: 2 });
    const before = twin.stats().requests;
    const forged = await notification('order:create', order.code, randomBytes(24).toString('hex'));
    expect(forged.status).toBe(401);
    await d.settle();
    expect(twin.stats().requests).toBe(before);
    expect(receivedOrders(order.code)).toEqual([]);
  }, 60_000);

  it('the sweep, on its schedule in the import role, imports the orders whose notification was lost, each once', async () => {
    // Two orders the deployment never hears of (the forged one above, and this one).
    const lost = await twin.createOrder({ country: 'sk', lines: 3, shipping: true });
    expect(receivedOrders(lost.code)).toEqual([]);
    const sweepsBefore = importRuns().filter((i) => i.trigger.startsWith('schedule')).length;
    await d.advance(SWEEP_MS);
    expect(failedInvocations(d)).toBe('');
    const sweeps = importRuns().filter((i) => i.trigger.startsWith('schedule'));
    expect(sweeps.length).toBe(sweepsBefore + 1);
    expect(receivedOrders(lost.code)).toHaveLength(1);
    expect(totalOf(receivedOrders(lost.code)[0] as ApiRecord)).toBe(Number(lost.price.withVat));
    const imported = detailTypes(d)['EshopOrder.Imported'];
    expect(imported).toBe(3);
    // The next sweep lists them again (its overlap) and imports none a second time.
    await d.advance(SWEEP_MS);
    expect(detailTypes(d)['EshopOrder.Imported']).toBe(imported);
    for (const order of twin.orders.values()) expect(receivedOrders(order.code)).toHaveLength(1);
    expect(twin.stats().maxInFlight).toBeLessThanOrEqual(3);
    expect(deadLetters(d)).toEqual({});
    expect(describeDenials(d.authorizer.denied())).toBe('');
    // The token never reached a log line.
    expect(d.lambda.output(d.fn('OrderIntakeImporter'))).not.toContain(TOKEN);
  }, 240_000);

  it('a token the shop refuses is read again from its secret: the replacement stored there is used, no deployment', async () => {
    // The secret holds a token the shop no longer accepts; once the held one's cache ran out
    // (INTAKE_SECRETS_CACHE_SECONDS, 300 s), the sweep is refused (401), and is not retried.
    const revoked = randomBytes(24).toString('hex');
    d.standIn.secretStore.put(secret('OrderIntakeShoptetToken'), JSON.stringify({ token: revoked }));
    const failedBefore = importRuns().filter((i) => !i.result.ok).length;
    await d.advance(2 * SWEEP_MS);
    const failed = importRuns().filter((i) => !i.result.ok);
    expect(failed.length).toBe(failedBefore + 1);
    expect(String(failed.at(-1)?.result.error?.message)).toMatch(/HTTP 401/);
    // The right token stored: the next notification's fetch reads it (the refusal marked the held
    // one stale) and the order is imported once.
    d.standIn.secretStore.put(secret('OrderIntakeShoptetToken'), JSON.stringify({ token: TOKEN }));
    const order = await twin.createOrder({ country: 'sk', lines: 2 });
    await d.advance(15_000);
    const runsBefore = importRuns().length;
    const logMark = d.lambda.output(d.fn('OrderIntakeImporter')).length;
    const response = await notification('order:create', order.code);
    expect(response.status).toBe(202);
    await d.settle();
    expect(receivedOrders(order.code)).toHaveLength(1);
    // At the first try: not refused with the held token and retried once its cache ran out.
    expect(importRuns().length).toBe(runsBefore + 1);
    expect(d.lambda.output(d.fn('OrderIntakeImporter')).slice(logMark)).not.toContain(
      'import will be retried',
    );
    expect(deadLetters(d)).toEqual({});
    const output = d.lambda.output(d.fn('OrderIntakeImporter'));
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(revoked);
  }, 240_000);
});
