/**
 * Rules about the amounts: the document's totals from its lines, the VAT breakdown per rate and
 * category, and each line's net amount (EN 16931 BR-CO-…, BR-S/E/AE-08, Peppol R053 and R120).
 */
import type { EInvoiceRule, Violation } from './rule-kit.js';
import { cents, lineNetCents, missing, ROUNDING_STEP_CENTS, show, taxableAgainstLines } from './rule-kit.js';

export const amountRules: readonly EInvoiceRule[] = [
  {
    id: 'BR-CO-10',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-CO-10]-Sum of Invoice line net amount (BT-106) = Σ Invoice line net amount (BT-131).',
    terms: ['BT-106', 'BT-131'],
    reads: ['Items[].PriceWithoutVat', 'DocumentRecapitulation.VatRateSums[].PriceWithoutVat'],
    check: (i) => {
      const lines = lineNetCents(i.lines);
      const sum = i.breakdown.reduce((s, b) => s + cents(b.taxable.value ?? 0), 0);
      return lines === sum
        ? []
        : [
            {
              field: 'DocumentRecapitulation.VatRateSums',
              message: `DocumentRecapitulation.VatRateSums[].PriceWithoutVat sum to ${show(sum)}, Items[].PriceWithoutVat to ${show(lines)}`,
            },
          ];
    },
  },
  {
    id: 'BR-CO-13',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-CO-13]-Invoice total amount without VAT (BT-109) = Σ Invoice line net amount (BT-131) - Sum of allowances on document level (BT-107) + Sum of charges on document level (BT-108).',
    terms: ['BT-109', 'BT-131'],
    reads: [
      'DocumentRecapitulation.TotalPrice',
      'DocumentRecapitulation.Rounding',
      'DocumentRecapitulation.VatRateSums[].Vat',
      'Items[].PriceWithoutVat',
    ],
    check: (i) => {
      if (i.totalWithVat.value === null) {
        return missing(i.totalWithVat, 'the invoice total');
      }
      const vat = i.breakdown.reduce((s, b) => s + cents(b.tax.value ?? 0), 0);
      const withoutVat = cents(i.totalWithVat.value) - vat;
      const lines = lineNetCents(i.lines);
      const step = ROUNDING_STEP_CENTS[i.rounding] ?? 100;
      return Math.abs(withoutVat - lines) <= step
        ? []
        : [
            {
              field: i.totalWithVat.field,
              message: `${i.totalWithVat.field} less VAT is ${show(withoutVat)}, Items[].PriceWithoutVat sum to ${show(lines)}`,
            },
          ];
    },
  },
  {
    id: 'BR-CO-17',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-CO-17]-VAT category tax amount (BT-117) = VAT category taxable amount (BT-116) x (VAT category rate (BT-119) / 100), rounded to two decimals.',
    terms: ['BT-116', 'BT-117', 'BT-119'],
    reads: [
      'DocumentRecapitulation.VatRateSums[].PriceWithoutVat',
      'DocumentRecapitulation.VatRateSums[].Vat',
      'DocumentRecapitulation.VatRateSums[].VatRateType',
    ],
    check: (i) =>
      i.breakdown.flatMap((b) => {
        const rate = b.rate.value;
        if (rate === null) {
          return [{ field: b.rate.field, message: `${b.rate.field} names no VAT rate of the service` }];
        }
        const tax = Math.abs(cents(b.tax.value ?? 0));
        const expected = Math.round((Math.abs(cents(b.taxable.value ?? 0)) * rate) / 100);
        // The schematron's test: a zero rate has no tax; otherwise within 1 of the product.
        const ok = rate === 0 ? Math.round(tax / 100) === 0 : Math.abs(tax - expected) < 100;
        return ok
          ? []
          : [
              {
                field: b.tax.field,
                message: `${b.tax.field} is ${show(tax)}, ${show(Math.abs(cents(b.taxable.value ?? 0)))} at ${rate} % is ${show(expected)}`,
              },
            ];
      }),
  },
  {
    id: 'BR-CO-18',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-CO-18]-An Invoice shall at least have one VAT breakdown group (BG-23).',
    terms: ['BG-23'],
    reads: ['DocumentRecapitulation.VatRateSums'],
    check: (i) =>
      i.breakdown.length === 0
        ? [
            {
              field: 'DocumentRecapitulation.VatRateSums',
              message: 'DocumentRecapitulation.VatRateSums is empty: no VAT breakdown',
            },
          ]
        : [],
  },
  {
    id: 'BR-S-08',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-S-08]-For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "Standard rated", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "Standard rated" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    terms: ['BT-116', 'BT-131', 'BT-119', 'BT-152'],
    reads: [
      'DocumentRecapitulation.VatRateSums[].PriceWithoutVat',
      'Items[].PriceWithoutVat',
      'Items[].VatRateType',
    ],
    check: (i) => taxableAgainstLines(i, 'S', 99),
  },
  {
    id: 'BR-E-08',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-E-08]-In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Exempt from VAT" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Exempt from VAT".',
    terms: ['BT-116', 'BT-131'],
    reads: [
      'DocumentRecapitulation.VatRateSums[].PriceWithoutVat',
      'Items[].PriceWithoutVat',
      'Items[].VatRateType',
    ],
    check: (i) => taxableAgainstLines(i, 'E', 0),
  },
  {
    id: 'BR-AE-08',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-AE-08]-In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Reverse charge" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Reverse charge".',
    terms: ['BT-116', 'BT-131'],
    reads: [
      'DocumentRecapitulation.VatRateSums[].PriceWithoutVat',
      'Items[].PriceWithoutVat',
      'IsReverseCharge',
    ],
    check: (i) => taxableAgainstLines(i, 'AE', 0),
  },
  {
    id: 'PEPPOL-EN16931-R053',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'Only one tax total with tax subtotals MUST be provided.',
    terms: ['BG-23', 'BT-119'],
    reads: ['DocumentRecapitulation.VatRateSums[].VatRateType'],
    check: (i) => {
      const seen = new Map<string, string>();
      const out: Violation[] = [];
      for (const b of i.breakdown) {
        const key = `${b.category}/${b.rate.value}`;
        const first = seen.get(key);
        if (first) {
          out.push({
            field: b.path,
            message: `${b.path} repeats the VAT rate of ${first}: one VAT breakdown per rate`,
          });
        } else seen.set(key, b.path);
      }
      return out;
    },
  },
  {
    id: 'PEPPOL-EN16931-R120',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'Invoice line net amount MUST equal (Invoiced quantity * (Item net price/item price base quantity) + Sum of invoice line charge amount - sum of invoice line allowance amount',
    terms: ['BT-131', 'BT-129', 'BT-146'],
    reads: [
      'Items[].Quantity',
      'Items[].UnitPrice',
      'Items[].DiscountPercentage',
      'Items[].UnitPriceVatType',
      'Items[].PriceWithoutVat',
    ],
    check: (i) =>
      i.lines.flatMap((l) => {
        const { quantity, netPrice, net } = l;
        if (quantity.value === null || netPrice.value === null || net.value === null) {
          const empty = [quantity, netPrice, net].find((t) => t.value === null) ?? net;
          return [
            { field: empty.field, message: `${empty.field} is empty: the line net amount cannot be checked` },
          ];
        }
        const expected = quantity.value * netPrice.value;
        // The schematron's slack: within 0.02.
        return Math.abs(net.value - expected) <= 0.02 + 1e-9
          ? []
          : [
              {
                field: net.field,
                message: `${net.field} is ${net.value.toFixed(2)}, ${quantity.value} × ${netPrice.value.toFixed(4)} is ${expected.toFixed(2)}`,
              },
            ];
      }),
  },
];
