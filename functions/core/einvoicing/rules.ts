/**
 * The pre-flight's rules: the EN 16931 and Peppol BIS Billing 3.0 rules a service document can
 * break, as data. Each has its official id, flag and text (quoted from the EN 16931 schematron
 * 1.3.16 and the Peppol BIS 3.0 schematron 3.0.19), the business terms it concerns, the service
 * fields it reads, and a check over the document's business terms (`business-terms.ts`) that
 * names the service field to fix. Amounts compare as the schematron does: sums at two decimals,
 * with the schematron's own tolerances (R120 ±0.02, BR-CO-17 and BR-S-08 within 1).
 *
 * Slovakia has no CIUS; the `SK-…` rules are this product's labels for the Slovak content
 * requirement (full postal addresses), not official ids.
 */
import type {
  BreakdownTerms,
  InvoiceTerms,
  LineTerms,
  PartyTerms,
  Term,
  VatCategory,
} from './business-terms.js';

export type RuleSource = 'EN 16931' | 'Peppol BIS 3.0' | 'Slovakia';

export interface Violation {
  /** The service field to fix. */
  field: string;
  message: string;
}

export interface EInvoiceRule {
  id: string;
  flag: 'fatal' | 'warning';
  source: RuleSource;
  /** The official text, as published. */
  text: string;
  /** Business terms (BT-…/BG-…) the rule concerns. */
  terms: readonly string[];
  /** The service fields the check reads. */
  reads: readonly string[];
  /** A rule about the seller: checked only when the seller is known. */
  seller?: true;
  check(invoice: InvoiceTerms): Violation[];
}

const cents = (n: number) => Math.round(n * 100);
const show = (c: number) => (c / 100).toFixed(2);

function missing(term: Term<unknown>, what: string): Violation[] {
  return term.value === null ? [{ field: term.field, message: `${term.field} is empty: ${what}` }] : [];
}

function sellerOnly(invoice: InvoiceTerms, check: (seller: PartyTerms) => Violation[]): Violation[] {
  return invoice.seller ? check(invoice.seller) : [];
}

const ROUNDING_STEP_CENTS: Readonly<Record<string, number>> = {
  None: 0,
  MathToOne: 100,
  UpToOne: 100,
  DownToOne: 100,
  MathToHalf: 50,
  UpToHalf: 50,
  DownToHalf: 50,
  MathToTenth: 10,
  UpToTenth: 10,
  DownToTenth: 10,
  MathFiveCent: 5,
};

function lineNetCents(lines: readonly LineTerms[]): number {
  return lines.reduce((sum, l) => sum + cents(l.net.value ?? 0), 0);
}

function linesOf(invoice: InvoiceTerms, category: VatCategory, rate: number | null): LineTerms[] {
  return invoice.lines.filter((l) => l.category === category && (category !== 'S' || l.rate.value === rate));
}

/** Lines of a category whose rate has no breakdown entry: the breakdown of that rate is 0. */
function uncoveredLines(invoice: InvoiceTerms, category: VatCategory): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const l of invoice.lines) {
    if (l.category !== category) continue;
    const covered = invoice.breakdown.some(
      (b) => b.category === category && (category !== 'S' || b.rate.value === l.rate.value),
    );
    const key = `${l.rate.value}`;
    if (covered || seen.has(key)) continue;
    seen.add(key);
    out.push({
      field: 'DocumentRecapitulation.VatRateSums',
      message: `DocumentRecapitulation.VatRateSums has no entry for the rate of ${l.path} (${l.vatRateType ?? 'unknown'})`,
    });
  }
  return out;
}

function taxableAgainstLines(invoice: InvoiceTerms, category: VatCategory, withinCents: number): Violation[] {
  const out: Violation[] = [];
  for (const b of invoice.breakdown.filter((x: BreakdownTerms) => x.category === category)) {
    const sum = lineNetCents(linesOf(invoice, category, b.rate.value));
    const taxable = cents(b.taxable.value ?? 0);
    if (Math.abs(taxable - sum) > withinCents) {
      out.push({
        field: b.taxable.field,
        message: `${b.taxable.field} is ${show(taxable)}, its lines' net amounts sum to ${show(sum)}`,
      });
    }
  }
  return [...out, ...uncoveredLines(invoice, category)];
}

function fullAddress(party: PartyTerms, who: string): Violation[] {
  const out: Violation[] = [];
  for (const [term, what] of [
    [party.street, 'street'],
    [party.city, 'city'],
    [party.postCode, 'postcode'],
    [party.country, 'country'],
  ] as const) {
    if (term.value === null)
      out.push({ field: term.field, message: `${term.field} is empty: the ${who}'s ${what}` });
  }
  return out;
}

const buyerAddressFields = [
  'BusinessPartnerAddress.Street',
  'BusinessPartnerAddress.City',
  'BusinessPartnerAddress.PostCode',
  'BusinessPartnerAddress.Country',
];

