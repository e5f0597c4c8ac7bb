/**
 * The sending under the Slovak mandate (`mandate-sk`, the default of `sk`) against the sandbox:
 * partners with a DIČ are e-invoiced without any list, partners without one are not; an invoice
 * the pre-flight blocks is not sent, `IssuedInvoice.EInvoiceBlocked` names rules, fields and
 * partner, and the invoice goes once it is fixed (its `Updated` event), once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import {
  CONNECTION,
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '#test/actions/support.js';
import { loadActionsConfig } from '../actions-config.js';
import { type OpenSendings, sendingKey } from '../open-sendings.js';
import { createActionEntry } from '../run-action.js';
import type { EInvoiceBlockedDetail } from './events.js';
import { sendInvoice } from './send-invoice.js';

const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
const bed = useActionTestBed({
  clock,
  eInvoicing: { stepMs: 1_000, transportFailureProbability: 0 },
  sizes: { documents: 400, partners: 30, perCollection: {} },
});

interface Truth {
  id: string;
  b2b: boolean;
  verdict: null | { reason: string; ruleIds?: string[] };
}
let invoices: ApiRecord[];
let truth: Map<string, Truth>;

beforeAll(async () => {
  invoices = await listAll(bed.sb.client, 'IssuedInvoices');
  const body = (await (await fetch(`${bed.sb.sandbox.baseUrl}/_sandbox/einvoicing`)).json()) as {
    invoices: Truth[];
  };
  truth = new Map(body.invoices.map((t) => [t.id, t]));
});

async function setup(env: Record<string, string> = {}, api: AccountingApi = bed.sb.client) {
  const config = loadActionsConfig(env);
  const guard = createPowertoolsGuard({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.idempotencyTable(),
    expiresAfterSeconds: 3600,
  });
  const sendings = createDynamoDbCheckpointStore<OpenSendings>({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.checkpointTable(),
  });
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = {
    api,
    publisher,
    clock,
    logger,
    guard,
    sendings,
    blocks: sendings as CheckpointStore<unknown>,
    config,
  };
  const entry = createActionEntry('send-invoice', logger, (event, o) => sendInvoice(deps, event, o));
  return { entry, publisher, sendings };
}

const pick = (test: (t: Truth, i: ApiRecord) => boolean) => {
  const found = invoices.find((i) => {
    const t = truth.get(i.Id);
    return t !== undefined && test(t, i);
  });
  if (!found) throw new Error('no such invoice in the seeded sandbox');
  return found;
};
const taxOf = (i: ApiRecord) =>
  (i.BusinessPartnerAddress as { TaxIdentificationNumber: string | null }).TaxIdentificationNumber;

describe('e-invoicing under the Slovak mandate (sandbox + dynalite)', () => {
  it('e-invoices a Slovak partner with a DIČ without any partner list, once', async () => {
    const invoice = pick((t) => t.b2b && t.verdict === null);
    const { entry, publisher, sendings } = await setup();
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'done' });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'duplicate',
    });
    expect((await sendings.get(sendingKey(CONNECTION, invoice.Id)))?.value.sendings).toHaveLength(1);
    expect(publisher.ofType('IssuedInvoice.EInvoiceBlocked')).toHaveLength(0);
  });

  it('sends nothing to a partner without a DIČ, or e-mail when the fallback says so', async () => {
    const invoice = pick((_t, i) => taxOf(i) === null);
    const { entry, sendings } = await setup();
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'skipped',
      reason: 'partner not configured for sending',
    });
    expect(await sendings.get(sendingKey(CONNECTION, invoice.Id))).toBeUndefined();
    const byMail = await setup({ ACTIONS_EINVOICING_FALLBACK: 'email' });
    await expect(byMail.entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'done',
    });
    expect(byMail.publisher.ofType('IssuedInvoice.EmailSent')).toHaveLength(1);
  });
});

describe('e-invoices blocked by the pre-flight (sandbox + dynalite)', () => {
  it('blocks an invoice breaking the rules with the rule ids, and sends it once it is fixed', async () => {
    const invoice = pick((t) => t.b2b && t.verdict?.reason === 'BV');
    const expected = truth.get(invoice.Id)?.verdict?.ruleIds ?? [];
    const { entry, publisher, sendings } = await setup();
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'skipped' });
    const blocked = publisher.ofType('IssuedInvoice.EInvoiceBlocked');
    expect(blocked).toHaveLength(1);
    const detail = blocked[0]?.detail as EInvoiceBlockedDetail;
    expect([...new Set(detail.findings.map((f) => f.rule))].sort()).toEqual([...expected].sort());
    for (const f of detail.findings) expect(f.message).toContain(f.field);
    expect(detail.partner.participantId).toMatch(/^0245:\d{10}$/);
    expect(detail.partner.from).toBe('addressBook');
    expect(await sendings.get(sendingKey(CONNECTION, invoice.Id))).toBeUndefined();

    // An update that fixes nothing: checked again, not announced twice, not sent.
    await expect(entry(recordEvent('IssuedInvoice', invoice, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'skipped',
    });
    expect(publisher.ofType('IssuedInvoice.EInvoiceBlocked')).toHaveLength(1);

    // Fixed in the service: its update sends it, once.
    const edited = await fetch(`${bed.sb.sandbox.baseUrl}/_sandbox/edit/IssuedInvoices/${invoice.Id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(edited.status).toBe(200);
    const fixed = (await edited.json()) as ApiRecord;
    await expect(entry(recordEvent('IssuedInvoice', fixed, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'done',
    });
    expect((await sendings.get(sendingKey(CONNECTION, invoice.Id)))?.value.sendings).toHaveLength(1);
    await expect(entry(recordEvent('IssuedInvoice', fixed, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'skipped',
    });
    expect((await sendings.get(sendingKey(CONNECTION, invoice.Id)))?.value.sendings).toHaveLength(1);
  });

  it('an update of an invoice never blocked sends nothing and reads nothing', async () => {
    const invoice = pick((t) => t.b2b && t.verdict === null);
    const reads: string[] = [];
    const api = new Proxy(bed.sb.client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads.push(String(property));
          return value.apply(target, args);
        };
      },
    });
    const { entry, sendings } = await setup({}, api);
    await expect(entry(recordEvent('IssuedInvoice', invoice, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'skipped',
      reason: 'an update sends only a blocked e-invoice',
    });
    expect(reads).toEqual([]);
    expect(await sendings.get(sendingKey(CONNECTION, invoice.Id))).toBeUndefined();
  });
});
