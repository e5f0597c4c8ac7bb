/**
 * Creating records through the API: document imports (`POST /v1/<Documents>`), business partners
 * (`POST`, `PUT /v1/BusinessPartners`) and payment methods (`POST /v1/PaymentMethods`). Bodies
 * follow the service's `Create*` DTOs; a few Slovak-contract spellings are accepted as well.
 */
import * as z from 'zod';
import type { ApiRecord } from '../functions/accounting/api.js';
import {
  addressFromPartner,
  buildItem,
  documentNumber,
  documentTypes,
  type ItemInput,
  recapitulation,
  shapeDocument,
  typeSpecificFields,
} from './documents.js';
import { type Created, type DomainContext, requireLatest, today, type Warning } from './domain-context.js';
import { notFound, validationError } from './http.js';
import { defaultBusinessDetails, resolveFromRegistry, shapePartner } from './partners.js';
import { GUID_PATTERN } from './random.js';
import { paymentMethodValues, shapeReference } from './reference-data.js';
import { validate } from './validation.js';

const guid = z.string().regex(GUID_PATTERN, 'must be a GUID');
const dateTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date-time');
export const vatRateType = z.enum([
  'ZeroVatRate',
  'BasicVatRate',
  'FirstReducedVatRate',
  'SecondReducedVatRate',
]);
const unitPriceVatType = z.enum(['WithoutVat', 'WithVat', 'ReverseCharge']);

const textItemSchema = z.looseObject({
  Code: z.string().nullish(),
  Text: z.string().min(1),
  Quantity: z.number().gt(0).default(1),
  Unit: z.string().nullish(),
  UnitPrice: z.number().default(0),
  UnitPriceVatType: unitPriceVatType.default('WithoutVat'),
  VatRateType: vatRateType.nullish(),
  DiscountPercentage: z.number().min(0).max(100).default(0),
  Note: z.string().nullish(),
  CentreId: guid.nullish(),
  ActivityId: guid.nullish(),
});

const priceListItemSchema = z
  .looseObject({
    PriceListItemId: guid.optional(),
    /** The Slovak contract's spelling of `PriceListItemId`. */
    Id: guid.optional(),
    Quantity: z.number().gt(0).default(1),
    UnitPrice: z.number().nullish(),
    UnitPriceVatType: unitPriceVatType.nullish(),
    VatRateType: vatRateType.nullish(),
    DiscountPercentage: z.number().min(0).max(100).default(0),
    Note: z.string().nullish(),
    CentreId: guid.nullish(),
    ActivityId: guid.nullish(),
  })
  .refine((p) => p.PriceListItemId !== undefined || p.Id !== undefined, {
    message: "'PriceListItemId' must not be empty.",
    path: ['PriceListItemId'],
  });

const itemSchema = z
  .looseObject({ TextItem: textItemSchema.nullish(), PriceListItem: priceListItemSchema.nullish() })
  .refine((i) => (i.TextItem ? 1 : 0) + (i.PriceListItem ? 1 : 0) === 1, {
    message: "Exactly one of 'TextItem' or 'PriceListItem' must be given.",
  });

const contactFields = {
  IdentificationNumber: z.string().nullish(),
  TaxIdentificationNumber: z.string().nullish(),
  CompanyName: z.string().nullish(),
  Name: z.string().nullish(),
  Division: z.string().nullish(),
  Street: z.string().nullish(),
  PostCode: z.string().nullish(),
  City: z.string().nullish(),
  Country: z.string().nullish(),
  Email: z.string().nullish(),
  PhoneNumber: z.string().nullish(),
  MobilePhoneNumber: z.string().nullish(),
  FaxNumber: z.string().nullish(),
};

const deliveryAddressSchema = z.looseObject({
  DeliveryAddressWithAddressBookLink: z.looseObject({ Id: guid }).nullish(),
  DeliveryAddressWithoutAddressBookLink: z.looseObject(contactFields).nullish(),
});

const documentAddressSchema = z.looseObject({
  DocumentAddressWithAddressBookLink: z.looseObject({ Id: guid }).nullish(),
  DocumentAddressWithoutAddressBookLink: z.looseObject(contactFields).nullish(),
  DeliveryAddress: deliveryAddressSchema.nullish(),
});

