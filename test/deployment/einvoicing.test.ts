/**
 * E-invoicing under the Slovak mandate in the deployment of one connection, run from its cloud
 * assembly (the bundles with their roles and environment, IAM enforced on every call), with no
 * setting beyond the default of `sk` (`mandate-sk`, no partner list): every new issued invoice of
 * a Slovak partner with a DIČ goes through the network once, an invoice the pre-flight blocks is
 * not sent and `IssuedInvoice.EInvoiceBlocked` names the rules the network would reject it for,
 * the tracker publishes the network's Message Level Status, and a blocked invoice fixed in the
 * service is sent once on its `Updated` event. The sandbox's ground truth (`/_sandbox/einvoicing`,
 * its own copy of the rules) is what the figures are compared with.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from './deployment.js';
import { detailTypes, failedInvocations, tickUntilIdle } from './flows.js';
import { describeDenials } from './iam.js';
import { findingsAfterTest, type OutOfFlow, overGrants, unusedAfterFile } from './proof-of-use.js';

let d: Deployment;

/** What this file's flows do not run, and why. */
const OUT_OF_FLOW: OutOfFlow = {
  Routeliquidatepayments: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  Routeliquidateshoppayment: "a shop's orders/paid through the intake is run in one-connection.test.ts",
  BankStatements: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  ActionFailedRule:
    'no action fails in these flows (a liquidation whose outcome is unknown fails in one-connection.test.ts)',
  OrderIntake: 'the intake is run in one-connection.test.ts',
};

interface Truth {
  id: string;
  b2b: boolean;
  verdict: null | { reason: string; ruleIds?: string[] };
}

beforeAll(async () => {
  d = await deploy({
    sandbox: {
      sizes: { documents: 200, partners: 20, perCollection: {} },
      eInvoicing: { stepMs: 60_000, transportFailureProbability: 0 },
    },
    config: {},
  });
  const secret = d.assembly
    .byType('AWS::SecretsManager::Secret')
    .find((r) => r.logicalId.startsWith('CredentialsSecret'));
  if (!secret) throw new Error('no credentials secret');
  d.standIn.secretStore.put(secret.ref, JSON.stringify({ apiKey: d.sandbox.credentials.apiKey }));
}, 300_000);

afterEach(() => {
  if (d) expect(findingsAfterTest(d)).toBe('');
});

afterAll(async () => {
  const unused = d ? [unusedAfterFile(d, OUT_OF_FLOW), await overGrants(d)].filter(Boolean).join('\n') : '';
  await d?.close();
  expect(unused).toBe('');
});

const published = (type: string) =>
  d.standIn.published
    .filter((p) => p.event['detail-type'] === type)
    .map((p) => p.event.detail as Record<string, unknown>);

/** Sendings the network holds, per issued invoice. */
const sendingsPerInvoice = () => {
  const out = new Map<string, number>();
  for (const s of d.sandbox.server.domain.sending.sendings.values()) {
    out.set(s.DocumentId, (out.get(s.DocumentId) ?? 0) + 1);
  }
  return out;
};

async function groundTruth(): Promise<Truth[]> {
  const res = await fetch(`${d.sandbox.baseUrl}/_sandbox/einvoicing`);
  return ((await res.json()) as { invoices: Truth[] }).invoices;
}

describe('e-invoicing under the Slovak mandate, deployed', () => {
  it('sends what the mandate covers once, blocks what breaks the rules, tracks MLS, and sends a fixed invoice once', async () => {
    await tickUntilIdle(d, 'Poller');
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');

    const truth = await groundTruth();
    const created = new Set(published('IssuedInvoice.Created').map((e) => String(e.id)));
    const covered = truth.filter((t) => created.has(t.id));
    const clean = covered.filter((t) => t.b2b && t.verdict === null).map((t) => t.id);
    const broken = covered.filter((t) => t.b2b && t.verdict?.reason === 'BV');
    const b2c = covered.filter((t) => !t.b2b).map((t) => t.id);
    expect(clean.length).toBeGreaterThan(0);
    expect(broken.length, 'the sandbox seeds rule-breaking invoices').toBeGreaterThan(0);

    // Sent once each: every clean B2B invoice, no B2C one, no blocked one.
    const sent = sendingsPerInvoice();
    expect(clean.filter((id) => sent.get(id) !== 1)).toEqual([]);
    expect(b2c.filter((id) => sent.has(id))).toEqual([]);
    expect(broken.filter((t) => sent.has(t.id)).map((t) => t.id)).toEqual([]);

    // Blocked with the rules the network's own copy names.
    const blocked = new Map(
      published('IssuedInvoice.EInvoiceBlocked').map((e) => [
        String(e.id),
        [...new Set((e.findings as { rule: string }[]).map((f) => f.rule))].sort(),
      ]),
    );
    expect(new Set(blocked.keys())).toEqual(new Set(broken.map((t) => t.id)));
    for (const t of broken) expect(blocked.get(t.id)).toEqual([...(t.verdict?.ruleIds ?? [])].sort());

    // The tracker (every 5 minutes) follows each sending to its final MLS.
    await d.advance(30 * 60_000);
    expect(failedInvocations(d)).toBe('');
    const changes = published('IssuedInvoice.EInvoiceStatusChanged');
    const finals = changes.filter((c) => c.final === true);
    expect(new Set(finals.map((c) => String((c.source as { id: string }).id)))).toEqual(new Set(clean));
    for (const c of finals) {
      expect(c.responseCode).toBeNull();
      expect((c.mls as { code: string } | null)?.code, JSON.stringify(c)).toMatch(/^(AP|AB|RE)$/);
    }
    const mlsCodes = changes.map((c) => (c.mls as { code: string } | null)?.code ?? 'none');

    // Fixed in the service: the poller's Updated event sends it, once.
    const fix = broken[0] as Truth;
    const edited = await fetch(`${d.sandbox.baseUrl}/_sandbox/edit/IssuedInvoices/${fix.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(edited.status).toBe(200);
    await tickUntilIdle(d, 'Poller');
    await d.advance(30 * 60_000);
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    expect(sendingsPerInvoice().get(fix.id)).toBe(1);
    expect(broken.slice(1).filter((t) => sendingsPerInvoice().has(t.id))).toEqual([]);

    const types = detailTypes(d);
    console.info(
      `e-invoicing deployed: ${covered.length} issued invoices, ${clean.length} sent, ${broken.length} blocked (${[
        ...blocked.values(),
      ]
        .flat()
        .join(' ')}), ${b2c.length} without a DIČ; ${changes.length} status changes (MLS ${[
        ...new Set(mlsCodes),
      ].join('/')}); after the fix: 1 sent; ${types['Action.Failed'] ?? 0} Action.Failed`,
    );
  }, 400_000);
});
