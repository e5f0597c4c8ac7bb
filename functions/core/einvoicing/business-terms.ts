/**
 * The service's issued invoice (its JSON, as the service returns it) read as the EN 16931
 * business terms the service's e-invoicing puts into the UBL it builds. Every term keeps the path
 * of the service field it comes from, so a failed rule names the field a person fixes.
 *
 * Mapping (the service builds the UBL; where its mapping is not public, the nearest field is read):
 * BT-1 `DocumentNumber`, BT-2 `IssueDate`, BT-5 `CurrencyId`, BT-9 `DueDate`,
 * BT-10 `VariableSymbol`, BT-13 `OrderNumber`; the buyer (BG-7) from `BusinessPartnerAddress`:
 * BT-44 `CompanyName` (else `Name`), BT-47 `IdentificationNumber`, BT-48 `TaxIdentificationNumber`
 * with a country prefix, BT-49 `0245:<DIČ>` from `TaxIdentificationNumber`, BT-50 `Street`,
 * BT-52 `City`, BT-53 `PostCode`, BT-55 `Country`; lines (BG-25) from `Items[]`: BT-129
 * `Quantity`, BT-146 from `UnitPrice` less `DiscountPercentage` (less VAT when
 * `UnitPriceVatType` is `WithVat`), BT-131 `PriceWithoutVat`, BT-151/152 from `VatRateType`
 * (the service's VAT rates) and `IsReverseCharge`, BT-153 `Text`, BT-120 `Note` of a line exempt
 * from VAT; the VAT breakdown (BG-23) from `DocumentRecapitulation.VatRateSums[]`: BT-116
 * `PriceWithoutVat`, BT-117 `Vat`; BT-106 is the sum of those bases, BT-112
 * `DocumentRecapitulation.TotalPrice` with the rounding of `DocumentRecapitulation.Rounding`.
 * The seller (BG-4) is the service's own e-invoicing set-up, which the API does not expose: it is
 * read only when the connection states it.
 */
import { participantIdOf, vatIdOf } from './participant.js';

export interface Term<T> {
  value: T | null;
  /** The service field the term is read from. */
  field: string;
}

export type VatCategory = 'S' | 'E' | 'AE';

export interface PartyTerms {
  name: Term<string>;
  vatId: Term<string>;
  legalId: Term<string>;
  /** The electronic address (BT-49 / BT-34), `0245:<DIČ>`. */
  endpoint: Term<string>;
  /** The raw tax identification number the endpoint is derived from. */
  taxNumber: Term<string>;
  street: Term<string>;
  city: Term<string>;
  postCode: Term<string>;
  country: Term<string>;
  /** Whether the document has the party's address block at all (BG-5 / BG-8). */
  hasAddress: boolean;
}

export interface LineTerms {
  /** `Items[i]`. */
  path: string;
  name: Term<string>;
  quantity: Term<number>;
  /** BT-146, the item net price; null when the unit price or the rate is unknown. */
  netPrice: Term<number>;
  net: Term<number>;
  category: VatCategory;
  rate: Term<number>;
  vatRateType: string | null;
  exemptionReason: Term<string>;
}

export interface BreakdownTerms {
  /** `DocumentRecapitulation.VatRateSums[i]`. */
  path: string;
  vatRateType: string | null;
  category: VatCategory;
  rate: Term<number>;
  taxable: Term<number>;
  tax: Term<number>;
}

export interface InvoiceTerms {
  number: Term<string>;
  issueDate: Term<string>;
  currency: Term<string>;
  dueDate: Term<string>;
  buyerReference: Term<string>;
  orderReference: Term<string>;
  buyer: PartyTerms;
  seller: PartyTerms | null;
  reverseCharge: boolean;
  lines: LineTerms[];
  breakdown: BreakdownTerms[];
  totalWithVat: Term<number>;
  /** `DocumentRecapitulation.Rounding` (`None`, `MathToOne`, …). */
  rounding: string;
  /** String fields the service would put into the UBL that are present but empty (R008). */
  emptyFields: string[];
}

