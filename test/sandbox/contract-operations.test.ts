import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblemShape, type Harness, harness, jsonOf } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({
    isdocReadyDelayMs: 5000,
    eInvoicing: {
      stepMs: 1000,
      transportFailureProbability: 0,
      responseWeights: { AP: 1, RE: 0, CA: 0, UQ: 0 },
      paidProbability: 1,
    },
  });
});
afterAll(async () => {
  await h.sandbox.close();
});

async function post(path: string, json?: unknown) {
  const res = await h.api(path, { method: 'POST', ...(json !== undefined ? { json } : {}) });
  return { status: res.status, body: await jsonOf(res) };
}

async function firstWithStatus(collection: string, status: string) {
  const body = await h.getJson(`/v1/${collection}?PageSize=100&PageNumber=1`);
  const found = body.Items.find((i: { Status: string }) => i.Status === status);
  if (!found) throw new Error(`no ${status} record in ${collection}`);
  return found;
}

async function aPartner() {
  return (await h.getJson('/v1/BusinessPartners?PageSize=1&PageNumber=1')).Items[0];
}

describe('section 4.3: business partners', () => {
  it('creates a partner: 201 with Data and Warnings, ModificationInfo of a new record', async () => {
    const { status, body } = await post('/v1/BusinessPartners', {
      Name: 'Jana Kováčová',
      City: 'Trnava',
      BusinessDetails: { DuePeriod: 30 },
      DeliveryAddresses: [{ Name: 'Sklad Trnava' }],
    });
    expect(status).toBe(201);
    expect(body.Warnings).toEqual([]);
    expect(body.Data).toMatchObject({
      Name: 'Jana Kováčová',
      City: 'Trnava',
      BusinessDetails: { DuePeriod: 30 },
    });
    expect(body.Data.ModificationInfo.CreatedDate).toBe(body.Data.ModificationInfo.ModifiedDate);
    const fetched = await h.getJson(`/v1/BusinessPartners/${body.Data.Id}`);
    expect(fetched).toEqual(body.Data);
  });

  it('validates: empty City → 422, wrong JSON type → 400, malformed JSON → 400', async () => {
    const empty = await post('/v1/BusinessPartners', { Name: 'X' });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ City: ["'City' must not be empty."] });
    const wrongType = await post('/v1/BusinessPartners', {
      City: 'Nitra',
      BusinessDetails: { DuePeriod: 'ten' },
    });
    expect(wrongType.status).toBe(400);
    expectProblemShape(wrongType.body, 400);
    const res = await h.api('/v1/BusinessPartners', {
      method: 'POST',
      body: '{"City":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it('fills partner data from the registry with AddressResolutionMode; unknown number → 404', async () => {
    const { status, body } = await post('/v1/BusinessPartners', {
      IdentificationNumber: '35757442',
      AddressResolutionMode: 'ByIdentificationNumber',
    });
    expect(status).toBe(201);
    expect(body.Data).toMatchObject({
      CompanyName: 'Tatra Soft s.r.o.',
      City: 'Bratislava',
      TaxIdentificationNumber: 'SK2021491780',
    });
    const missing = await post('/v1/BusinessPartners', {
      IdentificationNumber: '99999999',
      AddressResolutionMode: 'ByIdentificationNumber',
    });
    expect(missing.status).toBe(404);
    expectProblemShape(missing.body, 404);
  });

  it('updates a partner with PUT: new ModifiedDate, same CreatedDate', async () => {
    const partner = await aPartner();
    h.clock.advance(5000);
    const res = await h.api(`/v1/BusinessPartners/${partner.Id}`, {
      method: 'PUT',
      json: { Note: 'VIP', City: 'Poprad' },
    });
    expect(res.status).toBe(200);
    const updated = await jsonOf(res);
    expect(updated).toMatchObject({ Id: partner.Id, Note: 'VIP', City: 'Poprad', Name: partner.Name });
    expect(updated.ModificationInfo.CreatedDate).toBe(partner.ModificationInfo.CreatedDate);
    expect(Date.parse(updated.ModificationInfo.ModifiedDate)).toBe(h.clock.ms);
    expect(
      (
        await h.api('/v1/BusinessPartners/3f2504e0-4f89-41d3-9a0c-0305e82c3301', {
          method: 'PUT',
          json: { Note: 'x' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('document imports', () => {
  it('refuses empty Items with 422 under Items', async () => {
    for (const body of [{ Items: [] }, {}]) {
      const res = await post('/v1/ReceivedOrders', body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ Items: ["'Items' must not be empty."] });
    }
    const nested = await post('/v1/IssuedInvoices', { Items: [{ TextItem: { Text: '', Quantity: 0 } }] });
    expect(nested.status).toBe(422);
    expect(Object.keys(nested.body.errors).sort()).toEqual([
      'Items[0].TextItem.Quantity',
      'Items[0].TextItem.Text',
    ]);
  });

  it('imports a received order linked to the address book; VAT rate defaults from the partner', async () => {
    const partner = await aPartner();
    const { status, body } = await post('/v1/ReceivedOrders', {
      BusinessPartnerAddress: { DocumentAddressWithAddressBookLink: { Id: partner.Id } },
      Doklad: 'EO-1001',
      Items: [
        { TextItem: { Text: 'Tričko', Quantity: 2, UnitPrice: 10 } },
        { PriceListItem: { PriceListItemId: h.sandbox.state.refs.priceListItems[0]?.Id, Quantity: 1 } },
        { PriceListItem: { Id: h.sandbox.state.refs.priceListItems[1]?.Id, Quantity: 1 } },
      ],
    });
    expect(status).toBe(201);
    expect(body.Data.Status).toBe('Unfinished');
    // `Doklad` (Slovak contract, assumed): kept on the received order in sk only.
    expect(body.Data.Doklad).toBe('EO-1001');
    expect(body.Data.BusinessPartnerAddress.BusinessPartnerId).toBe(partner.Id);
    expect(body.Data.Items[1].PriceListItemId).toBe(h.sandbox.state.refs.priceListItems[0]?.Id);
    expect(body.Data.Items[2].PriceListItemId).toBe(h.sandbox.state.refs.priceListItems[1]?.Id);
    expect(body.Data.Items[0]).toMatchObject({
      VatRateType: 'BasicVatRate',
      VatRateId: h.sandbox.state.refs.vatRateIds.BasicVatRate,
      PriceWithoutVat: 20,
      Vat: 4.6,
      PriceWithVat: 24.6,
    });
    expect(body.Data.DocumentNumber).toMatch(/^OP\d{10}$/);
  });

  it('imports an invoice with a custom variable symbol and reports warnings', async () => {
    const { status, body } = await post('/v1/IssuedInvoices', {
      VariableSymbol: '20260042',
      ExchangeRate: 25,
      SellingPriceCode: 'NOPE',
      BusinessPartnerAddress: {
        DocumentAddressWithoutAddressBookLink: { CompanyName: 'Bez väzby s.r.o.', City: 'Senec' },
      },
      Items: [{ TextItem: { Text: 'Služba', UnitPrice: 100, VatRateType: 'ZeroVatRate' } }],
    });
    expect(status).toBe(201);
    expect(body.Data.VariableSymbol).toBe('20260042');
    expect(body.Warnings.map((w: { Code: string }) => w.Code).sort()).toEqual([
      'DocumentInHomeCurrencyCanNotHaveFilledExchangeRate',
      'SellingPriceCodeDoesNotExist',
    ]);
  });
});

describe('section 4.4: transfers', () => {
  it('received order → issue slip → issued invoice, with links and status changes; a second transfer is refused', async () => {
    const order = await firstWithStatus('ReceivedOrders', 'Unfinished');
    const slip = await post(`/v1/ReceivedOrders/${order.Id}/Transfer/ToIssueSlip/Fully`);
    expect(slip.status).toBe(201);
    expect(slip.body.Warnings).toEqual([]);
    // No document-level back reference (no real DTO has one): the items link back.
    expect(slip.body.Data).not.toHaveProperty('SourceDocuments');
    expect(slip.body.Data.Items.map((i: { ReceivedOrderItemId: string }) => i.ReceivedOrderItemId)).toEqual(
      order.Items.map((i: { Id: string }) => i.Id),
    );
    expect(slip.body.Data.Status).toBe('Unfinished');
    const after = await h.getJson(`/v1/ReceivedOrders/${order.Id}`);
    expect(after.Status).toBe('Finished');
    expect(after).not.toHaveProperty('TargetDocuments');
    expect(after.Items.map((i: { DeliveredQuantity: number }) => i.DeliveredQuantity)).toEqual(
      order.Items.map((i: { Quantity: number }) => i.Quantity),
    );
    expect(after.ModificationInfo.ModifiedDate > order.ModificationInfo.ModifiedDate).toBe(true);
    expect(await h.getJson(`/v1/ReceivedOrders/${order.Id}/status`)).toBe('Finished');

    const again = await post(`/v1/ReceivedOrders/${order.Id}/Transfer/ToIssueSlip/Fully`);
    expect(again.status).toBe(422);
    expectProblemShape(again.body, 422);

    const invoice = await post(`/v1/IssueSlips/${slip.body.Data.Id}/Transfer/ToIssuedInvoice/Fully`);
    expect(invoice.status).toBe(201);
    expect(invoice.body.Data.OrderNumber).toBe(slip.body.Data.DocumentNumber);
    expect(invoice.body.Data.Items[0].ReceivedOrderItemId).toBe(order.Items[0].Id);
    expect(invoice.body.Data.DueDate).toBeTruthy();
    expect((await h.getJson(`/v1/IssueSlips/${slip.body.Data.Id}`)).Status).toBe('Finished');
    expect((await post(`/v1/IssueSlips/${slip.body.Data.Id}/Transfer/ToIssuedInvoice/Fully`)).status).toBe(
      422,
    );
    expect(
      (await post('/v1/ReceivedOrders/3f2504e0-4f89-41d3-9a0c-0305e82c3301/Transfer/ToIssueSlip/Fully'))
        .status,
    ).toBe(404);
  });

  it('transfers several issue slips of one partner to one invoice (bulk)', async () => {
    const partner = await aPartner();
    const make = async () =>
      (
        await post('/v1/IssueSlips', {
          BusinessPartnerAddress: { DocumentAddressWithAddressBookLink: { Id: partner.Id } },
          Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 5 } }],
        })
      ).body.Data;
    const [a, b] = [await make(), await make()];
    expect((await post('/v1/IssueSlips/Transfer/ToIssuedInvoice/Fully', { Ids: [] })).status).toBe(422);
    const res = await post('/v1/IssueSlips/Transfer/ToIssuedInvoice/Fully', { Ids: [a.Id, b.Id] });
    expect(res.status).toBe(201);
    expect(res.body.Data.Items).toHaveLength(2);
    expect(res.body.Data.OrderNumber).toBe(`${a.DocumentNumber}, ${b.DocumentNumber}`);
  });

  it('issued offer → received order, issued order → received invoice', async () => {
    const partner = await aPartner();
    const doc = {
      BusinessPartnerAddress: { DocumentAddressWithAddressBookLink: { Id: partner.Id } },
      Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 5 } }],
    };
    const offer = (await post('/v1/IssuedOffers', doc)).body.Data;
    const order = await post(`/v1/IssuedOffers/${offer.Id}/Transfer/ToReceivedOrder/Fully`);
    expect(order.status).toBe(201);
    expect(order.body.Data.Status).toBe('Unfinished');
    expect(order.body.Data.DocumentNumber).toMatch(/^OP/);
    expect(order.body.Data.Items[0].IssuedOfferItemGuid).toBe(offer.Items[0].Id);
    const issuedOrder = (await post('/v1/IssuedOrders', doc)).body.Data;
    const invoice = await post(`/v1/IssuedOrders/${issuedOrder.Id}/Transfer/ToReceivedInvoice/Fully`);
    expect(invoice.status).toBe(201);
    expect(invoice.body.Data.BusinessPartnerAddress.Email).toBeNull();
    expect(invoice.body.Data.Items[0].IssuedOrderItemId).toBe(issuedOrder.Items[0].Id);
    expect(await h.getJson(`/v1/IssuedOrders/${issuedOrder.Id}/status`)).toBe('Finished');
  });

  it('deducts an advance invoice into an issued invoice once', async () => {
    const inv = (await h.getJson('/v1/IssuedInvoices?PageSize=1&PageNumber=1')).Items[0];
    const adv = (await h.getJson('/v1/IssuedAdvanceInvoices?PageSize=1&PageNumber=1')).Items[0];
    const res = await post('/v1/IssuedInvoices/AdvanceInvoiceDeduction', {
      IssuedInvoiceId: inv.Id,
      IssuedAdvanceInvoiceId: adv.Id,
    });
    expect(res.status).toBe(200);
    expect(res.body.Data.DocumentRecapitulation.TotalPrice).toBeCloseTo(
      inv.DocumentRecapitulation.TotalPrice - adv.DocumentRecapitulation.TotalPrice,
      1,
    );
    const again = await post('/v1/IssuedInvoices/AdvanceInvoiceDeduction', {
      IssuedInvoiceId: inv.Id,
      IssuedAdvanceInvoiceId: adv.Id,
    });
    expect(again.status).toBe(422);
  });
});

describe('exports: ISDOC and PDF', () => {
  it('answers 204 until the ISDOC is ready, then valid ISDOC 6.0.2', async () => {
    const created = (
      await post('/v1/IssuedInvoices', {
        Items: [{ TextItem: { Text: 'Konzultácia', UnitPrice: 80, Quantity: 2 } }],
      })
    ).body.Data;
    const first = await h.api(`/v1/IssuedInvoices/${created.Id}/isdoc`);
    expect(first.status).toBe(204);
    expect((await first.arrayBuffer()).byteLength).toBe(0);
    h.clock.advance(5000);
    const res = await h.api(`/v1/IssuedInvoices/${created.Id}/isdoc`);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(xml);
    const inv = doc.Invoice;
    expect(inv['@_xmlns']).toBe('http://isdoc.cz/namespace/2013');
    expect(inv['@_version']).toBe('6.0.2');
    expect(String(inv.ID)).toBe(created.DocumentNumber);
    expect(inv.UUID).toBe(String(created.Id).toUpperCase());
    for (const key of [
      'DocumentType',
      'IssueDate',
      'VATApplicable',
      'LocalCurrencyCode',
      'AccountingSupplierParty',
      'AccountingCustomerParty',
      'InvoiceLines',
      'TaxTotal',
      'LegalMonetaryTotal',
    ]) {
      expect(inv, key).toHaveProperty(key);
    }
    expect(inv.LocalCurrencyCode).toBe('EUR');
    expect(inv.LegalMonetaryTotal.PayableAmount).toBe(196.8);
  });

  it('exports seeded advance invoices as ISDOC at once', async () => {
    const adv = (await h.getJson('/v1/IssuedAdvanceInvoices?PageSize=1&PageNumber=1')).Items[0];
    const res = await h.api(`/v1/IssuedAdvanceInvoices/${adv.Id}/isdoc`);
    expect(res.status).toBe(200);
    expect(new XMLParser().parse(await res.text()).Invoice.DocumentType).toBe(4);
  });

  it('exports a small valid PDF; Language is required', async () => {
    const slip = (await h.getJson('/v1/IssueSlips?PageSize=1&PageNumber=1')).Items[0];
    const res = await h.api(`/v1/IssueSlips/${slip.Id}/pdf?Language=English`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const text = Buffer.from(await res.arrayBuffer()).toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    const xref = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    expect(text.slice(xref, xref + 4)).toBe('xref');
    expect((await h.api(`/v1/IssueSlips/${slip.Id}/pdf`)).status).toBe(422);
  });
});

describe('section 4.5: sending, liquidation, bank documents', () => {
  it('sends an e-mail into the outbox', async () => {
    const inv = (await h.getJson('/v1/IssuedInvoices?PageSize=1&PageNumber=1')).Items[0];
    const res = await post(`/v1/IssuedInvoices/${inv.Id}/Send/Email`, {
      To: 'zakaznik@example.sk',
      Subject: 'Faktúra',
    });
    expect(res.status).toBe(200);
    const outbox = await jsonOf(await fetch(`${h.sandbox.baseUrl}/_sandbox/outbox`));
    expect(outbox.messages.at(-1)).toMatchObject({
      DocumentId: inv.Id,
      To: ['zakaznik@example.sk'],
      Subject: 'Faktúra',
    });
    expect((await post(`/v1/IssuedInvoices/${inv.Id}/Send/Email`, { To: 'not-an-address' })).status).toBe(
      422,
    );
  });

  it('sends through the e-invoicing network (Invoice Response, outside Slovakia); the status moves over time and keeps its history', async () => {
    const cz = await harness({
      eInvoicing: {
        statuses: 'invoiceResponse',
        stepMs: 1000,
        transportFailureProbability: 0,
        responseWeights: { AP: 1, RE: 0, CA: 0, UQ: 0 },
        paidProbability: 1,
      },
    });
    try {
      const inv = (await cz.getJson('/v1/IssuedInvoices?PageSize=20&PageNumber=1')).Items.find(
        (i: { BusinessPartnerAddress: { IdentificationNumber: string | null } }) =>
          i.BusinessPartnerAddress.IdentificationNumber,
      );
      const sent = await jsonOf(
        await cz.api(`/v1/IssuedInvoices/${inv.Id}/Send/EInvoice`, { method: 'POST' }),
      );
      expect(sent.Status).toBe('Queued');
      const status = () => cz.getJson(`/v1/EInvoicing/Sendings/${sent.SendingId}`);
      expect((await status()).Status).toBe('Queued');
      cz.clock.advance(2000);
      expect((await status()).Status).toBe('Delivered');
      cz.clock.advance(10_000);
      const final = await status();
      expect(final.History.map((s: { ResponseCode: string | null }) => s.ResponseCode)).toEqual([
        null,
        null,
        null,
        'AB',
        'IP',
        'AP',
        'PD',
      ]);
      expect(final.IsFinal).toBe(true);
      expect(final).not.toHaveProperty('MessageLevelStatus');
    } finally {
      await cz.sandbox.close();
    }
  });

  it('sk: the network answers with Message Level Status, no Invoice Response', async () => {
    const truth = await jsonOf(await fetch(`${h.sandbox.baseUrl}/_sandbox/einvoicing`));
    const clean = truth.invoices.find((i: { b2b: boolean; verdict: unknown }) => i.b2b && i.verdict === null);
    const sent = await post(`/v1/IssuedInvoices/${clean.id}/Send/EInvoice`);
    expect(sent.status).toBe(200);
    expect(sent.body.Status).toBe('Queued');
    h.clock.advance(10_000);
    const final = await h.getJson(`/v1/EInvoicing/Sendings/${sent.body.SendingId}`);
    expect(final.IsFinal).toBe(true);
    expect(['AP', 'AB']).toContain(final.MessageLevelStatus);
    expect(final.ResponseCode).toBeNull();
    expect(final.History.map((s: { Status: string }) => s.Status).slice(0, 3)).toEqual([
      'Queued',
      'Sent',
      'Delivered',
    ]);
    expect((await h.api('/v1/EInvoicing/Sendings/3f2504e0-4f89-41d3-9a0c-0305e82c3301')).status).toBe(404);
    const order = (await h.getJson('/v1/ReceivedOrders?PageSize=1&PageNumber=1')).Items[0];
    expect((await post(`/v1/ReceivedOrders/${order.Id}/Send/EInvoice`)).status).toBe(422);
  });

  it('answers the payment state (RestToPay, Unpaid) and liquidates fully or in part; a liquidation is read by its own id', async () => {
    const created = (
      await post('/v1/IssuedAdvanceInvoices', { Items: [{ TextItem: { Text: 'Záloha', UnitPrice: 100 } }] })
    ).body.Data;
    const before = await h.getJson(`/v1/IssuedAdvanceInvoices/${created.Id}/RestToPay`);
    expect(before).toMatchObject({
      Id: created.Id,
      Number: created.DocumentNumber,
      RestToPay: 123,
      LiquidationInfos: [],
    });
    const res = await post(`/v1/IssuedAdvanceInvoices/${created.Id}/Liquidate/Standalone/Fully`, {
      Date: '2026-06-01T00:00:00',
      Note: 'hotovosť',
    });
    expect(res.status).toBe(201);
    expect(res.body.Warnings).toEqual([]);
    expect(res.body.Data).toMatchObject({
      IssuedInvoiceId: created.Id,
      DocumentCurrencyAmount: 123,
      Note: 'hotovosť',
    });
    const liquidation = await h.getJson(`/v1/IssuedAdvanceInvoices/Liquidation/${res.body.Data.Id}`);
    expect(liquidation).toEqual(res.body.Data);
    // The liquidation id is not a document id: the invoice's id there is unknown.
    expect((await h.api(`/v1/IssuedAdvanceInvoices/Liquidation/${created.Id}`)).status).toBe(404);
    expect((await h.getJson(`/v1/IssuedAdvanceInvoices/${created.Id}/RestToPay`)).RestToPay).toBe(0);
    expect(
      (await post(`/v1/IssuedAdvanceInvoices/${created.Id}/Liquidate/Standalone/Fully`, {})).status,
    ).toBe(422);

    const invoice = (
      await post('/v1/IssuedInvoices', { Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 100 } }] })
    ).body.Data;
    const part = await post(`/v1/IssuedInvoices/${invoice.Id}/Liquidate/Standalone/Partially`, {
      DocumentCurrencyAmount: 23,
    });
    expect(part.status).toBe(201);
    expect(
      (
        await post(`/v1/IssuedInvoices/${invoice.Id}/Liquidate/Standalone/Partially`, {
          DocumentCurrencyAmount: 101,
        })
      ).status,
    ).toBe(422);
    const unpaid = await h.getJson(
      `/v1/IssuedInvoices/Unpaid?PageSize=100&PageNumber=1&After=${invoice.Id.replace(/.$/, '0')}`,
    );
    const mine = unpaid.Items.find((u: { Id: string }) => u.Id === invoice.Id);
    expect(mine).toMatchObject({
      RestToPay: 100,
      LiquidationInfos: [{ Id: part.body.Data.Id, DocumentCurrencyAmount: 23 }],
    });
    const all = await h.getJson('/v1/IssuedInvoices/Unpaid?PageSize=100&PageNumber=1');
    expect(all.Items.every((u: { RestToPay: number }) => u.RestToPay > 0)).toBe(true);
  });

  it('creates bank documents, with liquidation of the invoice they pay', async () => {
    const inv = (
      await post('/v1/IssuedInvoices', { Items: [{ TextItem: { Text: 'Tovar', UnitPrice: 10 } }] })
    ).body.Data;
    const res = await post('/v1/BankDocuments/Receipts/WithLiquidation', {
      Items: [{ Amount: 12.3, DocumentId: inv.Id }],
    });
    expect(res.status).toBe(201);
    expect(res.body.Data.Kind).toBe('Receipt');
    expect((await h.getJson(`/v1/IssuedInvoices/${inv.Id}/RestToPay`)).RestToPay).toBe(0);
    expect((await post('/v1/BankDocuments/Payments', { Items: [{ Amount: 5 }] })).status).toBe(201);
    expect((await post('/v1/BankDocuments/Payments', { Items: [] })).status).toBe(422);
  });
});
