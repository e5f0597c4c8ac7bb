import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, harness, jsonOf } from './helpers.js';

interface TruthRow {
  id: string;
  documentNumber: string;
  b2b: boolean;
  verdict: null | { reason: 'SV' | 'BV'; ruleIds?: string[] };
}

let h: Harness;
const truth = async (): Promise<TruthRow[]> =>
  (await jsonOf(await fetch(`${h.sandbox.baseUrl}/_sandbox/einvoicing`))).invoices;
const send = async (id: string) =>
  jsonOf(await h.api(`/v1/IssuedInvoices/${id}/Send/EInvoice`, { method: 'POST' }));
const statusOf = (sendingId: string) => h.getJson(`/v1/EInvoicing/Sendings/${sendingId}`);

beforeAll(async () => {
  h = await harness({
    sizes: { documents: 1500, partners: 40, perCollection: {} },
    eInvoicing: {
      stepMs: 1000,
      transportFailureProbability: 0,
      responseWeights: { AP: 1, RE: 0, CA: 0, UQ: 0 },
      paidProbability: 0,
    },
  });
});
afterAll(async () => {
  await h.sandbox.close();
});

describe('sandbox e-invoicing network (sk)', () => {
  it('seeds a few percent of the B2B invoices with defects its own rules reject', async () => {
    const rows = await truth();
    const b2b = rows.filter((r) => r.b2b);
    const rejected = b2b.filter((r) => r.verdict !== null);
    expect(b2b.length).toBeGreaterThan(100);
    const share = rejected.length / b2b.length;
    expect(share).toBeGreaterThan(0.01);
    expect(share).toBeLessThan(0.15);
    expect(rejected.some((r) => r.verdict?.reason === 'BV')).toBe(true);
  });

  it('rejects a document breaking its rules with RE/BV and the rule ids, and accepts it once fixed', async () => {
    const rows = await truth();
    const bad = rows.find((r) => r.b2b && r.verdict?.reason === 'BV')!;
    const sent = await send(bad.id);
    h.clock.advance(5000);
    const final = await statusOf(sent.SendingId);
    expect(final).toMatchObject({
      Status: 'Rejected',
      MessageLevelStatus: 'RE',
      IsFinal: true,
      ResponseCode: null,
    });
    expect(final.MessageLevelReasons).toEqual([
      expect.objectContaining({ Code: 'BV', RuleIds: bad.verdict?.ruleIds }),
    ]);
    // An edit in the service fixes it (the address book's data, lines recomputed).
    const edited = await h.api(`/_sandbox/edit/IssuedInvoices/${bad.id}`, {
      method: 'POST',
      json: {},
    });
    expect(edited.status).toBe(200);
    h.clock.advance(5000);
    const after = (await truth()).find((r) => r.id === bad.id)!;
    expect(after.verdict).toBeNull();
    const again = await send(bad.id);
    h.clock.advance(5000);
    expect(['AP', 'AB']).toContain((await statusOf(again.SendingId)).MessageLevelStatus);
  });

  it('rejects text the XML cannot carry with RE/SV when such a document is seeded', async () => {
    const sv = (await truth()).find((r) => r.verdict?.reason === 'SV');
    if (!sv) throw new Error('no SV document seeded in 1500 documents');
    const sent = await send(sv.id);
    h.clock.advance(5000);
    const final = await statusOf(sent.SendingId);
    expect(final.MessageLevelStatus).toBe('RE');
    expect(final.MessageLevelReasons[0].Code).toBe('SV');
  });

  it('answers RE/FD when the receiver cannot be reached', async () => {
    const o = await harness({ eInvoicing: { stepMs: 100, transportFailureProbability: 1 } });
    try {
      const rows: TruthRow[] = (await jsonOf(await fetch(`${o.sandbox.baseUrl}/_sandbox/einvoicing`)))
        .invoices;
      const clean = rows.find((r) => r.b2b && r.verdict === null)!;
      const sent = await jsonOf(
        await o.api(`/v1/IssuedInvoices/${clean.id}/Send/EInvoice`, { method: 'POST' }),
      );
      o.clock.advance(1000);
      const final = await o.getJson(`/v1/EInvoicing/Sendings/${sent.SendingId}`);
      expect(final).toMatchObject({ MessageLevelStatus: 'RE', IsFinal: true });
      expect(final.MessageLevelReasons[0].Code).toBe('FD');
    } finally {
      await o.sandbox.close();
    }
  });

  it('serves the delivery address of documents whose partner has one (IssueSlips included)', async () => {
    const slips = (await h.getJson('/v1/IssueSlips?PageSize=200&PageNumber=1')).Items;
    const withDelivery = slips.filter(
      (s: { BusinessPartnerAddress: { DeliveryAddress: unknown } }) =>
        s.BusinessPartnerAddress.DeliveryAddress,
    );
    expect(withDelivery.length).toBeGreaterThan(0);
    expect(Object.keys(withDelivery[0].BusinessPartnerAddress.DeliveryAddress).sort()).toEqual([
      'City',
      'CompanyName',
      'Country',
      'DeliveryAddressId',
      'Division',
      'Email',
      'Name',
      'PhoneNumber',
      'PostCode',
      'Street',
    ]);
  });
});