/** What the mapping needs beside the document: VAT percentages and, when known, the seller. */
export interface TermsContext {
  /** The percentage of a VAT rate of the service (by `VatRateId`, else by `VatRateType`). */
  vatPercent: (rate: { vatRateId: string | null; vatRateType: string | null }) => number | null;
  seller?: SellerParty;
}

/** The seller as the connection states it (the service's own e-invoicing set-up). */
export interface SellerParty {
  name: string | null;
  taxIdentificationNumber: string | null;
  vatIdentificationNumber?: string | null;
  identificationNumber?: string | null;
  street: string | null;
  city: string | null;
  postCode: string | null;
  country: string | null;
}

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(source: Json | null, key: string, prefix: string): Term<string> {
  const field = prefix ? `${prefix}.${key}` : key;
  const raw = source?.[key];
  if (typeof raw === 'string' && raw.trim() !== '') return { value: raw.trim(), field };
  if (typeof raw === 'number') return { value: String(raw), field };
  return { value: null, field };
}

function amount(source: Json | null, key: string, prefix: string): Term<number> {
  const field = prefix ? `${prefix}.${key}` : key;
  const raw = source?.[key];
  return { value: typeof raw === 'number' && Number.isFinite(raw) ? raw : null, field };
}

function party(source: Json | null, prefix: string, explicitVatId?: string | null): PartyTerms {
  const taxNumber = text(source, 'TaxIdentificationNumber', prefix);
  const company = text(source, 'CompanyName', prefix);
  const person = text(source, 'Name', prefix);
  return {
    name: company.value === null && person.value !== null ? person : company,
    vatId: { value: explicitVatId ?? vatIdOf(taxNumber.value), field: taxNumber.field },
    legalId: text(source, 'IdentificationNumber', prefix),
    endpoint: { value: participantIdOf(taxNumber.value), field: taxNumber.field },
    taxNumber,
    street: text(source, 'Street', prefix),
    city: text(source, 'City', prefix),
    postCode: text(source, 'PostCode', prefix),
    country: text(source, 'Country', prefix),
    hasAddress: source !== null,
  };
}

function sellerParty(seller: SellerParty): PartyTerms {
  const prefix = 'seller';
  const source: Json = {
    CompanyName: seller.name,
    TaxIdentificationNumber: seller.taxIdentificationNumber,
    IdentificationNumber: seller.identificationNumber ?? null,
    Street: seller.street,
    City: seller.city,
    PostCode: seller.postCode,
    Country: seller.country,
  };
  return party(source, prefix, seller.vatIdentificationNumber ?? null);
}

function categoryOf(reverseCharge: boolean, priceVatType: string | null, rate: number | null): VatCategory {
  if (reverseCharge || priceVatType === 'ReverseCharge') return 'AE';
  return rate === 0 ? 'E' : 'S';
}

function line(item: Json, index: number, reverseCharge: boolean, ctx: TermsContext): LineTerms {
  const path = `Items[${index}]`;
  const vatRateType = typeof item.VatRateType === 'string' ? item.VatRateType : null;
  const vatRateId = typeof item.VatRateId === 'string' ? item.VatRateId : null;
  const priceVatType = typeof item.UnitPriceVatType === 'string' ? item.UnitPriceVatType : null;
  const percent = ctx.vatPercent({ vatRateId, vatRateType });
  const category = categoryOf(reverseCharge, priceVatType, percent);
  const rate = category === 'AE' ? 0 : percent;
  const unitPrice = amount(item, 'UnitPrice', path);
  const discount = typeof item.DiscountPercentage === 'number' ? item.DiscountPercentage : 0;
  let netPrice: number | null = null;
  if (unitPrice.value !== null) {
    const discounted = unitPrice.value * (1 - discount / 100);
    if (priceVatType !== 'WithVat') netPrice = discounted;
    else if (percent !== null) netPrice = discounted / (1 + percent / 100);
  }
  return {
    path,
    name: text(item, 'Text', path),
    quantity: amount(item, 'Quantity', path),
    netPrice: { value: netPrice, field: unitPrice.field },
    net: amount(item, 'PriceWithoutVat', path),
    category,
    rate: { value: rate, field: `${path}.VatRateType` },
    vatRateType,
    exemptionReason: text(item, 'Note', path),
  };
}

