import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, harness, jsonOf } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterEach(async () => {
  await fetch(`${h.sandbox.baseUrl}/_sandbox/faults`, { method: 'DELETE' });
});
afterAll(async () => {
  await h.sandbox.close();
});

const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const { json, ...rest } = init;
  return fetch(`${h.sandbox.baseUrl}/_sandbox/${path}`, {
    ...rest,
    ...(json !== undefined
      ? { body: JSON.stringify(json), headers: { 'Content-Type': 'application/json' } }
      : {}),
  });
};
const LIST = '/v1/IssuedInvoices?PageSize=5&PageNumber=1';

describe('fault knobs', () => {
  it('rate-limits per credential with a token bucket that refills with the clock', async () => {
    h.sandbox.setFaults({ rateLimit: { capacity: 2, refillPerSecond: 0.5 } });
    expect((await h.api(LIST)).status).toBe(200);
    expect((await h.api(LIST)).status).toBe(200);
    const limited = await h.api(LIST);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    // Another credential has its own bucket.
    expect((await h.api(LIST, { headers: { 'Api-Key': h.sandbox.credentials.readOnlyApiKey } })).status).toBe(
      200,
    );
    h.clock.advance(2000);
    expect((await h.api(LIST)).status).toBe(200);
  });

  it('answers random 429 with Retry-After and random 5xx from the configured statuses', async () => {
    h.sandbox.setFaults({ random429Rate: 1, retryAfterSeconds: 3 });
    const r429 = await h.api(LIST);
    expect(r429.status).toBe(429);
    expect(r429.headers.get('retry-after')).toBe('3');
    h.sandbox.setFaults({ random429Rate: 0, random5xxRate: 1, statuses5xx: [503] });
    const r5xx = await h.api(LIST);
    expect(r5xx.status).toBe(503);
    expect((await jsonOf(r5xx)).type).toBe('https://httpstatuses.io/503');
  });

  it('resets connections', async () => {
    h.sandbox.setFaults({ connectionResetRate: 1 });
    await expect(h.api(LIST)).rejects.toThrow();
  });

  it('cuts JSON bodies short (status 200, invalid JSON)', async () => {
    h.sandbox.setFaults({ malformedJsonRate: 1 });
    const res = await h.api(LIST);
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
  });

  it('sends slow bodies in chunks that still add up to the full body', async () => {
    const normal = await (await h.api(LIST)).text();
    h.sandbox.setFaults({
      slowBodyRate: 1,
      slowBodyChunks: 3,
      slowBodyChunkDelayMs: 5,
      latency: { baseMs: 5, jitterMs: 5, distribution: 'exponential' },
    });
    const slow = await (await h.api(LIST)).text();
    expect(JSON.parse(slow).Items.map((i: { Id: string }) => i.Id)).toEqual(
      JSON.parse(normal).Items.map((i: { Id: string }) => i.Id),
    );
  });

  it('scopes random faults to the path pattern', async () => {
    h.sandbox.setFaults({ random5xxRate: 1, pathPattern: '^/v1/Banks' });
    expect((await h.api(LIST)).status).toBe(200);
    expect((await h.api('/v1/Banks?PageSize=1&PageNumber=1')).status).toBeGreaterThanOrEqual(500);
  });

  it('skews the server clock of ModifiedDate', async () => {
    h.sandbox.setFaults({ clockSkewMs: -90_000 });
    const res = await h.api('/v1/BusinessPartners', { method: 'POST', json: { City: 'Nitra' } });
    const body = await jsonOf(res);
    expect(Date.parse(body.Data.ModificationInfo.ModifiedDate)).toBe(h.clock.ms - 90_000);
    // The Date header tells the same (skewed) server time, to the second.
    expect(Date.parse(res.headers.get('date') ?? '')).toBe(Math.floor((h.clock.ms - 90_000) / 1000) * 1000);
  });

  it('makes changes visible only after the commit delay (late visibility)', async () => {
    h.sandbox.setFaults({ lateVisibilityMs: 10_000 });
    const created = await jsonOf(
      await h.api('/v1/BusinessPartners', { method: 'POST', json: { City: 'Nitra', Name: 'Neskorý' } }),
    );
    const id = created.Data.Id;
    const modified = created.Data.ModificationInfo.ModifiedDate;
    expect(Date.parse(modified)).toBe(h.clock.ms);
    expect((await h.api(`/v1/BusinessPartners/${id}`)).status).toBe(404);
    const since = `/v1/BusinessPartners?PageSize=50&PageNumber=1&ModifiedSince=${encodeURIComponent(modified)}`;
    expect((await h.getJson(since)).Items.map((i: { Id: string }) => i.Id)).not.toContain(id);
    let truth = await jsonOf(await admin(`ground-truth?id=${id}`));
    expect(truth.count).toBe(0);
    h.clock.advance(10_000);
    expect((await h.api(`/v1/BusinessPartners/${id}`)).status).toBe(200);
    expect((await h.getJson(since)).Items.map((i: { Id: string }) => i.Id)).toContain(id);
    truth = await jsonOf(await admin(`ground-truth?id=${id}`));
    expect(truth.versions).toMatchObject([{ id, change: 'created', modifiedDate: modified }]);
  });

  it('keeps versions in commit order when the commit delay is lowered while one is pending', async () => {
    const created = await h.api('/v1/BusinessPartners', {
      method: 'POST',
      json: { City: 'Nitra', Note: 'zero' },
    });
    const partner = (await jsonOf(created)).Data;
    h.sandbox.setFaults({ lateVisibilityMs: 10_000 });
    await admin(`edit/BusinessPartners/${partner.Id}`, { method: 'POST', json: { Note: 'first' } });
    h.sandbox.setFaults({ lateVisibilityMs: 0 });
    h.clock.advance(1000);
    await admin(`edit/BusinessPartners/${partner.Id}`, { method: 'POST', json: { Note: 'second' } });
    // The newer version waits for the older one, then stays: a record never goes back in time.
    expect((await h.getJson(`/v1/BusinessPartners/${partner.Id}`)).Note).toBe(partner.Note);
    h.clock.advance(9000);
    expect((await h.getJson(`/v1/BusinessPartners/${partner.Id}`)).Note).toBe('second');
    h.clock.advance(10_000);
    expect((await h.getJson(`/v1/BusinessPartners/${partner.Id}`)).Note).toBe('second');
    const truth = await jsonOf(await admin(`ground-truth?id=${partner.Id}&includeSeed=false&copies=true`));
    expect(truth.versions.map((v: { record: { Note: string } }) => v.record.Note)).toEqual([
      'zero',
      'first',
      'second',
    ]);
    expect(truth.versions[2].visibleFrom).toBe(truth.versions[1].visibleFrom);
  });

  it('edits records between page requests', async () => {
    h.sandbox.setFaults({ editsWhilePaging: { rate: 1, count: 2 } });
    const before = (await jsonOf(await admin('ground-truth?collection=IssuedInvoices&includeSeed=false')))
      .count;
    await h.api(LIST);
    const after = await jsonOf(await admin('ground-truth?collection=IssuedInvoices&includeSeed=false'));
    expect(after.count).toBe(before + 2);
    expect(after.versions.at(-1).change).toBe('updated');
  });

  it('validates fault settings and rejects unknown knobs', async () => {
    const res = await admin('faults', { method: 'PUT', json: { random5xxRate: 2 } });
    expect(res.status).toBe(422);
    expect((await admin('faults', { method: 'PUT', json: { nonsense: true } })).status).toBe(422);
    const ok = await admin('faults', { method: 'PUT', json: { random429Rate: 0.5 } });
    expect((await jsonOf(ok)).random429Rate).toBe(0.5);
    expect((await jsonOf(await admin('faults'))).random429Rate).toBe(0.5);
  });
});

