/**
 * Property test of the pre-flight: documents generated from the standard (documents.ts) pass, and
 * each single mutation that breaks a rule — described here from the rule's text, not from the
 * checker — is caught by that rule.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brokenRules, preflight, vatPercentFrom } from '#functions/core/einvoicing/preflight.js';
import { type Doc, slovakRates, validInvoiceArb } from './documents.js';

const ctx = { vatPercent: vatPercentFrom(slovakRates) };

interface Mutation {
  rule: string;
  applies: (d: Doc) => boolean;
  apply: (d: Doc, pick: number, delta: number) => void;
}

const sums = (d: Doc) => d.DocumentRecapitulation.VatRateSums as Doc[];
const at = <T>(list: T[], pick: number) => list[pick % list.length] as T;
const cents = (n: number) => Math.round(n * 100) / 100;
const exemptLines = (d: Doc) =>
  (d.Items as Doc[]).filter((i) => i.VatRateType === 'ZeroVatRate' && !d.IsReverseCharge);
const standardSums = (d: Doc) =>
  d.IsReverseCharge ? [] : sums(d).filter((s) => s.VatRateType !== 'ZeroVatRate');

const always = () => true;
const mutations: Mutation[] = [
  {
    rule: 'BR-02',
    applies: always,
    apply: (d) => {
      d.DocumentNumber = null;
    },
  },
  {
    rule: 'BR-03',
    applies: always,
    apply: (d) => {
      d.IssueDate = null;
    },
  },
  {
    rule: 'BR-05',
    applies: always,
    apply: (d) => {
      d.CurrencyId = null;
    },
  },
  {
    rule: 'BR-07',
    applies: always,
    apply: (d) => {
      d.BusinessPartnerAddress.CompanyName = null;
      d.BusinessPartnerAddress.Name = null;
    },
  },
  {
    rule: 'BR-10',
    applies: always,
    apply: (d) => {
      d.BusinessPartnerAddress = null;
    },
  },
  {
    rule: 'BR-11',
    applies: always,
    apply: (d) => {
      d.BusinessPartnerAddress.Country = null;
    },
  },
  {
    rule: 'SK-BUYER-ADDRESS',
    applies: always,
    apply: (d, pick) => {
      d.BusinessPartnerAddress[at(['Street', 'City', 'PostCode', 'Country'], pick)] = null;
    },
  },
  {
    rule: 'BR-16',
    applies: always,
    apply: (d) => {
      d.Items = [];
    },
  },
  {
    rule: 'BR-25',
    applies: always,
    apply: (d, pick) => {
      at(d.Items as Doc[], pick).Text = null;
    },
  },
  // Σ of the recapitulation's bases differs from Σ of the line nets by at least a cent.
  {
    rule: 'BR-CO-10',
    applies: always,
    apply: (d, pick, delta) => {
      at(sums(d), pick).PriceWithoutVat = cents(at(sums(d), pick).PriceWithoutVat + delta);
    },
  },
  // The total with VAT moves by at least a cent with no rounding declared.
  {
    rule: 'BR-CO-13',
    applies: always,
    apply: (d, _p, delta) => {
      d.DocumentRecapitulation.TotalPrice = cents(d.DocumentRecapitulation.TotalPrice - delta);
    },
  },
  // VAT of a standard-rated sum off by a whole unit or more.
  {
    rule: 'BR-CO-17',
    applies: (d) => standardSums(d).length > 0,
    apply: (d, pick, delta) => {
      at(standardSums(d), pick).Vat = cents(at(standardSums(d), pick).Vat + 1 + delta);
    },
  },
  {
    rule: 'BR-CO-18',
    applies: always,
    apply: (d) => {
      d.DocumentRecapitulation.VatRateSums = [];
    },
  },
  {
    rule: 'BR-CO-25',
    applies: (d) => d.DocumentRecapitulation.TotalPrice > 0,
    apply: (d) => {
      d.DueDate = null;
    },
  },
  // A standard-rated base off its lines by a whole unit or more.
  {
    rule: 'BR-S-08',
    applies: (d) => standardSums(d).length > 0,
    apply: (d, pick, delta) => {
      const s = at(standardSums(d), pick);
      s.PriceWithoutVat = cents(s.PriceWithoutVat + 1 + delta);
    },
  },
  {
    rule: 'BR-E-08',
    applies: (d) => exemptLines(d).length > 0,
    apply: (d, _p, delta) => {
      const s = sums(d).find((x) => x.VatRateType === 'ZeroVatRate')!;
      s.PriceWithoutVat = cents(s.PriceWithoutVat + delta);
    },
  },
  {
    rule: 'BR-AE-08',
    applies: (d) => d.IsReverseCharge,
    apply: (d, pick, delta) => {
      at(sums(d), pick).PriceWithoutVat = cents(at(sums(d), pick).PriceWithoutVat - delta);
    },
  },
  {
    rule: 'BR-AE-02',
    applies: (d) => d.IsReverseCharge,
    apply: (d) => {
      d.BusinessPartnerAddress.TaxIdentificationNumber = null;
      d.BusinessPartnerAddress.IdentificationNumber = null;
    },
  },
  {
    rule: 'BR-E-10',
    applies: (d) => exemptLines(d).length > 0,
    apply: (d, pick) => {
      at(exemptLines(d), pick).Note = null;
    },
  },
  {
    rule: 'PEPPOL-EN16931-R003',
    applies: always,
    apply: (d, pick) => {
      d.VariableSymbol = pick % 2 === 0 ? null : '';
      d.OrderNumber = null;
    },
  },
  {
    rule: 'PEPPOL-EN16931-R008',
    applies: always,
    apply: (d, pick) => {
      const target = at(['Street', 'City', 'CompanyName', 'PostCode'], pick);
      d.BusinessPartnerAddress[target] = pick % 3 === 0 ? '' : ' ';
    },
  },
  {
    rule: 'PEPPOL-EN16931-R010',
    applies: always,
    apply: (d, pick) => {
      d.BusinessPartnerAddress.TaxIdentificationNumber = at([null, '', '123', 'CZ12345678'], pick);
    },
  },
  {
    rule: 'PEPPOL-EN16931-R053',
    applies: always,
    apply: (d, pick) => {
      const list = sums(d);
      const s = at(list, pick);
      const half = cents(s.PriceWithoutVat / 2);
      const halfVat = cents(s.Vat / 2);
      list.splice(
        list.indexOf(s),
        1,
        { ...s, PriceWithoutVat: half, Vat: halfVat },
        { ...s, PriceWithoutVat: cents(s.PriceWithoutVat - half), Vat: cents(s.Vat - halfVat) },
      );
    },
  },
  // A line net further than the schematron's 0.02 from quantity × net price.
  {
    rule: 'PEPPOL-EN16931-R120',
    applies: always,
    apply: (d, pick, delta) => {
      const item = at(d.Items as Doc[], pick);
      item.PriceWithoutVat = cents(item.PriceWithoutVat + 0.02 + delta);
    },
  },
];

describe('e-invoice pre-flight: properties', () => {
  it('documents generated valid from the standard pass every rule', () => {
    fc.assert(
      fc.property(validInvoiceArb, (doc) => {
        const result = preflight(doc, ctx);
        expect(result.findings).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('each single rule-breaking mutation is caught by that rule', () => {
    const cases = fc.tuple(
      validInvoiceArb,
      fc.constantFrom(...mutations),
      fc.nat({ max: 1000 }),
      fc.integer({ min: 1, max: 5000 }).map((c) => c / 100),
    );
    fc.assert(
      fc.property(cases, ([doc, mutation, pick, delta]) => {
        fc.pre(mutation.applies(doc));
        mutation.apply(doc, pick, delta);
        const result = preflight(doc, ctx);
        expect(result.passed).toBe(false);
        expect(brokenRules(result)).toContain(mutation.rule);
      }),
      { numRuns: 1500 },
    );
  });

  it('every rule about the buyer or the document has a mutation here', () => {
    const covered = new Set(mutations.map((m) => m.rule));
    for (const id of [
      'BR-02',
      'BR-CO-10',
      'BR-CO-13',
      'BR-CO-17',
      'BR-CO-25',
      'BR-AE-02',
      'BR-E-10',
      'PEPPOL-EN16931-R003',
      'PEPPOL-EN16931-R008',
      'PEPPOL-EN16931-R010',
      'PEPPOL-EN16931-R053',
      'PEPPOL-EN16931-R120',
    ]) {
      expect(covered.has(id)).toBe(true);
    }
  });
});
