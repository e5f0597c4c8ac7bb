/**
 * Conformance (b): every answer of the sandbox in `cz` mode to every JSON GET path of the public
 * OpenAPI — the 28 lists, the 26 by-id reads, and the payment-state, liquidation, order-status
 * and serial-number reads — validates against the operation's response schema with no extra and
 * no missing property (every DTO property present, null where unset, none other).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsFor } from '#functions/accounting/endpoints.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { loadOpenApi, type ValidationReport } from './openapi.js';

const api = loadOpenApi();
let sandbox: Sandbox;

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    headers: { 'Api-Key': sandbox.credentials.apiKey },
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** The JSON GET operations of the OpenAPI (files — PDF, ISDOC — excluded). */
const jsonGets = api
  .operations()
  .filter((op) => op.method === 'GET' && !/\/(pdf|isdoc)$/.test(op.path))
  .map((op) => op.path);
const lists = jsonGets.filter((p) => !p.includes('{'));
const byId = jsonGets.filter((p) => /^\/v1\/\w+\/\{id\}$/.test(p));
const others = jsonGets.filter((p) => !lists.includes(p) && !byId.includes(p));

/** Record totals over all paths, for the summary test. */
const totals = { served: new Set<string>(), extra: new Set<string>(), missing: new Set<string>() };

function record(path: string, report: ValidationReport): void {
  totals.served.add(path);
  for (const e of report.extra) totals.extra.add(`${path} ${e}`);
  for (const m of report.missing) totals.missing.add(`${path} ${m}`);
}

/** Several pages, so records of every shape (foreign currency, delivery address, statuses) appear. */
async function fullList(path: string): Promise<{ status: number; body: { Items: unknown[] } }> {
  const res = await get(`${path}?PageSize=100&PageNumber=1`);
  return res as { status: number; body: { Items: unknown[] } };
}

beforeAll(async () => {
  sandbox = await startSandbox({
    variant: 'cz',
    seed: 1,
    sizes: { documents: 400, partners: 40, perCollection: {} },
  });
  // Some activity: an order transferred, an invoice paid in part, a payment method created.
  const state = sandbox.state;
  const order = state
    .list('ReceivedOrders', { pageSize: 1000, pageNumber: 1 })
    .items.find((r) => r.Status === 'Unfinished');
  if (order) sandbox.server.domain.transfer('ReceivedOrders', order.Id, undefined);
  // An import with the Slovak contract's `Doklad`: the cz record keeps to the DTO.
  sandbox.server.domain.importDocument('ReceivedOrders', {
    Doklad: 'EO-1',
    BusinessPartnerAddress: {
      DocumentAddressWithoutAddressBookLink: { CompanyName: 'Firma s.r.o.', City: 'Brno' },
    },
    Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 5 } }],
  });
  const liquidations = sandbox.server.domain.liquidations;
  const invoice = state
    .list('IssuedInvoices', { pageSize: 1000, pageNumber: 1 })
    .items.find((r) => liquidations.paymentStatus('IssuedInvoices', r).RestToPay > 1);
  if (invoice) {
    liquidations.liquidatePartially('IssuedInvoices', invoice.Id, {
      DocumentCurrencyAmount: 0.5,
    });
  }
});

afterAll(async () => {
  await sandbox?.close();
});

