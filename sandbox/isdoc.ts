/** ISDOC 6.0.2 export of an issued invoice or advance invoice. */
import type { ApiRecord } from '../functions/accounting/api.js';
import type { NationalData } from './national-data.js';
import { money } from './random.js';

export const ISDOC_NAMESPACE = 'http://isdoc.cz/namespace/2013';

/**
 * ISDOC document types: 1 invoice, 2 credit note, 3 debit note, 4 advance invoice (not a tax
 * document), 5 tax document of a received advance payment.
 */
const documentTypeCodes: Record<string, number> = {
  IssuedInvoices: 1,
  IssuedCreditNotes: 2,
  IssuedDebitNotes: 3,
  IssuedAdvanceInvoices: 4,
  IssuedTaxDocuments: 5,
};

/** The Czech variant's corrective tax document: a credit or a debit note by its sign. */
const CORRECTIVE_COLLECTION = 'IssuedInvoiceCorrectiveTaxDocuments';
const UUID_PATTERN = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Text as XML carries it: markup escaped, characters XML 1.0 forbids left out (the export drops them). */
function esc(value: unknown): string {
  return (
    String(value ?? '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
  );
}

function amount(value: unknown): string {
  return money(Number(value ?? 0)).toFixed(2);
}

function day(value: unknown): string {
  return String(value ?? '').slice(0, 10);
}

interface PartyData {
  IdentificationNumber?: unknown;
  CompanyName?: unknown;
  Name?: unknown;
  Street?: unknown;
  City?: unknown;
  PostCode?: unknown;
  Country?: unknown;
  VatIdentificationNumber?: unknown;
  TaxIdentificationNumber?: unknown;
  Email?: unknown;
}

function party(p: PartyData): string {
  const street = String(p.Street ?? '');
  const m = /^(.*?)\s+(\d[\w/]*)$/.exec(street);
  // Documents carry one tax number: a VAT id (country prefix) or a plain tax id.
  const taxId = p.TaxIdentificationNumber ? String(p.TaxIdentificationNumber) : null;
  const vatLike = taxId !== null && /^[A-Z]{2}/.test(taxId);
  const vat = p.VatIdentificationNumber ?? (vatLike ? taxId : null);
  const tin = vatLike && !p.VatIdentificationNumber ? null : taxId;
  return [
    '<Party>',
    `<PartyIdentification><ID>${esc(p.IdentificationNumber)}</ID></PartyIdentification>`,
    `<PartyName><Name>${esc(p.CompanyName ?? p.Name)}</Name></PartyName>`,
    '<PostalAddress>',
    `<StreetName>${esc(m ? m[1] : street)}</StreetName>`,
    `<BuildingNumber>${esc(m ? m[2] : '')}</BuildingNumber>`,
    `<CityName>${esc(p.City)}</CityName>`,
    `<PostalZone>${esc(String(p.PostCode ?? '').replace(/\s/g, ''))}</PostalZone>`,
    `<Country><IdentificationCode>${esc(p.Country ?? 'SK')}</IdentificationCode><Name></Name></Country>`,
    '</PostalAddress>',
    vat
      ? `<PartyTaxScheme><CompanyID>${esc(vat)}</CompanyID><TaxScheme>VAT</TaxScheme></PartyTaxScheme>`
      : '',
    tin
      ? `<PartyTaxScheme><CompanyID>${esc(tin)}</CompanyID><TaxScheme>TIN</TaxScheme></PartyTaxScheme>`
      : '',
    p.Email ? `<Contact><ElectronicMail>${esc(p.Email)}</ElectronicMail></Contact>` : '',
    '</Party>',
  ].join('');
}

type VatRateSum = Record<string, unknown>;

function invoiceLine(n: NationalData, item: Record<string, unknown>, i: number): string {
  const qty = Number(item.Quantity ?? 1);
  const base = Number(item.PriceWithoutVat ?? 0);
  const withVat = Number(item.PriceWithVat ?? 0);
  return [
    '<InvoiceLine>',
    `<ID>${i + 1}</ID>`,
    `<InvoicedQuantity unitCode="${esc(item.Unit ?? 'ks')}">${qty}</InvoicedQuantity>`,
    `<LineExtensionAmount>${amount(base)}</LineExtensionAmount>`,
    `<LineExtensionAmountTaxInclusive>${amount(withVat)}</LineExtensionAmountTaxInclusive>`,
    `<LineExtensionTaxAmount>${amount(item.Vat)}</LineExtensionTaxAmount>`,
    `<UnitPrice>${amount(qty === 0 ? 0 : base / qty)}</UnitPrice>`,
    `<UnitPriceTaxInclusive>${amount(qty === 0 ? 0 : withVat / qty)}</UnitPriceTaxInclusive>`,
    `<ClassifiedTaxCategory><Percent>${percentOf(n, item.VatRateType)}</Percent><VATCalculationMethod>0</VATCalculationMethod></ClassifiedTaxCategory>`,
    `<Item><Description>${esc(item.Text)}</Description>${
      item.Code ? `<SellersItemIdentification><ID>${esc(item.Code)}</ID></SellersItemIdentification>` : ''
    }</Item>`,
    '</InvoiceLine>',
  ].join('');
}

function taxSubTotal(n: NationalData, s: VatRateSum): string {
  return [
    '<TaxSubTotal>',
    `<TaxableAmount>${amount(s.PriceWithoutVat)}</TaxableAmount>`,
    `<TaxAmount>${amount(s.Vat)}</TaxAmount>`,
    `<TaxInclusiveAmount>${amount(s.TotalPrice)}</TaxInclusiveAmount>`,
    '<AlreadyClaimedTaxableAmount>0.00</AlreadyClaimedTaxableAmount>',
    '<AlreadyClaimedTaxAmount>0.00</AlreadyClaimedTaxAmount>',
    '<AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>',
    `<DifferenceTaxableAmount>${amount(s.PriceWithoutVat)}</DifferenceTaxableAmount>`,
    `<DifferenceTaxAmount>${amount(s.Vat)}</DifferenceTaxAmount>`,
    `<DifferenceTaxInclusiveAmount>${amount(s.TotalPrice)}</DifferenceTaxInclusiveAmount>`,
    `<TaxCategory><Percent>${percentOf(n, s.VatRateType)}</Percent></TaxCategory>`,
    '</TaxSubTotal>',
  ].join('');
}

/** The document's totals from its recapitulation: without VAT and VAT summed over the rates. */
function totalsOf(record: ApiRecord) {
  const recap = (record.DocumentRecapitulation ?? {}) as { TotalPrice?: number; VatRateSums?: VatRateSum[] };
  const sums = recap.VatRateSums ?? [];
  return {
    sums,
    WithoutVat: sums.reduce((t, s) => t + Number(s.PriceWithoutVat ?? 0), 0),
    Vat: sums.reduce((t, s) => t + Number(s.Vat ?? 0), 0),
    WithVat: Number(recap.TotalPrice ?? 0),
  };
}

/** The `LegalMonetaryTotal` lines. */
function monetaryTotal(total: ReturnType<typeof totalsOf>): string[] {
  return [
    '<LegalMonetaryTotal>',
    `<TaxExclusiveAmount>${amount(total.WithoutVat)}</TaxExclusiveAmount>`,
    `<TaxInclusiveAmount>${amount(total.WithVat)}</TaxInclusiveAmount>`,
    '<AlreadyClaimedTaxExclusiveAmount>0.00</AlreadyClaimedTaxExclusiveAmount>',
    '<AlreadyClaimedTaxInclusiveAmount>0.00</AlreadyClaimedTaxInclusiveAmount>',
    `<DifferenceTaxExclusiveAmount>${amount(total.WithoutVat)}</DifferenceTaxExclusiveAmount>`,
    `<DifferenceTaxInclusiveAmount>${amount(total.WithVat)}</DifferenceTaxInclusiveAmount>`,
    '<PayableRoundingAmount>0.00</PayableRoundingAmount>',
    '<PaidDepositsAmount>0.00</PaidDepositsAmount>',
    `<PayableAmount>${amount(total.WithVat)}</PayableAmount>`,
    '</LegalMonetaryTotal>',
  ];
}

/** VAT percent of a VAT rate type in the company's rates. */
function percentOf(n: NationalData, vatRateType: unknown): number {
  return n.vatPercent[String(vatRateType)] ?? 0;
}

/** The bank account a document is paid to: a row of `BankAccounts` (`AccountNumber, BankCode, BankName, Iban, Swift`). */
export type IsdocBankAccount = ApiRecord;

/** What the export needs beside the document: its currency, its bank account, the document it corrects. */
export interface IsdocContext {
  currencyCode: string;
  /** The company that issues the document (its own party, VAT rates). */
  national: NationalData;
  /** The account of the document's `BankAccountId`; without one the payment is written as cash. */
  bankAccount?: IsdocBankAccount | undefined;
  /** The document a corrective document corrects (its `CorrectedDocumentId`), when known. */
  original?: ApiRecord | undefined;
}

/**
 * `PaymentMeans`: a bank transfer (code 42) names the whole bank-account group the schema requires
 * after `PaymentDueDate` (`ID, BankCode, Name, IBAN, BIC`), then the variable symbol; without a
 * bank account the payment is cash (code 10), which carries no details.
 */
function paymentMeans(record: ApiRecord, payable: number, account: IsdocBankAccount | undefined): string {
  if (!record.DueDate) return '';
  const head = `<PaymentMeans><Payment><PaidAmount>${amount(payable)}</PaidAmount>`;
  if (!account) return `${head}<PaymentMeansCode>10</PaymentMeansCode></Payment></PaymentMeans>`;
  return [
    head,
    '<PaymentMeansCode>42</PaymentMeansCode><Details>',
    `<PaymentDueDate>${day(record.DueDate)}</PaymentDueDate>`,
    `<ID>${esc(account.AccountNumber)}</ID>`,
    `<BankCode>${esc(account.BankCode)}</BankCode>`,
    `<Name>${esc(account.BankName)}</Name>`,
    `<IBAN>${esc(account.Iban)}</IBAN>`,
    `<BIC>${esc(account.Swift)}</BIC>`,
    record.VariableSymbol ? `<VariableSymbol>${esc(record.VariableSymbol)}</VariableSymbol>` : '',
    '</Details></Payment></PaymentMeans>',
  ].join('');
}

/** ISDOC `DocumentType` of a document of `collection`; a corrective document by the sign of its total. */
function documentTypeOf(collection: string, total: number): number {
  if (collection === CORRECTIVE_COLLECTION) return total < 0 ? 2 : 3;
  return documentTypeCodes[collection] ?? 1;
}

/** `OriginalDocumentReferences` of a corrective document: the corrected document's number, date and id. */
function originalReference(record: ApiRecord, original: ApiRecord | undefined): string {
  if (!record.CorrectedDocumentId || !original?.DocumentNumber) return '';
  const uuid = String(original.Id ?? '');
  return [
    '<OriginalDocumentReferences><OriginalDocumentReference id="original-1">',
    `<ID>${esc(original.DocumentNumber)}</ID>`,
    original.IssueDate ? `<IssueDate>${day(original.IssueDate)}</IssueDate>` : '',
    UUID_PATTERN.test(uuid) ? `<UUID>${esc(uuid.toUpperCase())}</UUID>` : '',
    '</OriginalDocumentReference></OriginalDocumentReferences>',
  ].join('');
}

/** Builds the ISDOC XML of `record` (a document of `collection`). */
export function isdocXml(collection: string, record: ApiRecord, context: IsdocContext): string {
  const n = context.national;
  const items = (record.Items as Record<string, unknown>[] | undefined) ?? [];
  const total = totalsOf(record);
  const address = (record.BusinessPartnerAddress ?? {}) as PartyData;
  const vatApplicable = items.some((i) => percentOf(n, i.VatRateType) > 0);
  const lines = items.map((item, i) => invoiceLine(n, item, i)).join('');
  const subTotals = total.sums.map((s) => taxSubTotal(n, s)).join('');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Invoice xmlns="${ISDOC_NAMESPACE}" version="6.0.2">`,
    `<DocumentType>${documentTypeOf(collection, total.WithVat)}</DocumentType>`,
    `<ID>${esc(record.DocumentNumber)}</ID>`,
    `<UUID>${esc(String(record.Id).toUpperCase())}</UUID>`,
    '<IssuingSystem>accounting-events sandbox</IssuingSystem>',
    `<IssueDate>${day(record.IssueDate)}</IssueDate>`,
    record.TaxDate ? `<TaxPointDate>${day(record.TaxDate)}</TaxPointDate>` : '',
    `<VATApplicable>${vatApplicable ? 'true' : 'false'}</VATApplicable>`,
    '<ElectronicPossibilityAgreementReference></ElectronicPossibilityAgreementReference>',
    record.Note ? `<Note>${esc(record.Note)}</Note>` : '',
    `<LocalCurrencyCode>${esc(context.currencyCode)}</LocalCurrencyCode>`,
    '<CurrRate>1</CurrRate>',
    '<RefCurrRate>1</RefCurrRate>',
    `<AccountingSupplierParty>${party(n.ownCompany)}</AccountingSupplierParty>`,
    `<AccountingCustomerParty>${party(address)}</AccountingCustomerParty>`,
    originalReference(record, context.original),
    `<InvoiceLines>${lines}</InvoiceLines>`,
    `<TaxTotal>${subTotals}<TaxAmount>${amount(total.Vat)}</TaxAmount></TaxTotal>`,
    ...monetaryTotal(total),
    paymentMeans(record, total.WithVat, context.bankAccount),
    '</Invoice>',
  ].join('\n');
}
