/**
 * E-invoicing under the Slovak mandate in the deployment of one connection, run from its cloud
 * assembly (the bundles with their roles and environment, IAM enforced on every call), with no
 * setting beyond the default of `sk` (`mandate-sk`, no partner list): every new issued invoice of
 * a Slovak partner with a DIČ goes through the network once, an invoice the pre-flight blocks is
 * not sent and `IssuedInvoice.EInvoiceBlocked` names the rules the network would reject it for,
 * the tracker publishes the network's Message Level Status, and a blocked invoice fixed in the
 * service is sent once on its `Updated` event. Each finished sending's record is written beside the
 * invoice's ISDOC in the archive bucket, by the tracker's own role. A day later the daily readiness
 * report is written to the archive bucket and announced, by its own function and role. The sandbox's ground truth (`/_sandbox/einvoicing`,
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
  ConnectionsUnhealthyRule: 'the connection stays healthy in this file (registry.test.ts: a refused one)',
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

/** The archive bucket on s3rver, read unsigned (see below). */
function archiveBase(): string {
  const bucket = d.assembly.byType('AWS::S3::Bucket').find((b) => b.logicalId.startsWith('ArchiveBucket'));
  if (!bucket) throw new Error('no archive bucket');
  return `${d.servers.s3Endpoint}/${bucket.ref}`;
}

/**
 * The records of finished sendings in the archive bucket, by sending id, read from s3rver directly
 * (unsigned, as the stand-in forwards): a signed request would be refused once the deployment's
 * clock has moved past the signature's 15 minutes.
 */
async function sendingRecords(): Promise<Map<string, { key: string; body: Record<string, unknown> }>> {
  const base = archiveBase();
  const listing = await (await fetch(`${base}?list-type=2&prefix=isdoc/default/&max-keys=1000`)).text();
  const keys = [...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1] as string);
  const out = new Map<string, { key: string; body: Record<string, unknown> }>();
  for (const key of keys.filter((k) => k.endsWith('.einvoice.json'))) {
    const body = (await (await fetch(`${base}/${key}`)).json()) as Record<string, unknown>;
    out.set(String(body.sendingId), { key, body });
  }
  return out;
}

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

    // Each finished sending's record beside its invoice's ISDOC, written by the tracker's own role.
    const records = await sendingRecords();
    expect(new Set(records.keys())).toEqual(new Set(finals.map((c) => String(c.sendingId))));
    for (const c of finals) {
      const record = records.get(String(c.sendingId));
      expect(record?.body).toMatchObject({
        documentId: (c.source as { id: string }).id,
        network: 'mls',
        status: c.status,
        mls: c.mls,
      });
      expect(record?.key).toMatch(
        new RegExp(
          `^isdoc/default/IssuedInvoice/\\d{4}/\\d{2}/.+_${(c.source as { id: string }).id}\\.isdoc\\.`,
        ),
      );
    }
    const puts = d.authorizer.calls.filter(
      (c) => c.action === 's3:PutObject' && c.resource.endsWith('.einvoice.json'),
    );
    expect(puts.length).toBeGreaterThanOrEqual(records.size);
    expect(
      puts.filter((c) => !c.caller.startsWith('Scheduledtrackeinvoices') || c.decision !== 'Allowed'),
    ).toEqual([]);

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
      ].join(
        '/',
      )}); ${records.size} sending records; after the fix: 1 sent; ${types['Action.Failed'] ?? 0} Action.Failed`,
    );
  }, 400_000);

  it('the daily readiness report runs on its schedule with its own role: the report in S3, its counts on the bus', async () => {
    // Its first run was at the deployment (a rate counts from then); the next one a day later.
    expect(published('EInvoicing.ReadinessReported')).toHaveLength(1);
    const before = d.invocations.length;
    await d.advance(24 * 60 * 60_000);
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    const runs = d.invocations
      .slice(before)
      .filter((i) => i.fn.startsWith('Scheduledreporteinvoicingreadiness'));
    expect(runs).toHaveLength(1);
    expect(runs[0]?.result.ok).toBe(true);

    const [, event, ...more] = published('EInvoicing.ReadinessReported');
    expect(more).toEqual([]);
    const day = new Date(d.clock.now()).toISOString().slice(0, 10);
    const key = `reports/einvoicing/default/${day}.json`;
    expect(event).toMatchObject({ connection: 'default', id: day, reportKey: key, policy: 'mandate-sk' });
    const report = (await (await fetch(`${archiveBase()}/${key}`)).json()) as {
      connection: string;
      counts: Record<string, number>;
      rules: unknown[];
      partnersToFix: unknown[];
      partnersWithoutDic: unknown[];
    };
    expect(report.connection).toBe('default');
    expect(event?.counts).toEqual(report.counts);
    expect(event?.rules).toEqual(report.rules);
    expect(event?.partnersToFix).toBe(report.partnersToFix.length);
    expect(event?.partnersWithoutDic).toBe(report.partnersWithoutDic.length);
    const puts = d.authorizer.calls.filter((c) => c.action === 's3:PutObject' && c.resource.endsWith(key));
    expect(puts.map((c) => [c.caller.startsWith('Scheduledreporteinvoicingreadiness'), c.decision])).toEqual([
      [true, 'Allowed'],
    ]);
    console.info(`e-invoicing readiness deployed (${key}): ${JSON.stringify(report.counts)}`);
  }, 300_000);
});
