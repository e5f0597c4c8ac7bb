/**
 * Documents in the service's DTO shapes: which DTO each collection answers with, items with
 * computed prices, `DocumentRecapitulation`, the document address, and `shapeDocument`, which
 * reduces a document's values to exactly the properties of its DTO (absent ones null).
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { type DtoName, shapeAs } from './dto-fields.js';
import { money } from './random.js';
import type { ReferenceData } from './reference-data.js';

const DAY = 86_400_000;

export interface DocumentTypeInfo {
  prefix: string;
  weight: number;
  status?: readonly string[];
  invoiceLike: boolean;
  received: boolean;
  /** The DTO of the document and of its items. Lists only the Slovak contract names borrow the nearest one (assumed). */
  dto: DtoName;
  itemDto: DtoName;
  /** The address carries no delivery address (`DocumentAddressWithoutDeliveryAddressDto`). */
  addressWithoutDelivery?: boolean;
}

const invoice = { dto: 'IssuedInvoiceDto', itemDto: 'IssuedInvoiceItemDto' } as const;
const corrective = {
  dto: 'IssuedInvoiceCorrectiveTaxDocumentDto',
  itemDto: 'IssuedInvoiceCorrectiveTaxDocumentItemDto',
} as const;
const received = {
  dto: 'ReceivedInvoiceDto',
  itemDto: 'ReceivedInvoiceItemDto',
  addressWithoutDelivery: true,
} as const;
const orderStatus = ['Unfinished', 'PartiallyFinished', 'Finished', 'PermanentDocument'] as const;

