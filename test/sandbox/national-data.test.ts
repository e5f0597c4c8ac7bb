/**
 * Each national variant seeds its own company: cz a Czech one (VAT 21/12/0 %, CZK, IČO with its
 * check digit, DIČ `CZ<IČO>`, PSČ `NNN NN`, the Czech scope), sk the Slovak one exactly as before
 * (VAT 23/19/5/0 %, EUR, the same seeded records for a seed).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { validateIsdoc } from '#functions/core/actions/archive-isdoc/isdoc-validation.js';
import { icoCheckDigit, isValidIco } from '#sandbox/czech-data.js';
import { runSandboxCli } from '#sandbox/main.js';
import { money } from '#sandbox/random.js';
import { type Harness, harness } from './helpers.js';

let cz: Harness;
let sk: Harness;
beforeAll(async () => {
  [cz, sk] = await Promise.all([harness({ variant: 'cz' }), harness({ variant: 'sk' })]);
});
afterAll(async () => {
  await Promise.all([cz?.sandbox.close(), sk?.sandbox.close()]);
});

const all = (h: Harness, collection: string): ApiRecord[] =>
  h.sandbox.state.list(collection, { pageSize: 1_000_000, pageNumber: 1 }).items;

/** VAT percent by VAT rate type, as the company's VAT rate list says. */
function percents(h: Harness): Record<string, number> {
  return Object.fromEntries(all(h, 'VatRates').map((v) => [String(v.VatRateType), Number(v.VatPercent)]));
}

function currencyCode(h: Harness, id: unknown): unknown {
  return all(h, 'Currencies').find((c) => c.Id === id)?.Code;
}

/** Every item's VAT from its rate, and the recapitulation from the items. */
function expectConsistentTotals(document: ApiRecord, rates: Record<string, number>): void {
  const items = document.Items as Record<string, number | string>[];
  const sums = new Map<string, { base: number; vat: number }>();
  for (const item of items) {
    const rate = rates[String(item.VatRateType)];
    expect(rate, `${document.DocumentNumber}: ${item.VatRateType}`).toBeDefined();
    expect(item.Vat).toBe(money((Number(item.PriceWithoutVat) * Number(rate)) / 100));
    expect(item.PriceWithVat).toBe(money(Number(item.PriceWithoutVat) + Number(item.Vat)));
    const s = sums.get(String(item.VatRateType)) ?? { base: 0, vat: 0 };
    sums.set(String(item.VatRateType), {
      base: money(s.base + Number(item.PriceWithoutVat)),
      vat: money(s.vat + Number(item.Vat)),
    });
  }
  const recap = document.DocumentRecapitulation as {
    TotalPrice: number;
    VatRateSums: { VatRateType: string; PriceWithoutVat: number; Vat: number }[];
  };
  expect(
    Object.fromEntries(
      recap.VatRateSums.map((s) => [s.VatRateType, { base: s.PriceWithoutVat, vat: s.Vat }]),
    ),
  ).toEqual(Object.fromEntries(sums));
  const total = [...sums.values()].reduce((t, s) => money(t + s.base + s.vat), 0);
  expect(recap.TotalPrice).toBe(total);
}

describe('IČO check digit', () => {
  it('accepts real registration numbers and computes c = (11 − Σ w·d mod 11) mod 10 with weights 8…2', () => {
    // Public registration numbers: a ministry (00006947) and a company (27074358).
    expect(isValidIco('00006947')).toBe(true);
    expect(isValidIco('27074358')).toBe(true);
    expect(isValidIco('27074359')).toBe(false);
    expect(isValidIco('2707435')).toBe(false);
    expect(icoCheckDigit('2707435')).toBe(8);
    expect(icoCheckDigit('0000000')).toBe(1); // Σ mod 11 = 0

    expect(icoCheckDigit('0000006')).toBe(0); // 6·2 = 12, 12 mod 11 = 1
    expect(() => icoCheckDigit('12a4567')).toThrow(/seven digits/);
  });

  it('makes exactly one of the ten last digits valid for any seven digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{7}$/), (first7) => {
        const valid = [...'0123456789'].filter((d) => isValidIco(`${first7}${d}`));
        expect(valid).toEqual([String(icoCheckDigit(first7))]);
      }),
    );
  });
});

