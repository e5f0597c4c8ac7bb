import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collections } from '#functions/accounting/collections.js';
import { expectProblemShape, type Harness, harness, jsonOf } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ maxPageSize: 50 });
});
afterAll(async () => {
  await h.sandbox.close();
});

describe('section 4.1: lists', () => {
  it('serves every collection of the catalog with Items, TotalItemCount and Pagination', async () => {
    for (const c of collections) {
      const body = await h.getJson(`/v1/${c.name}?PageSize=5&PageNumber=1`);
      expect(Array.isArray(body.Items), c.name).toBe(true);
      expect(body.TotalItemCount, c.name).toBeGreaterThan(0);
      expect(body.Pagination).toEqual({ PageNumber: 1, PageSize: 5, After: null });
      for (const item of body.Items) expect(item.Id).toMatch(/^[0-9a-f-]{36}$/);
      if (c.modificationInfo) {
        expect(body.Items[0].ModificationInfo.ModifiedDate).toMatch(/^\d{4}-\d\d-\d\dT/);
      }
    }
  });

  it('validates PageSize and PageNumber with 422 messages, both reported at once', async () => {
    for (const query of ['PageSize=0&PageNumber=0', 'PageSize=-1&PageNumber=-5', '']) {
      const res = await h.api(`/v1/Activities?${query}`);
      expect(res.status).toBe(422);
      const body = await jsonOf(res);
      expectProblemShape(body, 422);
      expect(body.errors).toEqual({
        PageNumber: ["'PageNumber' must be greater than '0'."],
        PageSize: ["'PageSize' must be greater than '0'."],
      });
    }
    const one = await jsonOf(await h.api('/v1/Activities?PageSize=10&PageNumber=0'));
    expect(Object.keys(one.errors)).toEqual(['PageNumber']);
  });

  it('answers 400 for values that are not int32, GUID or date-time', async () => {
    for (const q of [
      'PageSize=abc&PageNumber=1',
      'PageSize=99999999999&PageNumber=1',
      'PageSize=1&PageNumber=1&After=xyz',
      'PageSize=1&PageNumber=1&ModifiedSince=yesterday',
    ]) {
      const res = await h.api(`/v1/IssuedInvoices?${q}`);
      expect(res.status, q).toBe(400);
      expectProblemShape(await jsonOf(res), 400);
    }
  });

  it('treats query names and paths case-insensitively', async () => {
    const a = await h.getJson('/v1/issuedinvoices?pagesize=3&pagenumber=1');
    const b = await h.getJson('/v1/IssuedInvoices?PageSize=3&PageNumber=1');
    expect(a.Items.map((i: { Id: string }) => i.Id)).toEqual(b.Items.map((i: { Id: string }) => i.Id));
  });

  it('silently caps PageSize to the maximum and says so in Pagination', async () => {
    const body = await h.getJson('/v1/IssuedInvoices?PageSize=1000&PageNumber=1');
    expect(body.Pagination.PageSize).toBe(50);
    expect(body.Items).toHaveLength(50);
    expect(body.TotalItemCount).toBeGreaterThan(50);
  });

  it('pages by keyset After in Id order: every record exactly once', async () => {
    const total = (await h.getJson('/v1/IssuedInvoices?PageSize=1&PageNumber=1')).TotalItemCount;
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const body = await h.getJson(
        `/v1/IssuedInvoices?PageSize=7&PageNumber=1${after ? `&After=${after}` : ''}`,
      );
      expect(body.Pagination.After).toBe(after ?? null);
      ids.push(...body.Items.map((i: { Id: string }) => i.Id));
      if (body.Items.length < 7) break;
      after = body.Items[body.Items.length - 1].Id;
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect([...ids].sort()).toEqual(ids);
  });

  it('pages by PageNumber consistently with keyset paging', async () => {
    const p1 = await h.getJson('/v1/ReceivedOrders?PageSize=4&PageNumber=1');
    const p2 = await h.getJson('/v1/ReceivedOrders?PageSize=4&PageNumber=2');
    const k2 = await h.getJson(`/v1/ReceivedOrders?PageSize=4&PageNumber=1&After=${p1.Items[3].Id}`);
    expect(p2.Items.map((i: { Id: string }) => i.Id)).toEqual(k2.Items.map((i: { Id: string }) => i.Id));
  });

  it('refuses After on collections that do not accept it (Banks) with 422', async () => {
    const first = await h.getJson('/v1/Banks?PageSize=2&PageNumber=1');
    const res = await h.api(`/v1/Banks?PageSize=2&PageNumber=1&After=${first.Items[0].Id}`);
    expect(res.status).toBe(422);
    expect(Object.keys((await jsonOf(res)).errors)).toEqual(['After']);
    for (const c of collections.filter((x) => x.acceptsAfter)) {
      expect(
        (await h.api(`/v1/${c.name}?PageSize=2&PageNumber=1&After=00000000-0000-4000-8000-000000000000`))
          .status,
      ).toBe(200);
    }
  });

  it('filters on ModifiedSince inclusively', async () => {
    const all = await h.getJson('/v1/IssuedInvoices?PageSize=50&PageNumber=1');
    const dates = all.Items.map(
      (i: { ModificationInfo: { ModifiedDate: string } }) => i.ModificationInfo.ModifiedDate,
    ).sort();
    const pivot = dates[Math.floor(dates.length / 2)] as string;
    const since = await h.getJson(
      `/v1/IssuedInvoices?PageSize=50&PageNumber=1&ModifiedSince=${encodeURIComponent(pivot)}`,
    );
    expect(since.TotalItemCount).toBeGreaterThan(0);
    expect(
      since.Items.some(
        (i: { ModificationInfo: { ModifiedDate: string } }) => i.ModificationInfo.ModifiedDate === pivot,
      ),
    ).toBe(true);
    for (const i of since.Items) expect(i.ModificationInfo.ModifiedDate >= pivot).toBe(true);
    const later = new Date(Date.parse(pivot) + 1).toISOString();
    const after = await h.getJson(
      `/v1/IssuedInvoices?PageSize=50&PageNumber=1&ModifiedSince=${encodeURIComponent(later)}`,
    );
    expect(
      after.Items.some(
        (i: { ModificationInfo: { ModifiedDate: string } }) => i.ModificationInfo.ModifiedDate === pivot,
      ),
    ).toBe(false);
  });

  it('serves the VAT classifications list (section 4.4)', async () => {
    const body = await h.getJson('/v1/VatClassifications?PageSize=50&PageNumber=1');
    expect(body.Items.length).toBeGreaterThan(3);
    expect(body.Items[0]).toHaveProperty('Code');
  });

  it('keeps records realistic: EUR, Slovak addresses, VAT 23/19/5/0, consistent recapitulation', async () => {
    const body = await h.getJson('/v1/IssuedInvoices?PageSize=50&PageNumber=1');
    const vatRates = await h.getJson('/v1/VatRates?PageSize=50&PageNumber=1');
    const percents = new Map<string, number>(
      vatRates.Items.map((v: { Id: string; VatPercent: number }) => [v.Id, v.VatPercent]),
    );
    const rates = new Set<number>();
    for (const inv of body.Items) {
      expect(inv.DocumentNumber).toMatch(/^FA\d{10}$/);
      expect(inv.BusinessPartnerAddress.Country).toBe('SK');
      expect(inv).not.toHaveProperty('Fax');
      let sum = 0;
      for (const item of inv.Items) {
        rates.add(percents.get(item.VatRateId) as number);
        expect(item.VatRateId).toMatch(/^[0-9a-f-]{36}$/);
        sum += item.PriceWithVat;
      }
      expect(inv.DocumentRecapitulation.TotalPrice).toBeCloseTo(sum, 1);
    }
    for (const r of rates) expect([23, 19, 5, 0]).toContain(r);
    const received = await h.getJson('/v1/ReceivedInvoices?PageSize=5&PageNumber=1');
    for (const inv of received.Items) {
      expect(inv.BusinessPartnerAddress.Email).toBeNull();
      expect(inv.BusinessPartnerAddress.PhoneNumber).toBeNull();
    }
  });
});

