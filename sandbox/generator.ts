/**
 * Deterministic generation of the demo company's business partners and documents, on demand
 * from (seed, collection, index), so a seed of 200,000 documents keeps only a small index entry
 * per record in memory. Records come out in the service's DTO shapes. Reference lists:
 * `reference-data.ts`.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import {
  addressFromPartner,
  buildItem,
  documentNumber,
  documentTypes,
  isoDate,
  recapitulation,
  shapeDocument,
  typeSpecificFields,
} from './documents.js';
import { applyDefect, drawDefect } from './einvoice-defects.js';
import type { NationalData } from './national-data.js';
import { shapePartner } from './partners.js';
import { hashString, mix, Rng } from './random.js';
import { fullModificationInfo, type ReferenceData } from './reference-data.js';

export { SANDBOX_USER_ID } from './reference-data.js';

const DAY = 86_400_000;

export type Precision = 'ms' | 's';

export function truncate(ms: number, precision: Precision): number {
  return precision === 's' ? Math.floor(ms / 1000) * 1000 : ms;
}

export interface SeedHead {
  id: string;
  created: number;
  modified: number;
}

export interface GeneratorContext {
  seed: number;
  anchorMs: number;
  precision: Precision;
  partnerCount: number;
  refs: ReferenceData;
  /** Seeded issued invoices (corrective tax documents point at one of them). */
  invoiceCount: number;
}

/** The random stream of one seeded record; the first draws are its head (id and dates). */
export function recordRng(seed: number, collection: string, index: number): Rng {
  return new Rng(mix(seed, hashString(collection), index));
}

/** Id and timestamps of a seeded record, cheaply (no full record built). */
export function seedHead(ctx: GeneratorContext, collection: string, index: number, rng?: Rng): SeedHead {
  const r = rng ?? recordRng(ctx.seed, collection, index);
  const id = r.guid();
  const created = ctx.anchorMs - r.int(1, 365) * DAY + r.int(0, DAY - 1);
  const modified = r.chance(0.35) ? Math.min(ctx.anchorMs - 1, created + r.int(0, 20 * DAY)) : created;
  return { id, created: truncate(created, ctx.precision), modified: truncate(modified, ctx.precision) };
}