const importSchema = z.looseObject({
  DocumentNumber: z.string().nullish(),
  IssueDate: dateTime.nullish(),
  DueDate: dateTime.nullish(),
  TaxDate: dateTime.nullish(),
  Text: z.string().nullish(),
  Note: z.string().nullish(),
  InternalNote: z.string().nullish(),
  CurrencyId: guid.nullish(),
  ExchangeRate: z.number().gt(0).nullish(),
  ExchangeRateQuantity: z.number().gt(0).nullish(),
  CentreId: guid.nullish(),
  ActivityId: guid.nullish(),
  PaymentMethodId: guid.nullish(),
  BankAccountId: guid.nullish(),
  CashRegisterId: guid.nullish(),
  SellingPriceCode: z.string().nullish(),
  ContractNumber: z.string().nullish(),
  IsReverseCharge: z.boolean().nullish(),
  IsSynchronizationToPhEnabled: z.boolean().nullish(),
  VariableSymbol: z.string().max(10).nullish(),
  OrderNumber: z.string().nullish(),
  OrderDate: dateTime.nullish(),
  VatRounding: z.enum(['None', 'NoneEveryRate']).nullish(),
  Rounding: z.string().nullish(),
  BusinessPartnerAddress: documentAddressSchema.nullish(),
  Items: z.array(itemSchema).min(1),
});

/** `AddressResolutionMode` values (assumed; not public). */
export const addressResolutionModes = ['None', 'ByIdentificationNumber'] as const;

const createPartnerSchema = z.looseObject({
  ...contactFields,
  Web: z.string().nullish(),
  Note: z.string().nullish(),
  InternalNote: z.string().nullish(),
  BusinessDetails: z
    .looseObject({
      Number: z.string().nullish(),
      Contract: z.string().nullish(),
      DuePeriod: z.number().int().min(0).nullish(),
      PaymentTypeId: guid.nullish(),
      CentreId: guid.nullish(),
      ActivityId: guid.nullish(),
      TextItemVatRateId: guid.nullish(),
      PriceListItemVatRateId: guid.nullish(),
      DocumentVariableSymbolSource: z
        .enum(['DocumentNumber', 'BusinessPartnerNumber', 'BusinessPartnerContractNumber'])
        .nullish(),
    })
    .nullish(),
  DeliveryAddresses: z
    .array(z.looseObject({ ...contactFields, IsDefault: z.boolean().default(false) }))
    .nullish(),
  AddressResolutionMode: z.enum(addressResolutionModes).default('None'),
});

const createPaymentMethodSchema = z.looseObject({
  Name: z.string().min(1).max(32),
  Description: z.string().max(255).nullish(),
  PaymentMethodTypeId: guid.nullish(),
  IsUsedInSaleVoucher: z.boolean(),
  IsUsedInOtherAgendas: z.boolean(),
  CurrencyId: guid.nullish(),
  TicketValue: z.number().nullish(),
  AdditionalTextForPrint: z.string().max(60).nullish(),
  AdditionalEnglishTextForPrint: z.string().max(60).nullish(),
});

type ImportInput = z.output<typeof importSchema>;

function importItems(ctx: DomainContext, input: ImportInput, partner: ApiRecord | undefined) {
  const refs = ctx.state.refs;
  const details = partner?.BusinessDetails as { TextItemVatRateId?: string | null } | undefined;
  const partnerVat = (refs.lists.get('VatRates') ?? []).find((v) => v.Id === details?.TextItemVatRateId)
    ?.VatRateType as string | undefined;
  return input.Items.map((wrapper, i) => {
    let item: ItemInput;
    if (wrapper.PriceListItem) {
      const p = wrapper.PriceListItem;
      const id = (p.PriceListItemId ?? p.Id ?? '').toLowerCase();
      const priceItem = refs.priceListItems.find((x) => x.Id === id);
      if (!priceItem) {
        throw validationError(
          `Items[${i}].PriceListItem.PriceListItemId`,
          "'PriceListItemId' must refer to an existing price list item.",
        );
      }
      item = {
        Code: priceItem.Code as string,
        Text: priceItem.Name as string,
        Quantity: p.Quantity,
        Unit: priceItem.Unit as string,
        UnitPrice: p.UnitPrice ?? (priceItem.UnitPrice as number),
        // A VAT type only qualifies a price given here; the price list's own price is without VAT.
        UnitPriceVatType: p.UnitPrice != null && p.UnitPriceVatType ? p.UnitPriceVatType : 'WithoutVat',
        VatRateType: p.VatRateType ?? (priceItem.VatRate as string),
        DiscountPercentage: p.DiscountPercentage,
        PriceListItemId: priceItem.Id,
        Note: p.Note ?? null,
        CentreId: p.CentreId ?? null,
        ActivityId: p.ActivityId ?? null,
      };
    } else {
      const t = wrapper.TextItem as z.output<typeof textItemSchema>;
      item = {
        Code: t.Code ?? null,
        Text: t.Text,
        Quantity: t.Quantity,
        Unit: t.Unit ?? 'ks',
        UnitPrice: t.UnitPrice,
        UnitPriceVatType: input.IsReverseCharge ? 'ReverseCharge' : t.UnitPriceVatType,
        // No VAT rate on the item: take the address book's text-item rate when the address is linked.
        VatRateType: t.VatRateType ?? partnerVat ?? 'BasicVatRate',
        DiscountPercentage: t.DiscountPercentage,
        Note: t.Note ?? null,
        CentreId: t.CentreId ?? null,
        ActivityId: t.ActivityId ?? null,
      };
    }
    // The company has no such rate (cz has no second reduced rate since 2024).
    if (refs.vatRateIds[item.VatRateType] === undefined) {
      const field = wrapper.PriceListItem ? 'PriceListItem' : 'TextItem';
      throw validationError(
        `Items[${i}].${field}.VatRateType`,
        `'VatRateType' must be one of the company's VAT rates (${Object.keys(refs.vatRateIds).join(', ')}).`,
      );
    }
    return buildItem(refs, ctx.rng().guid(), item);
  });
}

