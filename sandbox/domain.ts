/**
 * The business behaviour of the sandbox: imports, the address book, transfers as a state
 * machine, advance-invoice deduction, liquidation, bank documents, e-mail outbox and
 * e-invoicing sendings. Everything acts on `SandboxState`.
 */
import * as z from 'zod';
import type { ApiRecord } from '../functions/accounting/api.js';
import { findCollection } from '../functions/accounting/collections.js';
import {
  addressFromPartner,
  buildItem,
  documentNumber,
  documentTypes,
  type ItemInput,
  iso,
  recapitulation,
  typeSpecificFields,
} from './generator.js';
import { notFound, ProblemError, validationError } from './http.js';
import type { ResolvedSandboxOptions } from './options.js';
import { GUID_PATTERN, hashString, money, Rng } from './random.js';
import { registry } from './slovak-data.js';
import type { SandboxState } from './state.js';
import { validate } from './validation.js';

const guid = z.string().regex(GUID_PATTERN, 'must be a GUID');
const dateTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date-time');
const vatRateType = z.enum(['ZeroVatRate', 'BasicVatRate', 'FirstReducedVatRate', 'SecondReducedVatRate']);
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
  VatClassificationId: guid.nullish(),
});

const priceListItemSchema = z
  .looseObject({
    /** The public DTO's name; `Id` is still accepted from older clients. */
    PriceListItemId: guid.optional(),
    Id: guid.optional(),
    Quantity: z.number().gt(0).default(1),
    UnitPrice: z.number().nullish(),
    UnitPriceVatType: unitPriceVatType.nullish(),
    VatRateType: vatRateType.nullish(),
    DiscountPercentage: z.number().min(0).max(100).default(0),
    Note: z.string().nullish(),
    VatClassificationId: guid.nullish(),
  })
  .refine((p) => (p.PriceListItemId ?? p.Id) !== undefined, {
    message: "'PriceListItemId' must not be empty.",
    path: ['PriceListItemId'],
  });

const itemSchema = z
  .looseObject({ TextItem: textItemSchema.optional(), PriceListItem: priceListItemSchema.optional() })
  .refine((i) => (i.TextItem ? 1 : 0) + (i.PriceListItem ? 1 : 0) === 1, {
    message: "Exactly one of 'TextItem' or 'PriceListItem' must be given.",
  });

/** Name, address and identification: a document's own address and an address-book entry share them. */
const contactFields = {
  CompanyName: z.string().nullish(),
  Name: z.string().nullish(),
  Street: z.string().nullish(),
  City: z.string().nullish(),
  PostCode: z.string().nullish(),
  Country: z.string().nullish(),
  IdentificationNumber: z.string().nullish(),
  TaxIdentificationNumber: z.string().nullish(),
  VatIdentificationNumber: z.string().nullish(),
  Email: z.string().nullish(),
  PhoneNumber: z.string().nullish(),
};

const addressWithoutLinkSchema = z.looseObject(contactFields);

const documentAddressSchema = z.looseObject({
  DocumentAddressWithAddressBookLink: z.looseObject({ Id: guid }).nullish(),
  DocumentAddressWithoutAddressBookLink: addressWithoutLinkSchema.nullish(),
  DeliveryAddress: z.looseObject({}).nullish(),
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
  SellingPriceCode: z.string().nullish(),
  ContractNumber: z.string().nullish(),
  IsReverseCharge: z.boolean().nullish(),
  VariableSymbol: z.string().max(10).nullish(),
  OrderNumber: z.string().nullish(),
  OrderDate: dateTime.nullish(),
  VatRounding: z.enum(['None', 'NoneEveryRate']).nullish(),
  Rounding: z.string().nullish(),
  BusinessPartnerAddress: documentAddressSchema.nullish(),
  Items: z.array(itemSchema).min(1),
});

const partnerFields = {
  ...contactFields,
  Web: z.string().nullish(),
  Note: z.string().nullish(),
  BusinessDetails: z
    .looseObject({
      DuePeriod: z.number().int().min(0).nullish(),
      VatRateType: vatRateType.nullish(),
      DiscountPercentage: z.number().min(0).max(100).nullish(),
    })
    .nullish(),
  DeliveryAddresses: z.array(z.looseObject({ Name: z.string().min(1) })).nullish(),
};

/** `AddressResolutionMode` values (assumed; not public). */
export const addressResolutionModes = ['None', 'ByIdentificationNumber'] as const;

const createPartnerSchema = z.looseObject({
  ...partnerFields,
  AddressResolutionMode: z.enum(addressResolutionModes).default('None'),
});

const transferBodySchema = z
  .looseObject({ IssueDate: dateTime.nullish(), Note: z.string().nullish(), Text: z.string().nullish() })
  .nullish();

