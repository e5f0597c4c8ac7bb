/**
 * Rules about the document's identity, its parties, references and texts (EN 16931 BR-…, the
 * Peppol BIS 3.0 rules R003, R008, R010, R020, and the Slovak full-address requirement).
 */
import type { EInvoiceRule, Violation } from './rule-kit.js';
import { buyerAddressFields, fullAddress, missing, sellerOnly } from './rule-kit.js';

export const partyRules: readonly EInvoiceRule[] = [
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
];