function importAddress(ctx: DomainContext, collection: string, input: ImportInput) {
  const isReceived = documentTypes[collection]?.received ?? false;
  const given = input.BusinessPartnerAddress;
  let address: Record<string, unknown> | null = null;
  let partner: ApiRecord | undefined;
  const link = given?.DocumentAddressWithAddressBookLink;
  if (link) {
    partner = ctx.state.getLatest('BusinessPartners', link.Id);
    if (!partner) throw notFound(`BusinessPartners '${link.Id}' does not exist.`);
    address = addressFromPartner(partner, isReceived, ctx.state.refs.national.country);
  } else if (given?.DocumentAddressWithoutAddressBookLink) {
    const a = given.DocumentAddressWithoutAddressBookLink;
    address = { BusinessPartnerId: null, ...a, Country: a.Country ?? ctx.state.refs.national.country };
    if (isReceived) address = { ...address, Email: null, PhoneNumber: null };
  }
  const delivery = given?.DeliveryAddress;
  if (address && delivery) {
    const linked = delivery.DeliveryAddressWithAddressBookLink?.Id;
    const stored = ((partner?.DeliveryAddresses as Record<string, unknown>[] | undefined) ?? []).find(
      (d) => d.Id === linked?.toLowerCase(),
    );
    if (linked && !stored) throw notFound(`Delivery address '${linked}' does not exist.`);
    address.DeliveryAddress = stored
      ? { ...stored, DeliveryAddressId: stored.Id }
      : (delivery.DeliveryAddressWithoutAddressBookLink ?? null);
  }
  return { address, partner };
}

/** `POST /v1/<Documents>`: import one document. */
export function importDocument(ctx: DomainContext, collection: string, body: unknown): Created {
  const input = validate(importSchema, body);
  const warnings: Warning[] = [];
  const refs = ctx.state.refs;
  const { address, partner } = importAddress(ctx, collection, input);
  const items = importItems(ctx, input, partner);
  const homeCurrency = !input.CurrencyId || input.CurrencyId.toLowerCase() === refs.homeCurrency;
  let exchangeRate = input.ExchangeRate ?? null;
  if (homeCurrency && exchangeRate !== null) {
    warnings.push({
      Code: 'DocumentInHomeCurrencyCanNotHaveFilledExchangeRate',
      Message: 'The document is in the home currency; the exchange rate was ignored.',
    });
    exchangeRate = null;
  }
  let sellingPriceCode = input.SellingPriceCode ?? null;
  if (sellingPriceCode && !(refs.lists.get('SellingPrices') ?? []).some((s) => s.Code === sellingPriceCode)) {
    warnings.push({
      Code: 'SellingPriceCodeDoesNotExist',
      Message: `Selling price code '${sellingPriceCode}' does not exist; it was ignored.`,
    });
    sellingPriceCode = null;
  }
  const now = ctx.now();
  const issueMs = input.IssueDate ? Date.parse(input.IssueDate) : now;
  const year = new Date(issueMs).getUTCFullYear();
  const number =
    input.DocumentNumber ??
    documentNumber(collection, year, ctx.state.nextDocumentNumberSequence(collection));
  const duePeriod = Number((partner?.BusinessDetails as { DuePeriod?: number } | undefined)?.DuePeriod ?? 14);
  const typeFields = typeSpecificFields(collection, number, issueMs, duePeriod, 'Unfinished', refs);
  for (const key of [
    'VariableSymbol',
    'DueDate',
    'TaxDate',
    'OrderNumber',
    'OrderDate',
    'BankAccountId',
  ] as const) {
    if (input[key]) typeFields[key] = input[key];
  }
  const values = {
    ...input,
    DocumentNumber: number,
    IssueDate: input.IssueDate ?? today(now),
    CurrencyId: input.CurrencyId?.toLowerCase() ?? refs.homeCurrency,
    ExchangeRate: exchangeRate,
    ExchangeRateQuantity: exchangeRate === null ? null : (input.ExchangeRateQuantity ?? 1),
    PaymentMethodId: input.PaymentMethodId ?? refs.paymentFormIds[0] ?? null,
    SellingPriceCode: sellingPriceCode,
    IsReverseCharge: input.IsReverseCharge ?? false,
    ...typeFields,
    BusinessPartnerAddress: address,
    Items: items,
    ModificationInfo: {},
    DocumentRecapitulation: recapitulation(items, exchangeRate, input),
  };
  const shaped = shapeDocument(collection, values);
  // Slovak contract only (assumed, never in cz): a received order keeps the imported `Doklad`.
  const doklad = (body as { Doklad?: unknown }).Doklad;
  if (collection === 'ReceivedOrders' && ctx.state.settings.variant === 'sk' && typeof doklad === 'string') {
    shaped.Doklad = doklad;
  }
  const record = ctx.state.create(collection, shaped);
  return { Data: record, Warnings: warnings };
}