describe('admin API', () => {
  it('keeps the ground truth of every visible version, with copies on request', async () => {
    const partner = (await h.getJson('/v1/BusinessPartners?PageSize=1&PageNumber=1')).Items[0];
    h.clock.advance(1000);
    const edited = await jsonOf(
      await admin(`edit/BusinessPartners/${partner.Id}`, { method: 'POST', json: { Note: 'upravené' } }),
    );
    expect(edited.Note).toBe('upravené');
    const truth = await jsonOf(
      await admin(`ground-truth?collection=BusinessPartners&id=${partner.Id}&copies=true`),
    );
    expect(truth.versions.map((v: { change: string }) => v.change)).toEqual(['created', 'updated']);
    expect(truth.versions[0].record).toEqual(partner);
    expect(truth.versions[1].record.Note).toBe('upravené');
    expect(truth.versions[1].hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await h.getJson(`/v1/BusinessPartners/${partner.Id}`)).Note).toBe('upravené');
  });

  it('deletes records so pollers can reconcile deletions', async () => {
    const inv = (await h.getJson('/v1/IssuedInvoices?PageSize=1&PageNumber=1')).Items[0];
    const res = await admin(`records/IssuedInvoices/${inv.Id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await h.api(`/v1/IssuedInvoices/${inv.Id}`)).status).toBe(404);
    expect((await h.getJson('/v1/IssuedInvoices?PageSize=1&PageNumber=1')).Items[0].Id).not.toBe(inv.Id);
    const truth = await jsonOf(await admin(`ground-truth?id=${inv.Id}`));
    expect(truth.versions.map((v: { change: string }) => v.change)).toEqual(['created', 'deleted']);
    expect((await admin(`records/IssuedInvoices/${inv.Id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('counts requests per endpoint and credential', async () => {
    await admin('requests', { method: 'DELETE' });
    await h.api(LIST);
    await h.api(LIST);
    await h.api('/v1/Banks?PageSize=1&PageNumber=1', {
      headers: { 'Api-Key': h.sandbox.credentials.readOnlyApiKey },
    });
    const counts = await jsonOf(await admin('requests'));
    expect(counts.total).toBe(3);
    expect(counts.byEndpoint).toEqual({ 'IssuedInvoices.list': 2, 'Banks.list': 1 });
    expect(counts.byEndpointAndCredential['IssuedInvoices.list']).toEqual({ 'api-key:sandbox': 2 });
    expect(JSON.stringify(counts)).not.toContain(h.sandbox.credentials.apiKey);
  });

  it('runs the activity generator on demand: orders, edits, invoices', async () => {
    const res = await admin('activity/tick', { method: 'POST', json: { count: 30 } });
    const { actions } = await jsonOf(res);
    expect(actions).toHaveLength(30);
    const kinds = new Set(actions.map((a: { action: string }) => a.action));
    expect(kinds.has('createOrder')).toBe(true);
    const orderId = actions.find((a: { action: string }) => a.action === 'createOrder').id;
    const order = await h.getJson(`/v1/ReceivedOrders/${orderId}`);
    expect(order.Text).toBe('Objednávka z e-shopu');
  });

  it('changes settings at run time (max page size, precision)', async () => {
    const res = await admin('settings', { method: 'PUT', json: { maxPageSize: 3 } });
    expect((await jsonOf(res)).maxPageSize).toBe(3);
    expect((await h.getJson(LIST)).Items).toHaveLength(3);
    await admin('settings', { method: 'PUT', json: { maxPageSize: 100 } });
  });

  it('resets to the seeded state and reseeds deterministically', async () => {
    const first = (await h.getJson(LIST)).Items;
    await admin('seed', { method: 'POST', json: { seed: 7, documents: 50 } });
    const other = await h.getJson(LIST);
    expect(other.Items[0].Id).not.toBe(first[0].Id);
    await admin('seed', { method: 'POST', json: { seed: 1, documents: 220 } });
    await h.api('/v1/BusinessPartners', { method: 'POST', json: { City: 'Nitra' } });
    const reset = await jsonOf(await admin('reset', { method: 'POST' }));
    expect(reset.reset).toBe(true);
    expect((await jsonOf(await admin('ground-truth?includeSeed=false'))).count).toBe(0);
    expect((await jsonOf(await admin('outbox'))).messages).toEqual([]);
    const info = await jsonOf(await admin(''));
    expect(info.credentials.apiKey).toBe('sandbox-api-key');
  });
});

describe('options', () => {
  /** Sends the first issued invoice that has a partner identification number as an e-invoice. */
  async function sendFirstPartnerInvoice(o: Harness) {
    const inv = (await o.getJson('/v1/IssuedInvoices?PageSize=20&PageNumber=1')).Items.find(
      (i: { BusinessPartnerAddress: { IdentificationNumber: string | null } }) =>
        i.BusinessPartnerAddress.IdentificationNumber,
    );
    return jsonOf(await o.api(`/v1/IssuedInvoices/${inv.Id}/Send/EInvoice`, { method: 'POST' }));
  }

  it('serves overridden paths, like the client configured with ACCOUNTING_PATH_OVERRIDES', async () => {
    const o = await harness({ pathOverrides: { 'EInvoicing.status': '/v1/Peppol/{sendingId}' } });
    try {
      const sent = await sendFirstPartnerInvoice(o);
      expect((await o.api(`/v1/Peppol/${sent.SendingId}`)).status).toBe(200);
      expect((await o.api(`/v1/EInvoicing/Sendings/${sent.SendingId}`)).status).toBe(404);
    } finally {
      await o.sandbox.close();
    }
  });

  it('reports TransportFailed when the network cannot deliver (Invoice Response networks)', async () => {
    const o = await harness({
      eInvoicing: { stepMs: 100, transportFailureProbability: 1, statuses: 'invoiceResponse' },
    });
    try {
      const sent = await sendFirstPartnerInvoice(o);
      o.clock.advance(1000);
      const status = await o.getJson(`/v1/EInvoicing/Sendings/${sent.SendingId}`);
      expect(status).toMatchObject({ Status: 'TransportFailed', ResponseCode: null, IsFinal: true });
      expect(status.History.map((s: { Status: string }) => s.Status)).toEqual([
        'Queued',
        'Sent',
        'TransportFailed',
      ]);
    } finally {
      await o.sandbox.close();
    }
  });
});

describe('consistency after deletions and activity', () => {
  it('warns BusinessPartnerDoesNotExistAnyMore when the source partner was deleted', async () => {
    const partner = await jsonOf(
      await h.api('/v1/BusinessPartners', { method: 'POST', json: { City: 'Žilina', Name: 'Dočasný' } }),
    );
    const order = await jsonOf(
      await h.api('/v1/ReceivedOrders', {
        method: 'POST',
        json: {
          BusinessPartnerAddress: { DocumentAddressWithAddressBookLink: { Id: partner.Data.Id } },
          Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 1 } }],
        },
      }),
    );
    await admin(`records/BusinessPartners/${partner.Data.Id}`, { method: 'DELETE' });
    const slip = await jsonOf(
      await h.api(`/v1/ReceivedOrders/${order.Data.Id}/Transfer/ToIssueSlip/Fully`, { method: 'POST' }),
    );
    expect(slip.Warnings.map((w: { Code: string }) => w.Code)).toEqual([
      'BusinessPartnerDoesNotExistAnyMore',
    ]);
    expect(slip.Data.BusinessPartnerAddress.BusinessPartnerId).toBe(partner.Data.Id);
  });

  it('starts and stops the activity generator through the admin API', async () => {
    expect(
      await jsonOf(await admin('activity/start', { method: 'POST', json: { ratePerSecond: 0.01 } })),
    ).toEqual({ running: true });
    expect(await jsonOf(await admin('activity/stop', { method: 'POST' }))).toEqual({ running: false });
  });
});