function person(n: NationalData, r: Rng): { first: string; last: string } {
  const female = r.chance(0.5);
  const pair = r.pick(n.surnames);
  return { first: r.pick(female ? n.femaleFirstNames : n.maleFirstNames), last: female ? pair[1] : pair[0] };
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

const partnerCache = new WeakMap<GeneratorContext, Map<number, ApiRecord>>();

/** A business partner as seeded (cached per context; callers must not change it). */
function seededPartner(ctx: GeneratorContext, index: number): ApiRecord {
  let cache = partnerCache.get(ctx);
  if (!cache) {
    cache = new Map();
    partnerCache.set(ctx, cache);
  }
  let partner = cache.get(index);
  if (!partner) {
    partner = generatePartner(ctx, index);
    if (cache.size < 20_000) cache.set(index, partner);
  }
  return partner;
}

/** A business partner, generated from its index. */
export function generatePartner(ctx: GeneratorContext, index: number): ApiRecord {
  const n = ctx.refs.national;
  const r = recordRng(ctx.seed, 'BusinessPartners', index);
  const head = seedHead(ctx, 'BusinessPartners', index, r);
  const isCompany = r.chance(0.75);
  const p = person(n, r);
  const [city, postCode] = r.pick(n.cities);
  const companyName = isCompany
    ? `${r.pick(n.companyStems)} ${r.pick(n.companyKinds)} ${r.pick(n.legalForms)}`
    : `${p.first} ${p.last}`;
  const { ico, taxId } = n.partnerTaxIds(r, isCompany);
  const domain = isCompany
    ? `${ascii(companyName.split(' ').slice(0, 2).join(''))}.${n.webDomain}`
    : 'gmail.com';
  const duePeriod = r.pick([7, 14, 14, 14, 30]);
  const withDelivery = r.chance(0.3);
  const deliveryStreet = `${r.pick(n.streets)} ${r.int(1, 80)}`;
  return shapePartner({
    Id: head.id,
    IdentificationNumber: ico,
    TaxIdentificationNumber: taxId,
    CompanyName: companyName,
    Name: `${p.first} ${p.last}`,
    Street: `${r.pick(n.streets)} ${r.int(1, 120)}`,
    PostCode: postCode,
    City: city,
    Country: n.country,
    Email: `${ascii(p.first)}.${ascii(p.last)}@${domain}`,
    PhoneNumber: n.phoneNumber(r),
    Web: isCompany ? `https://www.${domain}` : null,
    BusinessDetails: {
      DuePeriod: duePeriod,
      TextItemVatRateId: ctx.refs.vatRateIds.BasicVatRate ?? null,
      DocumentVariableSymbolSource: 'DocumentNumber',
    },
    DeliveryAddresses: withDelivery
      ? [
          {
            Id: r.guid(),
            Name: `${n.texts.warehouse} ${city}`,
            Street: deliveryStreet,
            City: city,
            PostCode: postCode,
            Country: n.country,
            IsDefault: true,
          },
        ]
      : [],
    ModificationInfo: fullModificationInfo(head.created, head.modified),
  });
}

/** A document of `collection`, generated from its index. */
export function generateDocument(ctx: GeneratorContext, collection: string, index: number): ApiRecord {
  const n = ctx.refs.national;
  const r = recordRng(ctx.seed, collection, index);
  const head = seedHead(ctx, collection, index, r);
  const info = documentTypes[collection];
  const partnerIndex = r.int(0, Math.max(0, ctx.partnerCount - 1));
  const partner = seededPartner(ctx, partnerIndex);
  const year = new Date(head.created).getUTCFullYear();
  const number = documentNumber(collection, year, index + 1);
  const itemCount = r.int(1, 4);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < itemCount; i++) {
    const p = ctx.refs.priceListItems[r.int(0, ctx.refs.priceListItems.length - 1)];
    const [code, text, unit, price, vatType] = n.products[r.int(0, n.products.length - 1)] ?? [
      '',
      '',
      'ks',
      0,
      'BasicVatRate',
    ];
    items.push(
      buildItem(ctx.refs, r.guid(), {
        Code: (p?.Code as string | undefined) ?? code,
        Text: (p?.Name as string | undefined) ?? text,
        Quantity: r.pick([1, 1, 1, 2, 3, 5, 10]),
        Unit: (p?.Unit as string | undefined) ?? unit,
        UnitPrice: (p?.UnitPrice as number | undefined) ?? price,
        VatRateType: (p?.VatRate as string | undefined) ?? vatType,
        PriceListItemId: p?.Id ?? null,
        Note: exemptionNote(n, (p?.VatRate as string | undefined) ?? vatType),
      }),
    );
  }
  const foreign = r.chance(0.03);
  const exchangeRate = foreign ? n.foreignRate : null;
  let status: string | undefined;
  if (info?.status) {
    const age = ctx.anchorMs - head.created;
    status =
      age < 20 * DAY && r.chance(0.6) ? 'Unfinished' : r.chance(0.8) ? 'Finished' : r.pick(info.status);
  }
  const duePeriod = Number((partner.BusinessDetails as { DuePeriod?: number }).DuePeriod ?? 14);
  const corrected =
    info?.dto === 'IssuedInvoiceCorrectiveTaxDocumentDto' && ctx.invoiceCount > 0
      ? seedHead(ctx, 'IssuedInvoices', r.int(0, ctx.invoiceCount - 1)).id
      : null;
  const values: Record<string, unknown> = {
    Id: head.id,
    CorrectedDocumentId: corrected ?? r.guid(),
    DocumentNumber: number,
    IssueDate: isoDate(head.created),
    Text: info?.received ? n.texts.received(number) : n.texts.issued,
    Note: null,
    InternalNote: null,
    CurrencyId: foreign ? ctx.refs.foreignCurrency : ctx.refs.homeCurrency,
    ExchangeRate: exchangeRate,
    ExchangeRateQuantity: foreign ? 1 : null,
    CentreId: r.pick(ctx.refs.centreIds),
    ActivityId: r.pick(ctx.refs.activityIds),
    PaymentMethodId: r.pick(ctx.refs.paymentFormIds),
    SellingPriceCode: null,
    ContractNumber: null,
    IsReverseCharge: false,
    IsSynchronizationToPhEnabled: false,
    ...typeSpecificFields(collection, number, head.created, duePeriod, status, ctx.refs),
    BusinessPartnerAddress: addressFromPartner(partner, info?.received ?? false, n.country),
    Items: items,
    ModificationInfo: fullModificationInfo(head.created, head.modified),
    DocumentRecapitulation: recapitulation(items, exchangeRate),
  };
  if (collection === 'IssuedInvoices' && n.variant === 'sk') {
    const defects = recordRng(ctx.seed, 'EInvoiceDefects', index);
    const defect = drawDefect(defects, values);
    if (defect) applyDefect(values, defect, defects);
  }
  return shapeDocument(collection, values);
}

/** The exemption reason a Slovak invoice states on a line without VAT (the e-invoice needs it). */
export function exemptionNote(n: NationalData, vatRateType: string): string | null {
  return n.variant === 'sk' && vatRateType === 'ZeroVatRate' ? n.texts.vatExemption : null;
}