const bulkTransferSchema = z.looseObject({
  Ids: z.array(guid).min(1),
  IssueDate: dateTime.nullish(),
  Note: z.string().nullish(),
});

const deductionSchema = z.looseObject({
  IssuedInvoiceId: guid,
  IssuedAdvanceInvoiceId: guid,
  Amount: z.number().gt(0).nullish(),
});

const liquidateSchema = z.looseObject({ Date: dateTime.nullish(), Note: z.string().nullish() }).nullish();

const bankDocumentSchema = z.looseObject({
  IssueDate: dateTime.nullish(),
  BankAccountId: guid.nullish(),
  Text: z.string().nullish(),
  Items: z
    .array(
      z.looseObject({
        Amount: z.number().gt(0),
        Text: z.string().nullish(),
        VariableSymbol: z.string().nullish(),
        DocumentId: guid.nullish(),
        Collection: z.string().nullish(),
      }),
    )
    .min(1),
});

const emailSchema = z.looseObject({
  To: z.union([z.email(), z.array(z.email()).min(1)]),
  Cc: z.union([z.email(), z.array(z.email())]).nullish(),
  Subject: z.string().nullish(),
  Body: z.string().nullish(),
  Language: z.enum(['Current', 'English']).nullish(),
});

export interface Warning {
  Code: string;
  Message: string;
}

export interface Created {
  Data: ApiRecord;
  Warnings: Warning[];
}

export interface LiquidationEntry {
  Date: string;
  Amount: number;
  Note: string | null;
  Kind: 'Seeded' | 'Standalone' | 'BankDocument';
}

export interface OutboxMessage {
  Id: string;
  Collection: string;
  DocumentId: string;
  DocumentNumber: string;
  To: string[];
  Cc: string[];
  Subject: string;
  Body: string;
  Attachment: { FileName: string; ContentType: string };
  SentAt: string;
}

export type TransportStatus = 'Queued' | 'Sent' | 'Delivered' | 'TransportFailed';
export type ResponseCode = 'AB' | 'IP' | 'UQ' | 'CA' | 'RE' | 'AP' | 'PD';

interface SendingStep {
  atMs: number;
  Status: TransportStatus;
  ResponseCode: ResponseCode | null;
}

interface Sending {
  SendingId: string;
  Collection: string;
  DocumentId: string;
  DocumentNumber: string;
  steps: SendingStep[];
}

const responseDescriptions: Record<ResponseCode, string> = {
  AB: 'Message acknowledgement',
  IP: 'In process',
  UQ: 'Under query',
  CA: 'Conditionally accepted',
  RE: 'Rejected',
  AP: 'Accepted',
  PD: 'Fully paid',
};

/** Which transfers exist: source collection → target, and the item link field set on the target. */
const transfers: Record<string, { target: string; itemLink: string }> = {
  ReceivedOrders: { target: 'IssueSlips', itemLink: 'ReceivedOrderItemId' },
  IssueSlips: { target: 'IssuedInvoices', itemLink: 'IssueSlipItemId' },
  IssuedOffers: { target: 'ReceivedOrders', itemLink: 'IssuedOfferItemId' },
  IssuedOrders: { target: 'ReceivedInvoices', itemLink: 'IssuedOrderItemId' },
};

const transferable = new Set(['Unfinished', 'PartiallyFinished', 'SentForApproval']);
export const eInvoiceCollections = new Set([
  'IssuedInvoices',
  'IssuedAdvanceInvoices',
  'IssuedCreditNotes',
  'IssuedDebitNotes',
]);