describe('section 4.2: get by id', () => {
  it('returns the record of the list, 404 for an unknown id and 422 for an empty id', async () => {
    const list = await h.getJson('/v1/BusinessPartners?PageSize=1&PageNumber=1');
    const record = await h.getJson(`/v1/BusinessPartners/${list.Items[0].Id}`);
    expect(record).toEqual(list.Items[0]);
    const upper = await h.getJson(`/v1/BusinessPartners/${String(list.Items[0].Id).toUpperCase()}`);
    expect(upper.Id).toBe(list.Items[0].Id);
    const missing = await h.api('/v1/BusinessPartners/3f2504e0-4f89-41d3-9a0c-0305e82c3301');
    expect(missing.status).toBe(404);
    expectProblemShape(await jsonOf(missing), 404);
    for (const c of ['Activities', 'BankAccounts', 'Banks', 'BusinessPartners', 'CashRegisters']) {
      const empty = await h.api(`/v1/${c}/`);
      expect(empty.status, c).toBe(422);
      expect((await jsonOf(empty)).errors).toEqual({ Id: ["'Id' must not be empty."] });
    }
  });

  it('reads a centre by id (the public OpenAPI has GET Centres/{id})', async () => {
    const list = await h.getJson('/v1/Centres?PageSize=1&PageNumber=1');
    expect(await h.getJson(`/v1/Centres/${list.Items[0].Id}`)).toEqual(list.Items[0]);
  });
});

describe('timestamp precision', () => {
  it('writes whole seconds when configured', async () => {
    const s = await harness({ timestampPrecision: 's' });
    try {
      const body = await s.getJson('/v1/IssuedInvoices?PageSize=20&PageNumber=1');
      for (const i of body.Items) expect(i.ModificationInfo.ModifiedDate).toMatch(/:\d\d\.000Z$/);
      s.clock.advance(1234);
      const created = await jsonOf(
        await s.api('/v1/BusinessPartners', { method: 'POST', json: { City: 'Nitra', Name: 'Ján Novák' } }),
      );
      expect(created.Data.ModificationInfo.ModifiedDate).toMatch(/\.000Z$/);
    } finally {
      await s.sandbox.close();
    }
  });

  it('is deterministic from the seed', async () => {
    const other = await harness({ seed: h.sandbox.server.options.seed });
    const third = await harness({ seed: 99 });
    try {
      const a = await h.getJson('/v1/IssueSlips?PageSize=5&PageNumber=1');
      const b = await other.getJson('/v1/IssueSlips?PageSize=5&PageNumber=1');
      const c = await third.getJson('/v1/IssueSlips?PageSize=5&PageNumber=1');
      expect(b.Items).toEqual(a.Items);
      expect(c.Items[0].Id).not.toBe(a.Items[0].Id);
    } finally {
      await other.sandbox.close();
      await third.sandbox.close();
    }
  });
});
