/**
 * The deployment of one connection with every feature on (e-invoicing, the intake, HTTP
 * deliveries), run from its cloud assembly: the bundles with their roles and environment, IAM
 * enforced on every call (./deployment.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_KEY_HEADER } from '../../infra/constructs/http-deliveries.js';
import { type Deployment, deploy } from './deployment.js';
import {
  callReport,
  deadLetters,
  detailTypes,
  failedInvocations,
  invoicedPartner,
  objectKeys,
  postGenericOrder,
  type Receiver,
  requestsSince,
  revoke,
  startReceiver,
  tickUntilIdle,
  webhookSecret,
} from './flows.js';
import { describeDenials } from './iam.js';

let d: Deployment;
let consumer: Receiver;
const intakeSecret = webhookSecret();

beforeAll(async () => {
  consumer = await startReceiver();
  d = await deploy({
    sandbox: { sizes: { documents: 60, partners: 10, perCollection: {} } },
    config: async (sandbox) => ({
      deliveries: [`${consumer.url}/events`],
      actions: { ACTIONS_EINVOICE_PARTNERS: await invoicedPartner(sandbox) },
    }),
  });
  const secret = (prefix: string) => {
    const s = d.assembly.byType('AWS::SecretsManager::Secret').find((r) => r.logicalId.startsWith(prefix));
    if (!s) throw new Error(`no secret ${prefix}`);
    return s.ref;
  };
  d.standIn.secretStore.put(
    secret('CredentialsSecret'),
    JSON.stringify({ apiKey: d.sandbox.credentials.apiKey }),
  );
  d.standIn.secretStore.put(secret('OrderIntakeSecrets'), JSON.stringify({ generic: intakeSecret }));
}, 300_000);

afterAll(async () => {
  if (d) console.info(`calls per function (one connection):\n${callReport(d.authorizer.calls)}`);
  await d?.close();
  await consumer?.close();
});

const pollerRuns = () => d.invocations.filter((i) => i.fn.startsWith('Poller'));

describe('one connection, deployed', () => {
  it('a tick publishes every polled collection, and each action ends in its effect with no denied call', async () => {
    await d.tick();
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    expect(d.standIn.unsupported).toEqual([]);
    const [run] = pollerRuns();
    expect(run?.result.ok).toBe(true);
    expect((run?.result.result as { failed: number } | undefined)?.failed).toBe(0);
    const types = detailTypes(d);
    for (const t of ['ReceivedOrder.Created', 'IssuedInvoice.Created', 'BusinessPartner.Created']) {
      expect(types[t], t).toBeGreaterThan(0);
    }
    // Effects: transfers made, ISDOC archived, e-invoices sent, deliveries made.
    expect(types['ReceivedOrder.Transferred']).toBeGreaterThan(0);
    expect(types['IssuedInvoice.IsdocArchived']).toBeGreaterThan(0);
    expect(await objectKeys(d, 'ArchiveBucket', 'isdoc/default/')).toHaveLength(
      (types['IssuedInvoice.IsdocArchived'] ?? 0) + (types['IssuedAdvanceInvoice.IsdocArchived'] ?? 0),
    );
    expect(types['IssuedInvoice.EInvoiceStatusChanged']).toBeGreaterThan(0);
    expect(types['Action.Failed']).toBeUndefined();
    expect(consumer.requests.length).toBe(d.standIn.published.length);
    const key = d.standIn.secretValue(
      d.assembly.byType('AWS::SecretsManager::Secret').find((r) => r.logicalId.includes('KeySecret'))?.ref ??
        '',
    );
    expect(key).toBeTruthy();
    expect(new Set(consumer.requests.map((r) => r.headers[DELIVERY_KEY_HEADER]))).toEqual(new Set([key]));
    expect(deadLetters(d)).toEqual({});
  }, 180_000);

  it('an idle tick makes exactly one request per polled collection', async () => {
    // The first tick's transfers made documents: the next ticks publish those, then nothing.
    await tickUntilIdle(d, 'Poller');
    const before = d.invocations.length;
    const requestsBefore = { ...d.sandbox.requestCounts().byEndpoint };
    await d.tick();
    const runs = d.invocations.slice(before).filter((i) => i.fn.startsWith('Poller'));
    expect(runs).toHaveLength(1);
    const result = runs[0]?.result.result as { requests: number; published: number; collections: unknown[] };
    expect(result.published).toBe(0);
    expect(result.requests).toBe(result.collections.length);
    const requests = requestsSince(d, requestsBefore);
    expect(
      Object.values(requests).reduce((a, b) => a + b, 0),
      JSON.stringify(requests),
    ).toBe(result.collections.length);
    expect(d.authorizer.denied()).toEqual([]);
  }, 120_000);

  it('a signed shop order through the HTTP API becomes one received order', async () => {
    const response = await postGenericOrder(d, intakeSecret, 7);
    expect(response.status, JSON.stringify(response.error)).toBe(202);
    await d.settle();
    const types = detailTypes(d);
    expect(types['EshopOrder.Imported']).toBe(1);
    expect(types['EshopOrder.Rejected']).toBeUndefined();
    // The next tick sees the new order and transfers it along the chain.
    const transferred = types['ReceivedOrder.Transferred'] ?? 0;
    await d.tick();
    expect(detailTypes(d)['ReceivedOrder.Transferred']).toBe(transferred + 1);
    expect(describeDenials(d.authorizer.denied())).toBe('');
    expect(deadLetters(d)).toEqual({});
  }, 120_000);

  it('without one grant the flow fails, and the denied call is named', async () => {
    const restore = revoke(d, 'RoutearchiveisdocFunction', 's3:PutObject');
    try {
      // A changed invoice is archived again (a new version): that write is now denied.
      const invoices = d.sandbox.state.list('IssuedInvoices', { pageSize: 1, pageNumber: 1 }).items;
      const invoice = invoices[0];
      if (!invoice) throw new Error('no invoice');
      d.sandbox.state.update('IssuedInvoices', String(invoice.Id), (r) => {
        r.Note = 'changed for the grant-removal test';
      });
      const mark = d.authorizer.calls.length;
      await d.tick();
      const denied = d.authorizer.calls.slice(mark).filter((c) => c.decision !== 'Allowed');
      expect(denied.length).toBeGreaterThan(0);
      expect(
        denied.every((c) => c.caller.startsWith('RoutearchiveisdocFunction') && c.action === 's3:PutObject'),
      ).toBe(true);
      expect(describeDenials(denied)).toMatch(
        /RoutearchiveisdocFunction\w* s3:PutObject on arn:aws:s3:::.*\/isdoc\/default\//,
      );
    } finally {
      restore();
    }
  }, 120_000);
});