function breakdownEntry(sum: Json, index: number, lines: LineTerms[], ctx: TermsContext): BreakdownTerms {
  const path = `DocumentRecapitulation.VatRateSums[${index}]`;
  const vatRateType = typeof sum.VatRateType === 'string' ? sum.VatRateType : null;
  const ofType = lines.filter((l) => l.vatRateType === vatRateType);
  const allAE = ofType.length > 0 && ofType.every((l) => l.category === 'AE');
  const percent = ctx.vatPercent({ vatRateId: null, vatRateType });
  const category: VatCategory = allAE ? 'AE' : percent === 0 ? 'E' : 'S';
  return {
    path,
    vatRateType,
    category,
    rate: { value: category === 'AE' ? 0 : percent, field: `${path}.VatRateType` },
    taxable: amount(sum, 'PriceWithoutVat', path),
    tax: amount(sum, 'Vat', path),
  };
}

const addressKeys = [
  'CompanyName',
  'Name',
  'Street',
  'City',
  'PostCode',
  'Country',
  'IdentificationNumber',
  'TaxIdentificationNumber',
];
const documentKeys = ['DocumentNumber', 'VariableSymbol', 'OrderNumber', 'ContractNumber', 'Note'];
const itemKeys = ['Code', 'Text', 'Unit', 'Note'];

/** Fields present as strings with nothing in them: the service would write empty elements. */
function emptyFieldsOf(doc: Json): string[] {
  const out: string[] = [];
  const blank = (v: unknown) => typeof v === 'string' && v.trim() === '';
  for (const key of documentKeys) if (blank(doc[key])) out.push(key);
  const address = isRecord(doc.BusinessPartnerAddress) ? doc.BusinessPartnerAddress : null;
  for (const key of addressKeys) {
    if (address && blank(address[key])) out.push(`BusinessPartnerAddress.${key}`);
  }
  const items = Array.isArray(doc.Items) ? doc.Items : [];
  items.forEach((item, i) => {
    if (!isRecord(item)) return;
    for (const key of itemKeys) if (blank(item[key])) out.push(`Items[${i}].${key}`);
  });
  return out;
}

/** The business terms of a service document. */
export function invoiceTerms(doc: Json, ctx: TermsContext): InvoiceTerms {
  const address = isRecord(doc.BusinessPartnerAddress) ? doc.BusinessPartnerAddress : null;
  const recap = isRecord(doc.DocumentRecapitulation) ? doc.DocumentRecapitulation : null;
  const reverseCharge = doc.IsReverseCharge === true;
  const items = (Array.isArray(doc.Items) ? doc.Items : []).filter(isRecord);
  const lines = items.map((item, i) => line(item, i, reverseCharge, ctx));
  const sums = (recap && Array.isArray(recap.VatRateSums) ? recap.VatRateSums : []).filter(isRecord);
  return {
    number: text(doc, 'DocumentNumber', ''),
    issueDate: text(doc, 'IssueDate', ''),
    currency: text(doc, 'CurrencyId', ''),
    dueDate: text(doc, 'DueDate', ''),
    buyerReference: text(doc, 'VariableSymbol', ''),
    orderReference: text(doc, 'OrderNumber', ''),
    buyer: party(address, 'BusinessPartnerAddress'),
    seller: ctx.seller ? sellerParty(ctx.seller) : null,
    reverseCharge,
    lines,
    breakdown: sums.map((s, i) => breakdownEntry(s, i, lines, ctx)),
    totalWithVat: amount(recap, 'TotalPrice', 'DocumentRecapitulation'),
    rounding: typeof recap?.Rounding === 'string' ? recap.Rounding : 'None',
    emptyFields: emptyFieldsOf(doc),
  };
}