function newDeliveryAddresses(ctx: DomainContext, list: Record<string, unknown>[] | null | undefined) {
  return (list ?? []).map((d) => ({ ...d, Id: ctx.rng().guid() }));
}

/** `POST /v1/BusinessPartners`. */
export function createPartner(ctx: DomainContext, body: unknown): Created {
  const input = validate(createPartnerSchema, body);
  const resolved = resolveFromRegistry(ctx.state.refs.national, input);
  const { AddressResolutionMode: _mode, ...fields } = input;
  const merged: Record<string, unknown> = { ...fields, ...resolved };
  if (!merged.City) throw validationError('City', "'City' must not be empty.");
  const values = {
    Country: ctx.state.refs.national.country,
    ...merged,
    BusinessDetails: {
      ...defaultBusinessDetails(ctx.state.refs.vatRateIds.BasicVatRate ?? null),
      ...(input.BusinessDetails ?? {}),
    },
    DeliveryAddresses: newDeliveryAddresses(ctx, input.DeliveryAddresses),
    ModificationInfo: {},
  };
  const record = ctx.state.create('BusinessPartners', shapePartner(values));
  return { Data: record, Warnings: [] };
}

/** `PUT /v1/BusinessPartners/{id}` (Slovak contract): fields given replace the stored ones. */
export function updatePartner(ctx: DomainContext, id: string, body: unknown): ApiRecord {
  const input = validate(createPartnerSchema, body);
  requireLatest(ctx, 'BusinessPartners', id);
  const resolved = resolveFromRegistry(ctx.state.refs.national, input);
  const { AddressResolutionMode: _mode, ...fields } = input;
  const patch: Record<string, unknown> = { ...fields, ...resolved };
  if ('City' in patch && !patch.City) throw validationError('City', "'City' must not be empty.");
  const updated = ctx.state.update('BusinessPartners', id, (r) => {
    for (const [k, v] of Object.entries(patch)) {
      if (k === 'Id' || k === 'ModificationInfo' || v === undefined) continue;
      if (k === 'BusinessDetails') r[k] = { ...(r.BusinessDetails as object), ...(v as object) };
      else if (k === 'DeliveryAddresses') r[k] = newDeliveryAddresses(ctx, v as Record<string, unknown>[]);
      else r[k] = v;
    }
    Object.assign(r, shapePartner(r));
  });
  if (!updated) throw notFound();
  return updated;
}

/** `POST /v1/PaymentMethods`. */
export function createPaymentMethod(ctx: DomainContext, body: unknown): Created {
  const input = validate(createPaymentMethodSchema, body);
  const types = ctx.state.refs.lists.get('PaymentMethodTypes') ?? [];
  if (input.PaymentMethodTypeId && !types.some((t) => t.Id === input.PaymentMethodTypeId?.toLowerCase())) {
    throw notFound(`PaymentMethodTypes '${input.PaymentMethodTypeId}' does not exist.`);
  }
  const values = paymentMethodValues({
    ...input,
    PaymentMethodTypeId: input.PaymentMethodTypeId?.toLowerCase() ?? types[0]?.Id ?? null,
    CurrencyId: input.CurrencyId?.toLowerCase() ?? null,
    ModificationInfo: {},
  });
  const record = ctx.state.create('PaymentMethods', shapeReference('PaymentMethods', values));
  return { Data: record, Warnings: [] };
}
