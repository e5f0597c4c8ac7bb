import { describe, expect, it } from 'vitest';
import type { SellerParty } from '#functions/core/einvoicing/business-terms.js';
import { participantIdOf } from '#functions/core/einvoicing/participant.js';
import { brokenRules, preflight, vatPercentFrom } from '#functions/core/einvoicing/preflight.js';
import { einvoiceRules } from '#functions/core/einvoicing/rules.js';
import { type Doc, invoice, slovakRates, validInvoice } from './documents.js';

const seller: SellerParty = {
  name: 'Dodávateľ s.r.o.',
  taxIdentificationNumber: 'SK2020123456',
  identificationNumber: '12345678',
  street: 'Karadžičova 8',
  city: 'Bratislava',
  postCode: '821 08',
  country: 'SK',
};
const ctx = { vatPercent: vatPercentFrom(slovakRates), seller };

const reverseChargeInvoice = () =>
  invoice({
    number: 'FA2027000002',
    reverseCharge: true,
    buyerTaxId: 'SK2029876543',
    variableSymbol: null,
    orderNumber: 'OBJ-77',
    lines: [
      {
        text: 'Stavebné práce',
        quantity: 1,
        unitPrice: 12_000,
        vatRateType: 'BasicVatRate',
        priceVatType: 'WithoutVat',
        discount: 0,
      },
    ],
  });

/** Per rule: a document that passes it and a mutation of it that breaks it, with the field named. */
const cases: Record<
  string,
  { base?: () => Doc; breakIt: (d: Doc) => void; field: string; sellerOverride?: Partial<SellerParty> }
> = {
  'BR-02': {
    breakIt: (d) => {
      d.DocumentNumber = null;
    },
    field: 'DocumentNumber',
  },
  'BR-03': {
    breakIt: (d) => {
      d.IssueDate = null;
    },
    field: 'IssueDate',
  },
  'BR-05': {
    breakIt: (d) => {
      d.CurrencyId = null;
    },
    field: 'CurrencyId',
  },
  'BR-06': { breakIt: () => {}, sellerOverride: { name: null }, field: 'seller.CompanyName' },
  'BR-07': {
    breakIt: (d) => {
      d.BusinessPartnerAddress.CompanyName = null;
      d.BusinessPartnerAddress.Name = null;
    },
    field: 'BusinessPartnerAddress.CompanyName',
  },
  'BR-08': {
    breakIt: () => {},
    sellerOverride: { street: null, city: null, postCode: null, country: null },
    field: 'seller',
  },
  'BR-09': { breakIt: () => {}, sellerOverride: { country: null }, field: 'seller.Country' },
  'BR-10': {
    breakIt: (d) => {
      d.BusinessPartnerAddress = null;
    },
    field: 'BusinessPartnerAddress',
  },
  'BR-11': {
    breakIt: (d) => {
      d.BusinessPartnerAddress.Country = null;
    },
    field: 'BusinessPartnerAddress.Country',
  },
  'SK-BUYER-ADDRESS': {
    breakIt: (d) => {
      d.BusinessPartnerAddress.PostCode = null;
    },
    field: 'BusinessPartnerAddress.PostCode',
  },
  'SK-SELLER-ADDRESS': { breakIt: () => {}, sellerOverride: { street: null }, field: 'seller.Street' },
  'BR-16': {
    breakIt: (d) => {
      d.Items = [];
      d.DocumentRecapitulation.VatRateSums = [];
      d.DocumentRecapitulation.TotalPrice = 0;
    },
    field: 'Items',
  },
  'BR-25': {
    breakIt: (d) => {
      d.Items[1].Text = null;
    },
    field: 'Items[1].Text',
  },
  'BR-CO-10': {
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums[0].PriceWithoutVat += 0.01;
    },
    field: 'DocumentRecapitulation.VatRateSums',
  },
  'BR-CO-13': {
    breakIt: (d) => {
      d.DocumentRecapitulation.TotalPrice += 0.01;
    },
    field: 'DocumentRecapitulation.TotalPrice',
  },
  'BR-CO-17': {
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums[0].Vat += 1;
    },
    field: 'DocumentRecapitulation.VatRateSums[0].Vat',
  },
  'BR-CO-18': {
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums = [];
    },
    field: 'DocumentRecapitulation.VatRateSums',
  },
  'BR-CO-25': {
    breakIt: (d) => {
      d.DueDate = null;
    },
    field: 'DueDate',
  },
  'BR-S-02': {
    breakIt: () => {},
    sellerOverride: { taxIdentificationNumber: null },
    field: 'seller.TaxIdentificationNumber',
  },
  'BR-S-08': {
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums[0].PriceWithoutVat += 1;
    },
    field: 'DocumentRecapitulation.VatRateSums[0].PriceWithoutVat',
  },
  'BR-E-08': {
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums[2].PriceWithoutVat += 0.01;
    },
    field: 'DocumentRecapitulation.VatRateSums[2].PriceWithoutVat',
  },
  'BR-AE-08': {
    base: reverseChargeInvoice,
    breakIt: (d) => {
      d.DocumentRecapitulation.VatRateSums[0].PriceWithoutVat -= 0.01;
    },
    field: 'DocumentRecapitulation.VatRateSums[0].PriceWithoutVat',
  },
  'BR-AE-02': {
    base: reverseChargeInvoice,
    breakIt: (d) => {
      d.BusinessPartnerAddress.TaxIdentificationNumber = null;
      d.BusinessPartnerAddress.IdentificationNumber = null;
    },
    field: 'BusinessPartnerAddress.TaxIdentificationNumber',
  },
  'BR-E-10': {
    breakIt: (d) => {
      d.Items[2].Note = null;
    },
    field: 'Items[2].Note',
  },
  'PEPPOL-EN16931-R003': {
    breakIt: (d) => {
      d.VariableSymbol = null;
      d.OrderNumber = null;
    },
    field: 'OrderNumber',
  },
  'PEPPOL-EN16931-R008': {
    breakIt: (d) => {
      d.BusinessPartnerAddress.Street = '  ';
    },
    field: 'BusinessPartnerAddress.Street',
  },
  'PEPPOL-EN16931-R010': {
    breakIt: (d) => {
      d.BusinessPartnerAddress.TaxIdentificationNumber = null;
    },
    field: 'BusinessPartnerAddress.TaxIdentificationNumber',
  },
  'PEPPOL-EN16931-R020': {
    breakIt: () => {},
    sellerOverride: { taxIdentificationNumber: 'CZ12345678' },
    field: 'seller.TaxIdentificationNumber',
  },
  'PEPPOL-EN16931-R053': {
    breakIt: (d) => {
      const sums = d.DocumentRecapitulation.VatRateSums;
      const first = sums[0];
      const half = Math.round(first.PriceWithoutVat * 50) / 100;
      const halfVat = Math.round(first.Vat * 50) / 100;
      sums.splice(
        0,
        1,
        { ...first, PriceWithoutVat: half, Vat: halfVat },
        {
          ...first,
          PriceWithoutVat: Math.round((first.PriceWithoutVat - half) * 100) / 100,
          Vat: Math.round((first.Vat - halfVat) * 100) / 100,
        },
      );
    },
    field: 'DocumentRecapitulation.VatRateSums[1]',
  },
  'PEPPOL-EN16931-R120': {
    breakIt: (d) => {
      d.Items[0].Quantity = 4;
    },
    field: 'Items[0].PriceWithoutVat',
  },
};