export const einvoiceRules: readonly EInvoiceRule[] = [
  {
    id: 'BR-02',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-02]-An Invoice shall have an Invoice number (BT-1).',
    terms: ['BT-1'],
    reads: ['DocumentNumber'],
    check: (i) => missing(i.number, 'the invoice number'),
  },
  {
    id: 'BR-03',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-03]-An Invoice shall have an Invoice issue date (BT-2).',
    terms: ['BT-2'],
    reads: ['IssueDate'],
    check: (i) => missing(i.issueDate, 'the issue date'),
  },
  {
    id: 'BR-05',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-05]-An Invoice shall have an Invoice currency code (BT-5).',
    terms: ['BT-5'],
    reads: ['CurrencyId'],
    check: (i) => missing(i.currency, 'the invoice currency'),
  },
  {
    id: 'BR-06',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-06]-An Invoice shall contain the Seller name (BT-27).',
    terms: ['BT-27'],
    reads: ['seller.CompanyName'],
    seller: true,
    check: (i) => sellerOnly(i, (s) => missing(s.name, "the seller's name")),
  },
  {
    id: 'BR-07',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-07]-An Invoice shall contain the Buyer name (BT-44).',
    terms: ['BT-44'],
    reads: ['BusinessPartnerAddress.CompanyName', 'BusinessPartnerAddress.Name'],
    check: (i) =>
      i.buyer.name.value === null
        ? [
            {
              field: 'BusinessPartnerAddress.CompanyName',
              message: "BusinessPartnerAddress.CompanyName and .Name are empty: the buyer's name",
            },
          ]
        : [],
  },
  {
    id: 'BR-08',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-08]-An Invoice shall contain the Seller postal address.',
    terms: ['BG-5'],
    reads: ['seller.Street', 'seller.City', 'seller.PostCode', 'seller.Country'],
    seller: true,
    check: (i) =>
      sellerOnly(i, (s) =>
        [s.street, s.city, s.postCode, s.country].every((t) => t.value === null)
          ? [{ field: 'seller', message: "the seller's postal address is empty" }]
          : [],
      ),
  },
  {
    id: 'BR-09',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-09]-The Seller postal address (BG-5) shall contain a Seller country code (BT-40).',
    terms: ['BT-40'],
    reads: ['seller.Country'],
    seller: true,
    check: (i) => sellerOnly(i, (s) => missing(s.country, "the seller's country")),
  },
  {
    id: 'BR-10',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-10]-An Invoice shall contain the Buyer postal address (BG-8).',
    terms: ['BG-8'],
    reads: ['BusinessPartnerAddress'],
    check: (i) =>
      i.buyer.hasAddress
        ? []
        : [
            {
              field: 'BusinessPartnerAddress',
              message: "BusinessPartnerAddress is empty: the buyer's postal address",
            },
          ],
  },
  {
    id: 'BR-11',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-11]-The Buyer postal address shall contain a Buyer country code (BT-55).',
    terms: ['BT-55'],
    reads: ['BusinessPartnerAddress.Country'],
    check: (i) => (i.buyer.hasAddress ? missing(i.buyer.country, "the buyer's country") : []),
  },
  {
    id: 'SK-BUYER-ADDRESS',
    flag: 'fatal',
    source: 'Slovakia',
    text: "Slovak domestic e-invoices need the buyer's full postal address: street, city, postcode and country (BT-50, BT-52, BT-53, BT-55).",
    terms: ['BT-50', 'BT-52', 'BT-53', 'BT-55'],
    reads: buyerAddressFields,
    check: (i) => fullAddress(i.buyer, 'buyer'),
  },
  {
    id: 'SK-SELLER-ADDRESS',
    flag: 'fatal',
    source: 'Slovakia',
    text: "Slovak domestic e-invoices need the seller's full postal address: street, city, postcode and country (BT-35, BT-37, BT-38, BT-40).",
    terms: ['BT-35', 'BT-37', 'BT-38', 'BT-40'],
    reads: ['seller.Street', 'seller.City', 'seller.PostCode', 'seller.Country'],
    seller: true,
    check: (i) => sellerOnly(i, (s) => fullAddress(s, 'seller')),
  },
  {
    id: 'BR-16',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-16]-An Invoice shall have at least one Invoice line (BG-25)',
    terms: ['BG-25'],
    reads: ['Items'],
    check: (i) =>
      i.lines.length === 0 ? [{ field: 'Items', message: 'Items is empty: the invoice has no line' }] : [],
  },
  {
    id: 'BR-25',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-25]-Each Invoice line (BG-25) shall contain the Item name (BT-153).',
    terms: ['BT-153'],
    reads: ['Items[].Text'],
    check: (i) => i.lines.flatMap((l) => missing(l.name, 'the item name')),
  },
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
    id: 'BR-CO-25',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-CO-25]-In case the Amount due for payment (BT-115) is positive, either the Payment due date (BT-9) or the Payment terms (BT-20) shall be present.',
    terms: ['BT-115', 'BT-9', 'BT-20'],
    reads: ['DueDate', 'DocumentRecapitulation.TotalPrice'],
    check: (i) =>
      (i.totalWithVat.value ?? 0) > 0
        ? missing(i.dueDate, 'an amount is due and the invoice has no due date')
        : [],
  },
  {
    id: 'BR-S-02',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-S-02]-An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    terms: ['BT-31', 'BT-32'],
    reads: ['seller.TaxIdentificationNumber', 'Items[].VatRateType'],
    seller: true,
    check: (i) =>
      sellerOnly(i, (s) =>
        i.lines.some((l) => l.category === 'S') && s.vatId.value === null && s.taxNumber.value === null
          ? [
              {
                field: s.taxNumber.field,
                message: `${s.taxNumber.field} is empty: a line charges VAT and the seller has no VAT id`,
              },
            ]
          : [],
      ),
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
    id: 'BR-AE-02',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-AE-02]-An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    terms: ['BT-48', 'BT-47', 'BT-31'],
    reads: [
      'IsReverseCharge',
      'Items[].UnitPriceVatType',
      'BusinessPartnerAddress.TaxIdentificationNumber',
      'BusinessPartnerAddress.IdentificationNumber',
    ],
    check: (i) => {
      if (!i.lines.some((l) => l.category === 'AE')) return [];
      const out: Violation[] = [];
      if (i.buyer.vatId.value === null && i.buyer.legalId.value === null) {
        out.push({
          field: i.buyer.vatId.field,
          message: `${i.buyer.vatId.field} holds no VAT id and BusinessPartnerAddress.IdentificationNumber is empty: reverse charge needs the buyer's VAT id`,
        });
      }
      if (i.seller && i.seller.vatId.value === null && i.seller.taxNumber.value === null) {
        out.push({
          field: i.seller.taxNumber.field,
          message: `${i.seller.taxNumber.field} is empty: reverse charge needs the seller's VAT id`,
        });
      }
      return out;
    },
  },
  {
    id: 'BR-E-10',
    flag: 'fatal',
    source: 'EN 16931',
    text: '[BR-E-10]-A VAT breakdown (BG-23) with VAT Category code (BT-118) "Exempt from VAT" shall have a VAT exemption reason code (BT-121) or a VAT exemption reason text (BT-120).',
    terms: ['BT-120', 'BT-121'],
    reads: ['Items[].Note', 'Items[].VatRateType'],
    check: (i) =>
      i.lines
        .filter((l) => l.category === 'E' && l.exemptionReason.value === null)
        .map((l) => ({
          field: l.exemptionReason.field,
          message: `${l.exemptionReason.field} is empty: a line exempt from VAT needs the exemption reason`,
        })),
  },
  {
    id: 'PEPPOL-EN16931-R003',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'A buyer reference or purchase order reference MUST be provided.',
    terms: ['BT-10', 'BT-13'],
    reads: ['VariableSymbol', 'OrderNumber'],
    check: (i) =>
      i.buyerReference.value === null && i.orderReference.value === null
        ? [
            {
              field: 'OrderNumber',
              message: 'OrderNumber and VariableSymbol are empty: a buyer or order reference',
            },
          ]
        : [],
  },
  {
    id: 'PEPPOL-EN16931-R008',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'Document MUST not contain empty elements.',
    terms: [],
    reads: ['every string field of the document, its address and its items'],
    check: (i) =>
      i.emptyFields.map((field) => ({ field, message: `${field} is an empty text: clear it or fill it` })),
  },
  {
    id: 'PEPPOL-EN16931-R010',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'Buyer electronic address MUST be provided',
    terms: ['BT-49'],
    reads: ['BusinessPartnerAddress.TaxIdentificationNumber'],
    check: (i) => {
      const { endpoint, taxNumber } = i.buyer;
      if (endpoint.value !== null) return [];
      const message =
        taxNumber.value === null
          ? `${taxNumber.field} is empty: the buyer's DIČ gives its electronic address 0245:<DIČ>`
          : `${taxNumber.field} '${taxNumber.value}' holds no DIČ (10 digits, or SK and 10 digits)`;
      return [{ field: taxNumber.field, message }];
    },
  },
  {
    id: 'PEPPOL-EN16931-R020',
    flag: 'fatal',
    source: 'Peppol BIS 3.0',
    text: 'Seller electronic address MUST be provided',
    terms: ['BT-34'],
    reads: ['seller.TaxIdentificationNumber'],
    seller: true,
    check: (i) =>
      sellerOnly(i, (s) =>
        s.endpoint.value === null
          ? [
              {
                field: s.taxNumber.field,
                message: `${s.taxNumber.field} holds no DIČ: the seller's electronic address is 0245:<DIČ>`,
              },
            ]
          : [],
      ),
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

/** A rule by its id. */
export function ruleById(id: string): EInvoiceRule | undefined {
  return einvoiceRules.find((r) => r.id === id);
}
