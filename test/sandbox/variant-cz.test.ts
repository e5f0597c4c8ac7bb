/** The sandbox in `cz` mode: only the public OpenAPI's operations, reference lists that filter, the real reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSandboxArgs, SandboxCliError } from '#sandbox/main.js';
import { type Harness, harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ variant: 'cz' });
});
afterAll(async () => {
  await h?.sandbox.close();
});

const post = async (path: string, json?: unknown) => {
  const res = await h.api(path, { method: 'POST', ...(json === undefined ? {} : { json }) });
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes in assertions
  return { status: res.status, body: (await res.json()) as any };
};

describe('sandbox, cz variant', () => {
  it('is chosen with --variant or SANDBOX_VARIANT (sk by default); another value names the flag', async () => {
    expect(parseSandboxArgs(['--variant', 'cz'], {})).toMatchObject({ variant: 'cz' });
    expect(parseSandboxArgs([], { SANDBOX_VARIANT: 'cz' })).toMatchObject({ variant: 'cz' });
    expect(parseSandboxArgs([], {})).toMatchObject({ variant: 'sk' });
    expect(() => parseSandboxArgs(['--variant', 'de'], {})).toThrow(SandboxCliError);
    expect(() => parseSandboxArgs(['--variant', 'de'], {})).toThrow(/--variant/);
    const admin = (await (await fetch(`${h.sandbox.baseUrl}/_sandbox`)).json()) as { variant: string };
    expect(admin.variant).toBe('cz');
  });

  it('serves none of the operations only the Slovak contract names', async () => {
    const order = (await h.getJson('/v1/ReceivedOrders?PageSize=1&PageNumber=1')).Items[0];
    for (const path of ['/v1/IssuedCreditNotes', '/v1/VatClassifications', '/v1/OtherLiabilities']) {
      expect((await h.api(`${path}?PageSize=1&PageNumber=1`)).status, path).toBe(404);
    }
    expect((await post(`/v1/ReceivedOrders/${order.Id}/Transfer/ToIssueSlip/Fully`)).status).toBe(404);
    expect((await post('/v1/BankDocuments/Receipts', { Items: [{ Amount: 1 }] })).status).toBe(404);
    const corrective = await h.getJson('/v1/IssuedInvoiceCorrectiveTaxDocuments?PageSize=5&PageNumber=1');
    expect(corrective.Items.length).toBeGreaterThan(0);
    const invoice = await h.api(`/v1/IssuedInvoices/${corrective.Items[0].CorrectedDocumentId}`);
    expect(invoice.status).toBe(200);
  });

  it('filters reference lists by ModifiedSince and pages them by After where the OpenAPI accepts it', async () => {
    const all = await h.getJson('/v1/PaymentMethods?PageSize=100&PageNumber=1');
    expect(all.Items.length).toBeGreaterThan(0);
    const since = new Date(h.clock.ms).toISOString();
    expect(
      (await h.getJson(`/v1/PaymentMethods?PageSize=100&PageNumber=1&ModifiedSince=${since}`)).Items,
    ).toEqual([]);
    const created = await post('/v1/PaymentMethods', {
      Name: 'Stravné lístky',
      IsUsedInSaleVoucher: true,
      IsUsedInOtherAgendas: false,
    });
    expect(created.status).toBe(201);
    expect(created.body.Data.ModificationInfo.ModifiedDate).toBe(since);
    const changed = await h.getJson(`/v1/PaymentMethods?PageSize=100&PageNumber=1&ModifiedSince=${since}`);
    expect(changed.Items.map((m: { Id: string }) => m.Id)).toEqual([created.body.Data.Id]);
    const banks = await h.getJson(`/v1/Banks?PageSize=100&PageNumber=1&ModifiedSince=${since}`);
    expect(banks.Items).toEqual([]);
    const first = all.Items[0].Id;
    const after = await h.getJson(`/v1/PaymentMethods?PageSize=100&PageNumber=1&After=${first}`);
    expect(after.Items.every((m: { Id: string }) => m.Id > first)).toBe(true);
    const bank = (await h.getJson('/v1/Banks?PageSize=1&PageNumber=1')).Items[0];
    expect((await h.api(`/v1/Banks?PageSize=1&PageNumber=1&After=${bank.Id}`)).status).toBe(422);
  });

  it('reads serial numbers of one item, available quantities and selling prices by ids', async () => {
    const serials = (await h.getJson('/v1/RegistrationNumbers?PageSize=100&PageNumber=1')).Items;
    const itemId = serials[0].PriceListItemId;
    const own = await h.getJson(`/v1/PriceListItems/${itemId}/RegistrationNumbers?PageSize=100&PageNumber=1`);
    expect(own.Items.length).toBeGreaterThan(0);
    expect(own.Items.every((s: { PriceListItemId: string }) => s.PriceListItemId === itemId)).toBe(true);
    expect(own.TotalItemCount).toBe(
      serials.filter((s: { PriceListItemId: string }) => s.PriceListItemId === itemId).length,
    );
    const quantities = await post('/v1/PriceListItems/AvailableQuantities', { Ids: [itemId] });
    expect(quantities.status).toBe(200);
    expect(quantities.body).toEqual([
      expect.objectContaining({ Id: itemId, AvailableQuantity: expect.any(Number) }),
    ]);
    const prices = await post('/v1/PriceListItems/SellingPrices', { Ids: [itemId] });
    expect(prices.body[0].SellingPrices.length).toBe(3);
    expect((await post('/v1/PriceListItems/SellingPrices', { Ids: [] })).status).toBe(422);
  });

  it('transfers a received order straight to an issued invoice, linking the items', async () => {
    const orders = (await h.getJson('/v1/ReceivedOrders?PageSize=100&PageNumber=1')).Items;
    const order = orders.find((o: { Status: string }) => o.Status === 'Unfinished') ?? orders[0];
    h.sandbox.state.update('ReceivedOrders', order.Id, (r) => {
      r.Status = 'Unfinished';
    });
    const invoice = await post(`/v1/ReceivedOrders/${order.Id}/Transfer/ToIssuedInvoice/Fully`);
    expect(invoice.status).toBe(201);
    expect(invoice.body.Data.DocumentNumber).toMatch(/^FA/);
    expect(
      invoice.body.Data.Items.map((i: { ReceivedOrderItemId: string }) => i.ReceivedOrderItemId),
    ).toEqual(order.Items.map((i: { Id: string }) => i.Id));
    expect(await h.getJson(`/v1/ReceivedOrders/${order.Id}/status`)).toBe('Finished');
  });
});
