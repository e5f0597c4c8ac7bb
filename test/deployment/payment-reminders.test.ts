/**
 * Payment reminders in the deployment of one connection, run from its cloud assembly (the bundles
 * with their roles and environment, IAM enforced on every call): the payment detector publishes
 * `Overdue`, the `payment-reminders` route and the hourly `payment-reminder-pass` send the due
 * stage of each through the service's e-mail sending, once, to the address the service holds.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { type Deployment, deploy } from './deployment.js';
import { detailTypes, failedInvocations } from './flows.js';
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
  Routesendeinvoicefixed:
    'no invoice the e-invoicing pre-flight blocked is fixed in these flows; that flow is run in einvoicing.test.ts',
  OrderIntake: 'the intake is run in one-connection.test.ts',
  ConnectionsUnhealthyRule: 'the connection stays healthy in this file (registry.test.ts: a refused one)',
};

beforeAll(async () => {
  d = await deploy({
    sandbox: { sizes: { documents: 40, partners: 8, perCollection: {} } },
    config: { payments: true, actions: { ACTIONS_PAYMENT_REMINDERS: 'true' } },
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

interface Mail {
  DocumentId: string;
  To: string[];
}

const mails = () => d.sandbox.server.domain.outbox as Mail[];
const published = (type: string) =>
  d.standIn.published
    .filter((p) => p.event['detail-type'] === type)
    .map((p) => p.event.detail as Record<string, unknown>);

describe('payment reminders, deployed', () => {
  it('Overdue events become one reminder per due stage, to the address the service holds, with no denied call', async () => {
    await d.tick();
    // An hour later the hourly pass runs again (and the poller, once for the hour): nothing is sent twice.
    await d.advance(60 * 60_000);
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    const types = detailTypes(d);
    expect(types['IssuedInvoice.Overdue'] ?? 0, JSON.stringify(types)).toBeGreaterThan(0);
    const sent = [
      ...published('IssuedInvoice.PaymentReminderSent'),
      ...published('IssuedAdvanceInvoice.PaymentReminderSent'),
    ];
    expect(sent.length, JSON.stringify(types)).toBeGreaterThan(0);
    console.info(
      `payment reminders: ${(types['IssuedInvoice.Overdue'] ?? 0) + (types['IssuedAdvanceInvoice.Overdue'] ?? 0)} Overdue events, ${sent.length} reminders sent, ${types['Action.Failed'] ?? 0} Action.Failed`,
    );
    // One mail per reminder event, and one per document and stage.
    expect(mails()).toHaveLength(sent.length);
    const stages = sent.map((s) => `${String(s.id)}#${String(s.dueDate)}#${String(s.stage)}`);
    expect(new Set(stages).size).toBe(stages.length);
    // Each went to the partner's address on the service's record.
    for (const mail of mails()) {
      const record = (d.sandbox.state.get('IssuedInvoices', mail.DocumentId) ??
        d.sandbox.state.get('IssuedAdvanceInvoices', mail.DocumentId)) as ApiRecord | undefined;
      const held = (record?.BusinessPartnerAddress as { Email?: string } | undefined)?.Email;
      expect(mail.To).toEqual([held]);
    }
  }, 240_000);
});