/** Per document collection: number prefix, share of the seeded documents, status enumeration, DTOs. */
export const documentTypes: Readonly<Record<string, DocumentTypeInfo>> = {
  IssuedAdvanceInvoices: {
    prefix: 'ZF',
    weight: 4,
    invoiceLike: true,
    received: false,
    dto: 'IssuedAdvanceInvoiceDto',
    itemDto: 'IssuedAdvanceInvoiceItemDto',
  },
  IssuedInvoices: { prefix: 'FA', weight: 30, invoiceLike: true, received: false, ...invoice },
  IssuedInvoiceCorrectiveTaxDocuments: {
    prefix: 'OD',
    weight: 3,
    invoiceLike: true,
    received: false,
    ...corrective,
  },
  IssuedCreditNotes: { prefix: 'DB', weight: 2, invoiceLike: true, received: false, ...corrective },
  IssuedDebitNotes: { prefix: 'TP', weight: 1, invoiceLike: true, received: false, ...corrective },
  IssuedOffers: {
    prefix: 'CP',
    weight: 5,
    invoiceLike: false,
    received: false,
    status: [
      'Unfinished',
      'PartiallyFinished',
      'Finished',
      'PermanentDocument',
      'SentForApproval',
      'Rejected',
    ],
    dto: 'IssuedOfferDto',
    itemDto: 'IssuedOfferItemDto',
  },
  IssueSlips: {
    prefix: 'DL',
    weight: 15,
    invoiceLike: false,
    received: false,
    status: ['Unfinished', 'PartiallyFinished', 'Finished'],
    dto: 'IssueSlipDto',
    itemDto: 'IssueSlipItemDto',
  },
  ReceivedInvoices: { prefix: 'PF', weight: 12, invoiceLike: true, received: true, ...received },
  ReceivedOrders: {
    prefix: 'OP',
    weight: 20,
    invoiceLike: false,
    received: true,
    status: orderStatus,
    dto: 'ReceivedOrderDto',
    itemDto: 'ReceivedOrderItemDto',
  },
  IssuedOrders: {
    prefix: 'OV',
    weight: 5,
    invoiceLike: false,
    received: false,
    status: orderStatus,
    dto: 'IssuedOrderDto',
    itemDto: 'IssuedOrderItemDto',
    addressWithoutDelivery: true,
  },
  IssuedTaxDocuments: { prefix: 'DD', weight: 2, invoiceLike: true, received: false, ...invoice },
  OtherLiabilities: { prefix: 'OZ', weight: 4, invoiceLike: true, received: true, ...received },
};

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A calendar day as the service writes dates without time: `2026-01-31T00:00:00`. */
export function isoDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)}T00:00:00`;
}

export function documentNumber(collection: string, year: number, sequence: number): string {
  const prefix = documentTypes[collection]?.prefix ?? 'DOC';
  return `${prefix}${year}${String(sequence).padStart(6, '0')}`;
}

/** The document address from an address-book entry (`BusinessPartnerId` links it); `country` where it has none. */
export function addressFromPartner(
  partner: ApiRecord,
  isReceived: boolean,
  country: string,
): Record<string, unknown> {
  return {
    BusinessPartnerId: partner.Id,
    IdentificationNumber: partner.IdentificationNumber ?? null,
    TaxIdentificationNumber: partner.TaxIdentificationNumber ?? null,
    CompanyName: partner.CompanyName ?? null,
    Name: partner.Name ?? null,
    Street: partner.Street ?? null,
    PostCode: partner.PostCode ?? null,
    Division: null,
    City: partner.City ?? null,
    Country: partner.Country ?? country,
    Email: isReceived ? null : (partner.Email ?? null),
    PhoneNumber: isReceived ? null : (partner.PhoneNumber ?? null),
    MobilePhoneNumber: null,
    FaxNumber: null,
    DeliveryAddress: deliveryAddressOf(partner),
  };
}

/** The partner's default delivery address as a document carries it (`DocumentDeliveryAddressDto`), or null. */
function deliveryAddressOf(partner: ApiRecord): Record<string, unknown> | null {
  const list = Array.isArray(partner.DeliveryAddresses)
    ? (partner.DeliveryAddresses as Record<string, unknown>[])
    : [];
  const chosen = list.find((d) => d.IsDefault === true) ?? list[0];
  if (!chosen) return null;
  return {
    DeliveryAddressId: chosen.Id ?? null,
    CompanyName: partner.CompanyName ?? null,
    Name: chosen.Name ?? null,
    Street: chosen.Street ?? null,
    PostCode: chosen.PostCode ?? null,
    Division: null,
    City: chosen.City ?? null,
    Country: chosen.Country ?? partner.Country ?? null,
    Email: partner.Email ?? null,
    PhoneNumber: partner.PhoneNumber ?? null,
  };
}

export interface ItemInput {
  Code?: string | null;
  Text: string;
  Quantity: number;
  Unit?: string | null;
  UnitPrice: number;
  UnitPriceVatType?: string;
  VatRateType: string;
  DiscountPercentage?: number;
  PriceListItemId?: string | null;
  Note?: string | null;
  CentreId?: string | null;
  ActivityId?: string | null;
}

/** A document item with computed prices; it holds every item field any DTO has (links null). */
export function buildItem(refs: ReferenceData, id: string, input: ItemInput): Record<string, unknown> {
  const percents = refs.national.vatPercent;
  const rate = percents[input.VatRateType] ?? percents.BasicVatRate ?? 0;
  const discount = input.DiscountPercentage ?? 0;
  const vatType = input.UnitPriceVatType ?? 'WithoutVat';
  const gross = input.Quantity * input.UnitPrice * (1 - discount / 100);
  let withoutVat: number;
  let vat: number;
  if (vatType === 'WithVat') {
    const withVat = money(gross);
    withoutVat = money(withVat / (1 + rate / 100));
    vat = money(withVat - withoutVat);
  } else if (vatType === 'ReverseCharge') {
    withoutVat = money(gross);
    vat = 0;
  } else {
    withoutVat = money(gross);
    vat = money((withoutVat * rate) / 100);
  }
  return {
    Id: id,
    Code: input.Code ?? null,
    Text: input.Text,
    Quantity: input.Quantity,
    Unit: input.Unit ?? 'ks',
    UnitPrice: input.UnitPrice,
    UnitPriceVatType: vatType,
    VatRateType: input.VatRateType,
    VatRateId: refs.vatRateIds[input.VatRateType] ?? refs.vatRateIds.BasicVatRate ?? null,
    PriceWithoutVat: withoutVat,
    Vat: vat,
    PriceWithVat: money(withoutVat + vat),
    DiscountPercentage: discount,
    PriceListItemId: input.PriceListItemId ?? null,
    Note: input.Note ?? null,
    CentreId: input.CentreId ?? null,
    ActivityId: input.ActivityId ?? null,
  };
}

/** `DocumentRecapitulation` from the items: `TotalPrice` is the total with VAT. */
export function recapitulation(
  items: readonly Record<string, unknown>[],
  exchangeRate: number | null,
  rounding: { VatRounding?: string | null; Rounding?: string | null } = {},
): Record<string, unknown> {
  const sums = new Map<string, { base: number; vat: number }>();
  for (const item of items) {
    const type = String(item.VatRateType);
    const s = sums.get(type) ?? { base: 0, vat: 0 };
    s.base = money(s.base + Number(item.PriceWithoutVat ?? 0));
    s.vat = money(s.vat + Number(item.Vat ?? 0));
    sums.set(type, s);
  }
  let total = 0;
  const vatRateSums = [...sums.entries()].map(([type, s]) => {
    total = money(total + s.base + s.vat);
    return { PriceWithoutVat: s.base, Vat: s.vat, TotalPrice: money(s.base + s.vat), VatRateType: type };
  });
  const foreign = exchangeRate === null ? null : money(total * exchangeRate);
  return {
    TotalPrice: total,
    ForeignCurrencyTotalPriceWithoutRounding: foreign,
    ForeignCurrencyTotalPrice: foreign,
    ForeignCurrencyRoundingAmount: foreign === null ? null : 0,
    VatRounding: rounding.VatRounding ?? 'None',
    Rounding: rounding.Rounding ?? 'None',
    VatRateSums: vatRateSums,
  };
}

/** Fields that depend on the document type: dates, symbols, status. */
export function typeSpecificFields(
  collection: string,
  number: string,
  issueMs: number,
  duePeriod: number,
  status: string | undefined,
  refs: ReferenceData,
): Record<string, unknown> {
  const info = documentTypes[collection];
  const out: Record<string, unknown> = {};
  if (info?.invoiceLike) {
    out.DueDate = isoDate(issueMs + duePeriod * DAY);
    out.TaxDate = isoDate(issueMs);
    out.VariableSymbol = number.replace(/\D/g, '').slice(-10);
    out.BankAccountId = info.received ? null : (refs.bankAccountIds[0] ?? null);
  }
  if (info?.received && info.invoiceLike) {
    out.SupplierInfo = {
      BankAccountNumber: null,
      BankCode: null,
      MessageForRecipient: null,
      DocumentNumber: null,
    };
  }
  if (collection === 'ReceivedOrders') out.IsReserved = false;
  if (info?.status) out.Status = status ?? 'Unfinished';
  return out;
}

/** A document's values reduced to exactly its DTO: top level, address, items and recapitulation. */
export function shapeDocument(collection: string, values: Record<string, unknown>): ApiRecord {
  const info = documentTypes[collection];
  if (!info) throw new Error(`no DTO for document collection '${collection}'`);
  const address = values.BusinessPartnerAddress as Record<string, unknown> | null | undefined;
  const items = (values.Items as Record<string, unknown>[] | undefined) ?? [];
  const recap = (values.DocumentRecapitulation ?? {}) as Record<string, unknown>;
  return shapeAs(info.dto, {
    ...values,
    Text: values.Text ?? '',
    IsSynchronizationToPhEnabled: values.IsSynchronizationToPhEnabled ?? false,
    IsReverseCharge: values.IsReverseCharge ?? false,
    BusinessPartnerAddress: shapeAddress(info, address ?? {}),
    Items: items.map((item) => shapeAs(info.itemDto, item)),
    DocumentRecapitulation: shapeAs('DocumentRecapitulationDto', {
      ...recap,
      VatRateSums: ((recap.VatRateSums as Record<string, unknown>[] | undefined) ?? []).map((s) =>
        shapeAs('DocumentVatRateSumDto', s),
      ),
    }),
  }) as ApiRecord;
}

function shapeAddress(info: DocumentTypeInfo, address: Record<string, unknown>): Record<string, unknown> {
  if (info.addressWithoutDelivery) return shapeAs('DocumentAddressWithoutDeliveryAddressDto', address);
  const delivery = address.DeliveryAddress as Record<string, unknown> | null | undefined;
  return shapeAs('DocumentAddressDto', {
    ...address,
    DeliveryAddress: delivery ? shapeAs('DocumentDeliveryAddressDto', delivery) : null,
  });
}