describe('sandbox, cz variant: a Czech company', () => {
  it('has the Czech VAT rates (21 / 12 / 0 %, Czech names) and CZK as home currency', () => {
    const rates = all(cz, 'VatRates').map((v) => [v.VatRateType, v.Name, v.VatPercent, v.ValidFrom]);
    expect(rates).toHaveLength(3);
    expect(rates).toEqual(
      expect.arrayContaining([
        ['BasicVatRate', 'Základní sazba', 21, '2024-01-01T00:00:00'],
        ['FirstReducedVatRate', 'Snížená sazba', 12, '2024-01-01T00:00:00'],
        ['ZeroVatRate', 'Nulová sazba', 0, '2024-01-01T00:00:00'],
      ]),
    );
    expect(currencyCode(cz, cz.sandbox.state.refs.homeCurrency)).toBe('CZK');
    for (const list of ['CashRegisters', 'SellingPrices']) {
      for (const r of all(cz, list)) expect(currencyCode(cz, r.CurrencyId), list).toBe('CZK');
    }
    expect(all(cz, 'Banks').every((b) => /CZ/.test(String(b.Swift)))).toBe(true);
  });

  it('seeds partners with valid IČO, DIČ CZ<IČO>, Czech addresses (PSČ NNN NN, country CZ)', () => {
    const partners = all(cz, 'BusinessPartners');
    const companies = partners.filter((p) => p.IdentificationNumber !== null);
    expect(companies.length).toBeGreaterThan(0);
    for (const p of companies) {
      expect(isValidIco(String(p.IdentificationNumber)), String(p.IdentificationNumber)).toBe(true);
      expect(p.TaxIdentificationNumber).toBe(`CZ${p.IdentificationNumber}`);
    }
    for (const p of partners) {
      expect(p.Country).toBe('CZ');
      expect(p.PostCode).toMatch(/^\d{3} \d{2}$/);
      expect(p.PhoneNumber).toMatch(/^\+420 [67]\d{2} \d{3} \d{3}$/);
      expect(String(p.Email)).toMatch(/@[a-z0-9]+\.cz$|@gmail\.com$/);
    }
    const cities = new Set(all(cz, 'CityPostCodes').map((c) => c.City));
    for (const p of partners) expect(cities.has(p.City), String(p.City)).toBe(true);
    expect(cities.has('Praha')).toBe(true);
  });

  it('seeds documents at Czech rates in CZK (a few in EUR at 25.21) with consistent totals', () => {
    const rates = percents(cz);
    let documents = 0;
    for (const collection of ['IssuedInvoices', 'ReceivedOrders', 'ReceivedInvoices', 'IssuedOffers']) {
      for (const d of all(cz, collection)) {
        documents += 1;
        expectConsistentTotals(d, rates);
        const code = currencyCode(cz, d.CurrencyId);
        expect(['CZK', 'EUR'], `${d.DocumentNumber}: ${code}`).toContain(code);
        expect(d.ExchangeRate).toBe(code === 'EUR' ? 25.21 : null);
        expect((d.BusinessPartnerAddress as { Country: string }).Country).toBe('CZ');
      }
    }
    expect(documents).toBeGreaterThan(100);
  });

  it('exports ISDOC with the Czech supplier and the Czech VAT percents', async () => {
    const invoice = all(cz, 'IssuedInvoices').find((d) =>
      (d.Items as { VatRateType: string }[]).some((i) => i.VatRateType === 'BasicVatRate'),
    );
    const xml = await (await cz.api(`/v1/IssuedInvoices/${invoice?.Id}/isdoc`)).text();
    expect(xml).toContain('<PartyIdentification><ID>27123456</ID></PartyIdentification>');
    expect(isValidIco('27123456')).toBe(true);
    expect(xml).toContain('<CompanyID>CZ27123456</CompanyID>');
    expect(xml).toContain('<Percent>21</Percent>');
    expect(xml).not.toMatch(/<Percent>(23|19|5)<\/Percent>/);
    // Valid against the official ISDOC 6.0.2 schema.
    expect(() => validateIsdoc(xml, String(invoice?.DocumentNumber))).not.toThrow();
  });

  it('imports at 21 and 12 % and refuses a rate the company lacks, naming the item', async () => {
    const ok = await cz.api('/v1/ReceivedOrders', {
      method: 'POST',
      json: {
        Items: [
          { TextItem: { Text: 'Káva', Quantity: 2, UnitPrice: 100, VatRateType: 'FirstReducedVatRate' } },
          { TextItem: { Text: 'Hrnek', Quantity: 1, UnitPrice: 200, VatRateType: 'BasicVatRate' } },
        ],
      },
    });
    expect(ok.status).toBe(201);
    const order = ((await ok.json()) as { Data: ApiRecord }).Data;
    expect((order.Items as { Vat: number }[]).map((i) => i.Vat)).toEqual([24, 42]);
    expect((order.DocumentRecapitulation as { TotalPrice: number }).TotalPrice).toBe(466);
    expect(currencyCode(cz, order.CurrencyId)).toBe('CZK');
    const refused = await cz.api('/v1/ReceivedOrders', {
      method: 'POST',
      json: {
        Items: [{ TextItem: { Text: 'X', Quantity: 1, UnitPrice: 1, VatRateType: 'SecondReducedVatRate' } }],
      },
    });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(body.errors)).toEqual(['Items[0].TextItem.VatRateType']);
  });

  it('resolves a Czech registration number from its registry', async () => {
    const res = await cz.api('/v1/BusinessPartners', {
      method: 'POST',
      json: { IdentificationNumber: '26431009', AddressResolutionMode: 'ByIdentificationNumber' },
    });
    expect(res.status).toBe(201);
    const partner = ((await res.json()) as { Data: ApiRecord }).Data;
    expect(partner).toMatchObject({
      CompanyName: 'Vltava Soft s.r.o.',
      City: 'Praha',
      Country: 'CZ',
      TaxIdentificationNumber: 'CZ26431009',
    });
    expect(isValidIco('26431009')).toBe(true);
  });

  it('grants the Czech scope (Mph.OpenApi.Access.Cz) and no other', async () => {
    const { credentials, authUrl } = cz.sandbox;
    expect(credentials.scope).toBe('Mph.OpenApi.Access.Cz');
    const token = (scope: string) =>
      fetch(`${authUrl}/connect/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          scope,
        }),
      });
    const granted = await token('Mph.OpenApi.Access.Cz');
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ scope: 'Mph.OpenApi.Access.Cz' });
    expect((await token('Service.OpenApi.Access.Sk')).status).toBe(400);
    const discovery = (await (await fetch(`${authUrl}/.well-known/openid-configuration`)).json()) as {
      scopes_supported: string[];
    };
    expect(discovery.scopes_supported).toEqual(['Mph.OpenApi.Access.Cz']);
  });

  it('prints the Czech scope in its start banner', async () => {
    const lines: string[] = [];
    const sandbox = await runSandboxCli(
      ['--port', '0', '--variant', 'cz', '--documents', '10', '--partners', '2'],
      {
        stdout: (t) => lines.push(t),
        env: {},
      },
    );
    try {
      const out = lines.join('\n');
      expect(out).toMatch(/scope:\s+Mph\.OpenApi\.Access\.Cz/);
      expect(out).not.toContain('Service.OpenApi.Access.Sk');
      expect(out).toContain('variant cz');
    } finally {
      await sandbox?.close();
    }
  });
});

describe('sandbox, sk variant: the Slovak company, unchanged', () => {
  it('has the Slovak VAT rates (23 / 19 / 5 / 0 %) and EUR as home currency', () => {
    const rates = all(sk, 'VatRates').map((v) => [v.VatRateType, v.Name, v.VatPercent]);
    expect(rates).toEqual(
      expect.arrayContaining([
        ['BasicVatRate', 'Základná sadzba', 23],
        ['FirstReducedVatRate', 'Prvá znížená sadzba', 19],
        ['SecondReducedVatRate', 'Druhá znížená sadzba', 5],
        ['ZeroVatRate', 'Nulová sadzba', 0],
      ]),
    );
    expect(rates).toHaveLength(4);
    expect(currencyCode(sk, sk.sandbox.state.refs.homeCurrency)).toBe('EUR');
    expect(sk.sandbox.credentials.scope).toBe('Service.OpenApi.Access.Sk');
    const rates23 = percents(sk);
    // Every issued invoice adds up, but the few seeded with a typed-over line net (an e-invoicing
    // defect for the pre-flight to catch, sandbox/einvoice-defects.ts): those are domestic B2B only.
    const invoices = all(sk, 'IssuedInvoices');
    const defective = invoices.filter((d) => {
      try {
        expectConsistentTotals(d, rates23);
        return false;
      } catch {
        return true;
      }
    });
    const b2b = invoices.filter((d) => {
      const a = d.BusinessPartnerAddress as { Country?: unknown; TaxIdentificationNumber?: unknown } | null;
      return a?.Country === 'SK' && typeof a.TaxIdentificationNumber === 'string';
    });
    for (const d of defective) expect(b2b, String(d.DocumentNumber)).toContain(d);
    expect(defective.length).toBeLessThanOrEqual(Math.ceil(b2b.length * 0.2));
    expect(invoices.length - defective.length).toBeGreaterThan(0);
  });

  it('seeds the same records for a seed as before the Czech company existed', () => {
    // Seed 1, 220 documents, 12 partners: values of the seeded Slovak company, pinned.
    const partners = all(sk, 'BusinessPartners')
      .slice(0, 3)
      .map((p) => [
        p.IdentificationNumber,
        p.TaxIdentificationNumber,
        p.CompanyName,
        p.City,
        p.PostCode,
        p.Country,
      ]);
    expect(partners).toEqual([
      [null, null, 'Mária Molnárová', 'Trnava', '917 01', 'SK'],
      ['48379630', '2060916732', 'Šariš Agro s.r.o.', 'Liptovský Mikuláš', '031 01', 'SK'],
      ['38548163', 'SK2081677646', 'Kriváň Soft a.s.', 'Michalovce', '071 01', 'SK'],
    ]);
    const invoices = all(sk, 'IssuedInvoices')
      .slice(0, 2)
      .map((d) => [d.DocumentNumber, (d.DocumentRecapitulation as { TotalPrice: number }).TotalPrice]);
    expect(invoices).toEqual([
      ['FA2025000052', 253.7],
      ['FA2025000056', 84.09],
    ]);
  });
});