describe('the sandbox in cz mode answers every GET path of the public OpenAPI with its exact DTO', () => {
  it('finds the 54 list and by-id paths in the OpenAPI (28 lists, 26 by id)', () => {
    expect(lists).toHaveLength(28);
    expect(byId).toHaveLength(26);
  });

  it.each(lists)('GET %s (list)', async (path) => {
    const res = await fullList(path);
    expect(res.status).toBe(200);
    expect(res.body.Items.length).toBeGreaterThan(0);
    const report = api.validateResponse('GET', path, 200, res.body);
    record(path, report);
    expect(report).toMatchObject({ extra: [], missing: [], mismatched: [] });
  });

  it.each(byId)('GET %s (by id)', async (path) => {
    const list = await fullList(path.replace('/{id}', ''));
    const items = list.body.Items as { Id: string }[];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items.slice(0, 5)) {
      const res = await get(path.replace('{id}', item.Id));
      expect(res.status).toBe(200);
      const report = api.validateResponse('GET', path, 200, res.body);
      record(path, report);
      expect(report).toMatchObject({ extra: [], missing: [], mismatched: [] });
    }
  });

  it.each(others)('GET %s', async (path) => {
    const collection = path.split('/')[2] as string;
    let url: string;
    if (path.endsWith('/RegistrationNumbers')) {
      const serials = (await fullList('/v1/RegistrationNumbers')).body.Items as { PriceListItemId: string }[];
      url = `${path.replace('{PriceListItemId}', serials[0]?.PriceListItemId ?? '')}?PageSize=10&PageNumber=1`;
    } else if (path.includes('/Liquidation/')) {
      const unpaid = (await fullList(`/v1/${collection}/Unpaid`)).body.Items as {
        LiquidationInfos: { Id: string }[];
      }[];
      const liquidation = unpaid.flatMap((u) => u.LiquidationInfos)[0];
      expect(liquidation).toBeDefined();
      url = path.replace('{id}', liquidation?.Id ?? '');
    } else {
      const first = ((await fullList(`/v1/${collection}`)).body.Items as { Id: string }[])[0];
      url = path.replace('{id}', first?.Id ?? '');
    }
    const res = await get(url);
    expect(res.status).toBe(200);
    const report = api.validateResponse('GET', path, 200, res.body);
    record(path, report);
    expect(report).toMatchObject({ extra: [], missing: [], mismatched: [] });
  });

  it('answers imports, transfers, liquidations and creations with their 201 DTOs', async () => {
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Api-Key': sandbox.credentials.apiKey, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as { Data: { Id: string } } };
    };
    const check = (method: string, path: string, res: { status: number; body: unknown }) => {
      expect(res.status, path).toBe(201);
      expect(api.validateResponse(method, path, 201, res.body), path).toMatchObject({
        extra: [],
        missing: [],
        mismatched: [],
      });
    };
    const doc = {
      BusinessPartnerAddress: {
        DocumentAddressWithoutAddressBookLink: { CompanyName: 'Firma s.r.o.', City: 'Brno' },
      },
      Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 100, Quantity: 1 } }],
    };
    const created: Record<string, string> = {};
    for (const path of api
      .operations()
      .filter((o) => o.method === 'POST' && !o.path.includes('{'))
      .map((o) => o.path)) {
      if (path.startsWith('/v1/PriceListItems/')) continue; // reads, answered 200
      let body: unknown = doc;
      if (path === '/v1/BusinessPartners') body = { City: 'Brno', Name: 'Jan Novák', DeliveryAddresses: [] };
      if (path === '/v1/PaymentMethods')
        body = { Name: 'Kupón', IsUsedInSaleVoucher: false, IsUsedInOtherAgendas: true };
      const res = await post(path, body);
      check('POST', path, res);
      created[path] = res.body.Data.Id;
    }
    const order = created['/v1/ReceivedOrders'] as string;
    check(
      'POST',
      '/v1/ReceivedOrders/{id}/Transfer/ToIssuedInvoice/Fully',
      await post(`/v1/ReceivedOrders/${order}/Transfer/ToIssuedInvoice/Fully`),
    );
    const issuedOrder = created['/v1/IssuedOrders'] as string;
    check(
      'POST',
      '/v1/IssuedOrders/{id}/Transfer/ToReceivedInvoice/Fully',
      await post(`/v1/IssuedOrders/${issuedOrder}/Transfer/ToReceivedInvoice/Fully`),
    );
    const invoice = created['/v1/IssuedInvoices'] as string;
    const partially = '/v1/IssuedInvoices/{DocumentId}/Liquidate/Standalone/Partially';
    check(
      'POST',
      partially,
      await post(`/v1/IssuedInvoices/${invoice}/Liquidate/Standalone/Partially`, {
        DocumentCurrencyAmount: 10,
      }),
    );
    for (const collection of ['IssuedInvoices', 'IssuedAdvanceInvoices']) {
      const path = `/v1/${collection}/{DocumentId}/Liquidate/Standalone/Fully`;
      check(
        'POST',
        path,
        await post(path.replace('{DocumentId}', created[`/v1/${collection}`] as string), {}),
      );
    }
  });

  it('serves all of them with 0 extra and 0 missing field paths', () => {
    expect([...totals.extra]).toEqual([]);
    expect([...totals.missing]).toEqual([]);
    expect(totals.served.size).toBe(jsonGets.length);
  });
});

describe('the default sk sandbox answers with the same DTO shapes wherever the OpenAPI has the path', () => {
  let sk: Sandbox;
  const skPaths = new Set(operationsFor('sk').map((op) => `${op.method} ${op.path}`));
  const shared = [...lists, ...byId].filter((p) => skPaths.has(`GET ${p}`));

  beforeAll(async () => {
    sk = await startSandbox({ seed: 2, sizes: { documents: 300, partners: 20, perCollection: {} } });
  });
  afterAll(async () => {
    await sk?.close();
  });

  it('has all but the Czech-only corrective tax documents (52 of the 54 paths)', () => {
    expect(shared).toHaveLength(52);
  });

  it.each(shared)('GET %s (sk)', async (path) => {
    const headers = { 'Api-Key': sk.credentials.apiKey };
    const listPath = path.replace('/{id}', '');
    const page = (await (
      await fetch(`${sk.baseUrl}${listPath}?PageSize=100&PageNumber=1`, { headers })
    ).json()) as {
      Items: { Id: string }[];
    };
    const first = page.Items[0];
    expect(first).toBeDefined();
    const body =
      path === listPath
        ? page
        : await (await fetch(`${sk.baseUrl}${path.replace('{id}', first?.Id ?? '')}`, { headers })).json();
    expect(api.validateResponse('GET', path, 200, body)).toMatchObject({
      extra: [],
      missing: [],
      mismatched: [],
    });
  });
});