describe('e-invoice pre-flight rules', () => {
  it('every rule has a case, and every case a rule', () => {
    expect(Object.keys(cases).sort()).toEqual(einvoiceRules.map((r) => r.id).sort());
  });

  it('the valid documents pass every rule', () => {
    for (const doc of [validInvoice(), reverseChargeInvoice()]) {
      const result = preflight(doc, ctx);
      expect(result.findings).toEqual([]);
      expect(result.passed).toBe(true);
    }
  });

  for (const rule of einvoiceRules) {
    it(`${rule.id}: passes the valid document, fails the broken one and names ${cases[rule.id]?.field}`, () => {
      const c = cases[rule.id]!;
      const base = (c.base ?? validInvoice)();
      const only = [rule];
      const runCtx = c.sellerOverride ? { ...ctx, seller: { ...seller, ...c.sellerOverride } } : ctx;
      expect(preflight(structuredClone(base), ctx, only).findings).toEqual([]);
      const broken = structuredClone(base);
      c.breakIt(broken);
      const result = preflight(broken, runCtx, only);
      expect(result.passed).toBe(false);
      expect(result.findings.map((f) => f.rule)).toContain(rule.id);
      expect(result.findings.map((f) => f.field)).toContain(c.field);
      for (const f of result.findings)
        expect(f.message).toContain(f.field === 'seller' ? 'seller' : f.field.split('[')[0]);
    });
  }

  it('quotes the official texts with their ids, and the SK labels are marked as Slovak', () => {
    for (const rule of einvoiceRules) {
      if (rule.source === 'EN 16931') expect(rule.text.startsWith(`[${rule.id}]-`)).toBe(true);
      if (rule.id.startsWith('SK-')) expect(rule.source).toBe('Slovakia');
      expect(rule.reads.length).toBeGreaterThan(0);
    }
  });

  it('without a known seller the seller rules are reported as not checked, never as passed silently', () => {
    const result = preflight(validInvoice(), { vatPercent: ctx.vatPercent });
    expect(result.passed).toBe(true);
    expect(result.notChecked).toEqual([
      'BR-06',
      'BR-08',
      'BR-09',
      'SK-SELLER-ADDRESS',
      'BR-S-02',
      'PEPPOL-EN16931-R020',
    ]);
  });

  it('an invoice missing the DIČ, the street and with wrong line arithmetic lists every rule broken', () => {
    const doc = validInvoice();
    doc.BusinessPartnerAddress.TaxIdentificationNumber = null;
    doc.BusinessPartnerAddress.Street = null;
    doc.Items[0].PriceWithoutVat = 150;
    expect(brokenRules(preflight(doc, ctx))).toEqual([
      'SK-BUYER-ADDRESS',
      'PEPPOL-EN16931-R010',
      'BR-CO-10',
      'BR-CO-13',
      'BR-S-08',
      'PEPPOL-EN16931-R120',
    ]);
  });

  it('rounding: the document total may differ from the lines by the rounding step only', () => {
    const doc = validInvoice();
    const exact = doc.DocumentRecapitulation.TotalPrice;
    doc.DocumentRecapitulation.Rounding = 'MathToOne';
    doc.DocumentRecapitulation.TotalPrice = exact + 0.4;
    expect(brokenRules(preflight(doc, ctx))).toEqual([]);
    doc.DocumentRecapitulation.TotalPrice = exact + 1.01;
    expect(brokenRules(preflight(doc, ctx))).toEqual(['BR-CO-13']);
  });

  it('derives the participant id 0245:<DIČ> from a DIČ or an SK VAT id, and nothing else', () => {
    expect(participantIdOf('2021234567')).toBe('0245:2021234567');
    expect(participantIdOf('SK 2021234567')).toBe('0245:2021234567');
    expect(participantIdOf('CZ12345678')).toBeNull();
    expect(participantIdOf('202123456')).toBeNull();
    expect(participantIdOf(null)).toBeNull();
  });
});