function today(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)}T00:00:00`;
}

function docRef(collection: string, record: ApiRecord) {
  return { Collection: collection, Id: record.Id, DocumentNumber: record.DocumentNumber ?? null };
}

export class Domain {
  liquidations = new Map<string, LiquidationEntry[]>();
  outbox: OutboxMessage[] = [];
  sendings = new Map<string, Sending>();
  bankDocuments = new Map<string, ApiRecord>();
  private rng: Rng;

  constructor(
    readonly state: SandboxState,
    private readonly options: () => ResolvedSandboxOptions,
  ) {
    this.rng = new Rng(state.settings.seed ^ 0xd0c);
  }

  reset(): void {
    this.liquidations.clear();
    this.outbox = [];
    this.sendings.clear();
    this.bankDocuments.clear();
    this.rng = new Rng(this.state.settings.seed ^ 0xd0c);
  }

  private now(): number {
    return this.state.nowMs();
  }

  private requireLatest(collection: string, id: string): ApiRecord {
    if (!GUID_PATTERN.test(id)) throw notFound();
    const record = this.state.getLatest(collection, id);
    if (!record) throw notFound(`${collection} '${id}' does not exist.`);
    return record;
  }

  private partnerOf(address: unknown): ApiRecord | undefined {
    const id = (address as { Id?: unknown } | null | undefined)?.Id;
    return typeof id === 'string' ? this.state.getLatest('BusinessPartners', id) : undefined;
  }

  /** `POST /v1/<Documents>`: import one document. */
  importDocument(collection: string, body: unknown): Created {
    const input = validate(importSchema, body);
    const warnings: Warning[] = [];
    const info = documentTypes[collection];
    let address: Record<string, unknown> | null = null;
    let partner: ApiRecord | undefined;
    const link = input.BusinessPartnerAddress?.DocumentAddressWithAddressBookLink;
    if (link) {
      partner = this.state.getLatest('BusinessPartners', link.Id);
      if (!partner) throw notFound(`BusinessPartners '${link.Id}' does not exist.`);
      address = addressFromPartner(partner, info?.received ?? false);
    } else if (input.BusinessPartnerAddress?.DocumentAddressWithoutAddressBookLink) {
      const a = input.BusinessPartnerAddress.DocumentAddressWithoutAddressBookLink;
      address = { Id: null, ...a, Country: a.Country ?? 'SK', DeliveryAddress: null };
      if (info?.received) {
        delete address.Email;
        delete address.PhoneNumber;
      }
    }
    if (address && input.BusinessPartnerAddress?.DeliveryAddress) {
      address.DeliveryAddress = input.BusinessPartnerAddress.DeliveryAddress;
    }
    const partnerVat = (partner?.BusinessDetails as { VatRateType?: string } | undefined)?.VatRateType;
    const refs = this.state.refs;
    const items = input.Items.map((wrapper, i) => {
      let item: ItemInput;
      let vatClassificationId: string | null = null;
      if (wrapper.PriceListItem) {
        const p = wrapper.PriceListItem;
        const itemId = (p.PriceListItemId ?? p.Id ?? '').toLowerCase();
        const priceItem = refs.priceListItems.find((x) => x.Id === itemId);
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
          ...(p.UnitPrice != null && p.UnitPriceVatType ? { UnitPriceVatType: p.UnitPriceVatType } : {}),
          VatRateType: p.VatRateType ?? (priceItem.VatRateType as string),
          DiscountPercentage: p.DiscountPercentage,
          PriceListItemId: priceItem.Id,
          Note: p.Note ?? null,
        };
        vatClassificationId = p.VatClassificationId ?? null;
      } else {
        const t = wrapper.TextItem as z.output<typeof textItemSchema>;
        item = {
          Code: t.Code ?? null,
          Text: t.Text,
          Quantity: t.Quantity,
          Unit: t.Unit ?? 'ks',
          UnitPrice: t.UnitPrice,
          UnitPriceVatType: input.IsReverseCharge ? 'ReverseCharge' : t.UnitPriceVatType,
          // No VAT rate on the item: take it from the address book when the address is linked.
          VatRateType: t.VatRateType ?? partnerVat ?? 'BasicVatRate',
          DiscountPercentage: t.DiscountPercentage,
          Note: t.Note ?? null,
        };
        vatClassificationId = t.VatClassificationId ?? null;
      }
      const built = buildItem(refs, this.rng.guid(), item);
      built.VatClassificationId = vatClassificationId;
      return built;
    });
    const homeCurrency = !input.CurrencyId || input.CurrencyId.toLowerCase() === refs.currencyEur;
    let exchangeRate = input.ExchangeRate ?? null;
    if (homeCurrency && exchangeRate !== null) {
      warnings.push({
        Code: 'DocumentInHomeCurrencyCanNotHaveFilledExchangeRate',
        Message: 'The document is in the home currency; the exchange rate was ignored.',
      });
      exchangeRate = null;
    }
    let sellingPriceCode = input.SellingPriceCode ?? null;
    if (sellingPriceCode) {
      const known = (refs.lists.get('SellingPrices') ?? []).some((s) => s.Code === sellingPriceCode);
      if (!known) {
        warnings.push({
          Code: 'SellingPriceCodeDoesNotExist',
          Message: `Selling price code '${sellingPriceCode}' does not exist; it was ignored.`,
        });
        sellingPriceCode = null;
      }
    }
    const now = this.now();
    const issueMs = input.IssueDate ? Date.parse(input.IssueDate) : now;
    const number =
      input.DocumentNumber ??
      documentNumber(
        collection,
        new Date(issueMs).getUTCFullYear(),
        this.state.nextDocumentNumberSequence(collection),
      );
    const duePeriod = Number(
      (partner?.BusinessDetails as { DuePeriod?: number } | undefined)?.DuePeriod ?? 14,
    );
    const typeFields = typeSpecificFields(collection, number, issueMs, duePeriod, 'Unfinished', refs);
    if (info?.invoiceLike) {
      if (input.VariableSymbol) typeFields.VariableSymbol = input.VariableSymbol;
      if (input.DueDate) typeFields.DueDate = input.DueDate;
      if (input.TaxDate) typeFields.TaxDate = input.TaxDate;
      if (input.OrderNumber) typeFields.OrderNumber = input.OrderNumber;
      if (input.OrderDate) typeFields.OrderDate = input.OrderDate;
    }
    const recap = recapitulation(items, exchangeRate);
    recap.VatRounding = input.VatRounding ?? 'None';
    recap.Rounding = input.Rounding ?? 'None';
    const extra: Record<string, unknown> = {};
    if (collection === 'ReceivedOrders' && 'Doklad' in (body as object))
      extra.Doklad = (body as { Doklad: unknown }).Doklad;
    const record = this.state.create(collection, {
      DocumentNumber: number,
      IssueDate: input.IssueDate ?? today(now),
      Text: input.Text ?? null,
      Note: input.Note ?? null,
      InternalNote: input.InternalNote ?? null,
      CurrencyId: input.CurrencyId?.toLowerCase() ?? refs.currencyEur,
      ExchangeRate: exchangeRate,
      ExchangeRateQuantity: exchangeRate === null ? null : (input.ExchangeRateQuantity ?? 1),
      CentreId: input.CentreId ?? null,
      ActivityId: input.ActivityId ?? null,
      PaymentMethodId: input.PaymentMethodId ?? null,
      SellingPriceCode: sellingPriceCode,
      ContractNumber: input.ContractNumber ?? null,
      IsReverseCharge: input.IsReverseCharge ?? false,
      IsSynchronizationToPhEnabled: false,
      ...typeFields,
      ...extra,
      BusinessPartnerAddress: address,
      Items: items,
      SourceDocuments: [],
      ModificationInfo: { CreatedDate: '', ModifiedDate: '' },
      DocumentRecapitulation: recap,
    });
    return { Data: record, Warnings: warnings };
  }

  private resolveRegistry(input: z.output<typeof createPartnerSchema>): Record<string, unknown> {
    if (input.AddressResolutionMode !== 'ByIdentificationNumber') return {};
    if (!input.IdentificationNumber) {
      throw validationError('IdentificationNumber', "'IdentificationNumber' must not be empty.");
    }
    const found = registry.find((r) => r.IdentificationNumber === input.IdentificationNumber);
    if (!found)
      throw notFound(`No company with registration number '${input.IdentificationNumber}' in the registry.`);
    return { ...found, Country: 'SK' };
  }

  /** `POST /v1/BusinessPartners`. */
  createPartner(body: unknown): Created {
    const input = validate(createPartnerSchema, body);
    const resolved = this.resolveRegistry(input);
    const { AddressResolutionMode: _mode, ...fields } = input;
    const merged: Record<string, unknown> = { ...fields, ...resolved };
    if (!merged.City) throw validationError('City', "'City' must not be empty.");
    const record = this.state.create('BusinessPartners', {
      CompanyName: null,
      Name: null,
      Street: null,
      PostCode: null,
      Country: 'SK',
      IdentificationNumber: null,
      TaxIdentificationNumber: null,
      VatIdentificationNumber: null,
      Email: null,
      PhoneNumber: null,
      Web: null,
      Note: null,
      ...merged,
      BusinessDetails: {
        DuePeriod: 14,
        VatRateType: 'BasicVatRate',
        DiscountPercentage: 0,
        ...(input.BusinessDetails ?? {}),
      },
      DeliveryAddresses: input.DeliveryAddresses ?? [],
      ModificationInfo: { CreatedDate: '', ModifiedDate: '' },
    });
    return { Data: record, Warnings: [] };
  }

  /** `PUT /v1/BusinessPartners/{id}`: fields given replace the stored ones. */
  updatePartner(id: string, body: unknown): ApiRecord {
    const input = validate(createPartnerSchema, body);
    this.requireLatest('BusinessPartners', id);
    const resolved = this.resolveRegistry(input);
    const { AddressResolutionMode: _mode, ...fields } = input;
    const patch: Record<string, unknown> = { ...fields, ...resolved };
    if ('City' in patch && !patch.City) throw validationError('City', "'City' must not be empty.");
    const updated = this.state.update('BusinessPartners', id, (r) => {
      for (const [k, v] of Object.entries(patch)) {
        if (k === 'Id' || k === 'ModificationInfo' || v === undefined) continue;
        r[k] = k === 'BusinessDetails' ? { ...(r.BusinessDetails as object), ...(v as object) } : v;
      }
    });
    if (!updated) throw notFound();
    return updated;
  }

  private buildTarget(
    sourceCollection: string,
    sources: ApiRecord[],
    targetCollection: string,
    itemLink: string,
    issueDate: string | null | undefined,
    note: string | null | undefined,
  ): Created {
    const first = sources[0] as ApiRecord;
    const warnings: Warning[] = [];
    const targetInfo = documentTypes[targetCollection];
    const sourceAddress = first.BusinessPartnerAddress as Record<string, unknown> | null;
    let address = sourceAddress ? { ...sourceAddress } : null;
    const partner = this.partnerOf(sourceAddress);
    if (sourceAddress?.Id && !partner) {
      warnings.push({
        Code: 'BusinessPartnerDoesNotExistAnyMore',
        Message: 'The business partner of the source document no longer exists in the address book.',
      });
    }
    if (address && targetInfo?.received) {
      delete address.Email;
      delete address.PhoneNumber;
    } else if (address && partner && !targetInfo?.received && sourceAddress && !('Email' in sourceAddress)) {
      address = { ...address, Email: partner.Email ?? null, PhoneNumber: partner.PhoneNumber ?? null };
    }
    const items = sources.flatMap((s) =>
      ((s.Items as Record<string, unknown>[] | undefined) ?? []).map((item) => {
        const copy: Record<string, unknown> = { ...item, Id: this.rng.guid() };
        copy[itemLink] = item.Id;
        if (itemLink !== 'ReceivedOrderItemId') copy.ReceivedOrderItemId = item.ReceivedOrderItemId ?? null;
        return copy;
      }),
    );
    const now = this.now();
    const issueMs = issueDate ? Date.parse(issueDate) : now;
    const number = documentNumber(
      targetCollection,
      new Date(issueMs).getUTCFullYear(),
      this.state.nextDocumentNumberSequence(targetCollection),
    );
    const duePeriod = Number(
      (partner?.BusinessDetails as { DuePeriod?: number } | undefined)?.DuePeriod ?? 14,
    );
    const typeFields = typeSpecificFields(
      targetCollection,
      number,
      issueMs,
      duePeriod,
      'Unfinished',
      this.state.refs,
    );
    if (targetInfo?.invoiceLike && sourceCollection === 'IssueSlips') {
      typeFields.OrderNumber = sources.map((s) => s.DocumentNumber).join(', ');
    }
    const exchangeRate = (first.ExchangeRate as number | null) ?? null;
    const target = this.state.create(targetCollection, {
      DocumentNumber: number,
      IssueDate: issueDate ?? today(now),
      Text: first.Text ?? null,
      Note: note ?? null,
      InternalNote: null,
      CurrencyId: first.CurrencyId ?? this.state.refs.currencyEur,
      ExchangeRate: exchangeRate,
      ExchangeRateQuantity: first.ExchangeRateQuantity ?? null,
      CentreId: first.CentreId ?? null,
      ActivityId: first.ActivityId ?? null,
      PaymentMethodId: first.PaymentMethodId ?? null,
      SellingPriceCode: first.SellingPriceCode ?? null,
      ContractNumber: first.ContractNumber ?? null,
      IsReverseCharge: first.IsReverseCharge ?? false,
      IsSynchronizationToPhEnabled: false,
      ...typeFields,
      BusinessPartnerAddress: address,
      Items: items,
      SourceDocuments: sources.map((s) => docRef(sourceCollection, s)),
      ModificationInfo: { CreatedDate: '', ModifiedDate: '' },
      DocumentRecapitulation: recapitulation(items, exchangeRate),
    });
    for (const s of sources) {
      this.state.update(sourceCollection, s.Id, (r) => {
        r.Status = 'Finished';
        const targets = Array.isArray(r.TargetDocuments) ? (r.TargetDocuments as unknown[]) : [];
        r.TargetDocuments = [...targets, docRef(targetCollection, target)];
      });
    }
    return { Data: target, Warnings: warnings };
  }

  private checkTransferable(collection: string, record: ApiRecord, field: string): void {
    const status = String(record.Status ?? 'Unfinished');
    if (!transferable.has(status)) {
      throw validationError(
        field,
        `Document '${String(record.DocumentNumber)}' of ${collection} has status '${status}' and cannot be transferred.`,
      );
    }
  }

  /** `POST /v1/<Source>/{id}/Transfer/To<Target>/Fully`. */
  transfer(sourceCollection: string, id: string, body: unknown): Created {
    const rule = transfers[sourceCollection];
    if (!rule) throw notFound();
    const input = validate(transferBodySchema, body);
    const source = this.requireLatest(sourceCollection, id);
    this.checkTransferable(sourceCollection, source, 'Status');
    return this.buildTarget(
      sourceCollection,
      [source],
      rule.target,
      rule.itemLink,
      input?.IssueDate,
      input?.Note,
    );
  }

  /** `POST /v1/IssueSlips/Transfer/ToIssuedInvoice/Fully` with `{ Ids }`. */
  transferSlipsBulk(body: unknown): Created {
    const input = validate(bulkTransferSchema, body);
    const ids = [...new Set(input.Ids.map((i) => i.toLowerCase()))];
    const sources = ids.map((id) => this.requireLatest('IssueSlips', id));
    sources.forEach((s, i) => {
      this.checkTransferable('IssueSlips', s, `Ids[${i}]`);
    });
    const partners = new Set(
      sources.map((s) => {
        const a = s.BusinessPartnerAddress as Record<string, unknown> | null;
        return String(a?.Id ?? a?.CompanyName ?? '');
      }),
    );
    if (partners.size > 1) {
      throw validationError('Ids', 'All issue slips must belong to the same business partner.');
    }
    return this.buildTarget(
      'IssueSlips',
      sources,
      'IssuedInvoices',
      'IssueSlipItemId',
      input.IssueDate,
      input.Note,
    );
  }

  /** `POST /v1/IssuedInvoices/AdvanceInvoiceDeduction`. */
  deductAdvance(body: unknown): Created {
    const input = validate(deductionSchema, body);
    const invoice = this.requireLatest('IssuedInvoices', input.IssuedInvoiceId);
    const advance = this.requireLatest('IssuedAdvanceInvoices', input.IssuedAdvanceInvoiceId);
    const recap = advance.DocumentRecapitulation as {
      TotalPrice: { WithVat: number };
      VatRateSums: Record<string, unknown>[];
    };
    const total = recap.TotalPrice.WithVat;
    const already = Number(advance.DeductedAmount ?? 0);
    const remaining = money(total - already);
    if (remaining <= 0) {
      throw validationError(
        'IssuedAdvanceInvoiceId',
        `Advance invoice '${String(advance.DocumentNumber)}' is already deducted.`,
      );
    }
    const amount = Math.min(input.Amount ?? remaining, remaining);
    if ((input.Amount ?? 0) > remaining) {
      throw validationError('Amount', `'Amount' must be less than or equal to '${remaining}'.`);
    }
    const share = amount / total;
    const items = (invoice.Items as Record<string, unknown>[]) ?? [];
    for (const sum of recap.VatRateSums) {
      const built = buildItem(this.state.refs, this.rng.guid(), {
        Text: `Odpočet zálohy ${String(advance.DocumentNumber)}`,
        Quantity: 1,
        UnitPrice: -money(Number(sum.PriceWithoutVat) * share),
        VatRateType: String(sum.VatRateType),
      });
      built.IssuedAdvanceInvoiceId = advance.Id;
      items.push(built);
    }
    const updated = this.state.update('IssuedInvoices', invoice.Id, (r) => {
      r.Items = items;
      r.DocumentRecapitulation = recapitulation(items, (r.ExchangeRate as number | null) ?? null);
      const deductions = Array.isArray(r.AdvanceInvoiceDeductions)
        ? (r.AdvanceInvoiceDeductions as unknown[])
        : [];
      r.AdvanceInvoiceDeductions = [
        ...deductions,
        { IssuedAdvanceInvoiceId: advance.Id, DocumentNumber: advance.DocumentNumber, Amount: amount },
      ];
    }) as ApiRecord;
    this.state.update('IssuedAdvanceInvoices', advance.Id, (r) => {
      r.DeductedAmount = money(already + amount);
    });
    return { Data: updated, Warnings: [] };
  }

  /** Liquidation state of one invoice (seeded ones are paid deterministically by their id). */
  liquidationState(collection: string, record: ApiRecord) {
    const total = Number(
      (record.DocumentRecapitulation as { TotalPrice?: { WithVat?: number } })?.TotalPrice?.WithVat ?? 0,
    );
    let entries = this.liquidations.get(record.Id);
    if (!entries) {
      const created = String(record.ModificationInfo?.CreatedDate ?? '');
      const seededPaid = hashString(record.Id) % 10 < 6 && Date.parse(created) < this.state.settings.anchorMs;
      entries = seededPaid
        ? [{ Date: String(record.DueDate ?? record.IssueDate), Amount: total, Note: null, Kind: 'Seeded' }]
        : [];
    }
    const paid = money(entries.reduce((s, e) => s + e.Amount, 0));
    const rest = money(total - paid);
    return {
      Id: record.Id,
      Collection: collection,
      DocumentNumber: record.DocumentNumber ?? null,
      TotalPrice: total,
      Paid: paid,
      RestToPay: rest,
      State: paid <= 0 ? 'Unpaid' : rest <= 0 ? 'Paid' : 'PartiallyPaid',
      LiquidationInfos: entries,
    };
  }

  private addLiquidation(collection: string, record: ApiRecord, entry: LiquidationEntry): void {
    const current = this.liquidationState(collection, record).LiquidationInfos;
    this.liquidations.set(record.Id, [...current, entry]);
    this.state.update(collection, record.Id, () => {});
  }

  /** `POST /v1/IssuedAdvanceInvoices/{id}/Liquidate/Standalone/Fully`. */
  liquidateStandalone(id: string, body: unknown) {
    const input = validate(liquidateSchema, body);
    const record = this.requireLatest('IssuedAdvanceInvoices', id);
    const state = this.liquidationState('IssuedAdvanceInvoices', record);
    if (state.RestToPay <= 0)
      throw validationError('Id', `Document '${String(record.DocumentNumber)}' is already liquidated.`);
    this.addLiquidation('IssuedAdvanceInvoices', record, {
      Date: input?.Date ?? today(this.now()),
      Amount: state.RestToPay,
      Note: input?.Note ?? null,
      Kind: 'Standalone',
    });
    return this.liquidationState('IssuedAdvanceInvoices', this.requireLatest('IssuedAdvanceInvoices', id));
  }

  /** `POST /v1/BankDocuments/{Receipts|Payments}[/WithLiquidation]`. */
  createBankDocument(kind: 'Receipt' | 'Payment', withLiquidation: boolean, body: unknown): Created {
    const input = validate(bankDocumentSchema, body);
    const warnings: Warning[] = [];
    const now = this.now();
    if (withLiquidation) {
      input.Items.forEach((item, i) => {
        if (!item.DocumentId) {
          throw validationError(`Items[${i}].DocumentId`, "'DocumentId' must not be empty.");
        }
      });
    }
    const liquidated: { collection: string; record: ApiRecord; amount: number }[] = [];
    if (withLiquidation) {
      input.Items.forEach((item, i) => {
        const collection = findCollection(
          item.Collection ?? (kind === 'Receipt' ? 'IssuedInvoices' : 'ReceivedInvoices'),
        )?.name;
        const record = collection ? this.state.getLatest(collection, String(item.DocumentId)) : undefined;
        if (!collection || !record)
          throw notFound(`Items[${i}]: document '${String(item.DocumentId)}' does not exist.`);
        liquidated.push({ collection, record, amount: item.Amount });
      });
    }
    const number = `BV${new Date(now).getUTCFullYear()}${String(this.bankDocuments.size + 1).padStart(6, '0')}`;
    const record: ApiRecord = {
      Id: this.rng.guid(),
      DocumentNumber: number,
      Kind: kind,
      IssueDate: input.IssueDate ?? today(now),
      BankAccountId: input.BankAccountId ?? this.state.refs.bankAccountIds[0] ?? null,
      Text: input.Text ?? null,
      Items: input.Items.map((i) => ({ Id: this.rng.guid(), ...i })),
      TotalAmount: money(input.Items.reduce((s, i) => s + i.Amount, 0)),
      ModificationInfo: {
        CreatedDate: iso(this.state.stamp()),
        ModifiedDate: iso(this.state.stamp()),
      },
    };
    for (const l of liquidated) {
      this.addLiquidation(l.collection, l.record, {
        Date: String(record.IssueDate),
        Amount: l.amount,
        Note: number,
        Kind: 'BankDocument',
      });
    }
    this.bankDocuments.set(record.Id, record);
    return { Data: record, Warnings: warnings };
  }

  /** `POST /v1/{collection}/{id}/Send/Email`: the message goes to the outbox. */
  sendEmail(collection: string, id: string, body: unknown) {
    const spec = findCollection(collection);
    if (spec?.kind !== 'document') throw notFound(`Unknown document collection '${collection}'.`);
    const input = validate(emailSchema, body);
    const record = this.state.get(spec.name, id);
    if (!record) throw notFound(`${spec.name} '${id}' does not exist.`);
    const list = (v: string | string[] | null | undefined) =>
      v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
    const message: OutboxMessage = {
      Id: this.rng.guid(),
      Collection: spec.name,
      DocumentId: record.Id,
      DocumentNumber: String(record.DocumentNumber ?? ''),
      To: list(input.To),
      Cc: list(input.Cc),
      Subject: input.Subject ?? `Doklad ${String(record.DocumentNumber ?? '')}`,
      Body: input.Body ?? '',
      Attachment: {
        FileName: `${String(record.DocumentNumber ?? record.Id)}.pdf`,
        ContentType: 'application/pdf',
      },
      SentAt: iso(this.now()),
    };
    this.outbox.push(message);
    return { EmailId: message.Id, Status: 'Sent' };
  }

  /** `POST /v1/{collection}/{id}/Send/EInvoice`: accepted, with a status that moves over time. */
  sendEInvoice(collection: string, id: string) {
    const spec = findCollection(collection);
    if (spec?.kind !== 'document') throw notFound(`Unknown document collection '${collection}'.`);
    if (!eInvoiceCollections.has(spec.name)) {
      throw validationError('collection', `${spec.name} cannot be sent through the e-invoicing network.`);
    }
    const record = this.state.get(spec.name, id);
    if (!record) throw notFound(`${spec.name} '${id}' does not exist.`);
    const address = record.BusinessPartnerAddress as Record<string, unknown> | null;
    if (!address?.IdentificationNumber && !address?.VatIdentificationNumber) {
      throw validationError(
        'BusinessPartnerAddress.IdentificationNumber',
        "'IdentificationNumber' must not be empty: the buyer has no e-invoicing participant identifier.",
      );
    }
    const cfg = this.options().eInvoicing;
    const t0 = this.now();
    const step = cfg.stepMs;
    const steps: SendingStep[] = [{ atMs: t0, Status: 'Queued', ResponseCode: null }];
    steps.push({ atMs: t0 + step, Status: 'Sent', ResponseCode: null });
    if (this.rng.chance(cfg.transportFailureProbability)) {
      steps.push({ atMs: t0 + 2 * step, Status: 'TransportFailed', ResponseCode: null });
    } else {
      steps.push({ atMs: t0 + 2 * step, Status: 'Delivered', ResponseCode: null });
      steps.push({ atMs: t0 + 3 * step, Status: 'Delivered', ResponseCode: 'AB' });
      steps.push({ atMs: t0 + 4 * step, Status: 'Delivered', ResponseCode: 'IP' });
      const final = this.rng.weighted(cfg.responseWeights);
      steps.push({ atMs: t0 + 5 * step, Status: 'Delivered', ResponseCode: final });
      let at = t0 + 6 * step;
      let last: ResponseCode = final;
      if (final === 'UQ') {
        last = this.rng.chance(0.8) ? 'AP' : 'RE';
        steps.push({ atMs: at, Status: 'Delivered', ResponseCode: last });
        at += step;
      }
      if (last === 'AP' && this.rng.chance(cfg.paidProbability)) {
        steps.push({ atMs: at, Status: 'Delivered', ResponseCode: 'PD' });
      }
    }
    const sending: Sending = {
      SendingId: this.rng.guid(),
      Collection: spec.name,
      DocumentId: record.Id,
      DocumentNumber: String(record.DocumentNumber ?? ''),
      steps,
    };
    this.sendings.set(sending.SendingId, sending);
    return { SendingId: sending.SendingId, Status: 'Queued' as TransportStatus };
  }

  /** `GET /v1/EInvoicing/Sendings/{sendingId}`. */
  eInvoiceStatus(sendingId: string) {
    const sending = this.sendings.get(sendingId.toLowerCase());
    if (!sending) throw notFound(`Sending '${sendingId}' does not exist.`);
    const now = this.now();
    const reached = sending.steps.filter((s) => s.atMs <= now);
    const current = reached[reached.length - 1] ?? (sending.steps[0] as SendingStep);
    const last = sending.steps[sending.steps.length - 1] as SendingStep;
    return {
      SendingId: sending.SendingId,
      Collection: sending.Collection,
      DocumentId: sending.DocumentId,
      DocumentNumber: sending.DocumentNumber,
      Status: current.Status,
      ResponseCode: current.ResponseCode,
      ResponseDescription: current.ResponseCode ? responseDescriptions[current.ResponseCode] : null,
      IsFinal: current === last,
      History: reached.map((s) => ({
        Date: iso(s.atMs),
        Status: s.Status,
        ResponseCode: s.ResponseCode,
        ResponseDescription: s.ResponseCode ? responseDescriptions[s.ResponseCode] : null,
      })),
    };
  }

  /** Edits a record like a user would (admin API, activity generator, edits while paging). */
  touch(collection: string, id: string, patch?: Record<string, unknown>): ApiRecord | undefined {
    const n = this.rng.int(1, 9999);
    return this.state.update(collection, id, (r) => {
      if (patch && Object.keys(patch).length > 0) {
        for (const [k, v] of Object.entries(patch)) if (k !== 'Id' && k !== 'ModificationInfo') r[k] = v;
      } else {
        r.Note = `Upravené (${n})`;
      }
    });
  }

  /** Raises a problem unless the id is a GUID; used for path ids. */
  static checkId(id: string): void {
    if (id.trim() === '') throw new ProblemError(422, { Id: ["'Id' must not be empty."] });
    if (!GUID_PATTERN.test(id)) throw notFound();
  }
}
