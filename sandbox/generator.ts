/**
 * Deterministic generation of the demo company: reference lists (materialised, small) and
 * business partners and documents (generated on demand from (seed, collection, index), so a
 * seed of 200,000 documents keeps only a small index entry per record in memory).
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { hashString, mix, money, Rng } from './random.js';
import {
  banks,
  cities,
  companyKinds,
  companyStems,
  femaleFirstNames,
  legalForms,
  maleFirstNames,
  products,
  streets,
  surnames,
  vatPercent,
} from './slovak-data.js';

export type Precision = 'ms' | 's';

/** The demo user every seeded change is attributed to. */
export const SANDBOX_USER_ID = '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b';
/** Our own company (the supplier on issued documents). */
export const OWN_COMPANY = {
  CompanyName: 'Sandbox Demo s.r.o.',
  Street: 'Karadžičova 8',
  City: 'Bratislava',
  PostCode: '821 08',
  Country: 'SK',
  IdentificationNumber: '12345678',
  TaxIdentificationNumber: '2020123456',
  VatIdentificationNumber: 'SK2020123456',
  Email: 'fakturacia@sandbox-demo.sk',
  Iban: 'SK3111000000002612345678',
} as const;

const DAY = 86_400_000;

export interface DocumentTypeInfo {
  prefix: string;
  weight: number;
  status?: readonly string[];
  invoiceLike: boolean;
  received: boolean;
}

/** Per document collection: number prefix, share of the seeded documents, status enumeration. */
export const documentTypes: Readonly<Record<string, DocumentTypeInfo>> = {
  IssuedAdvanceInvoices: { prefix: 'ZF', weight: 4, invoiceLike: true, received: false },
  IssuedInvoices: { prefix: 'FA', weight: 30, invoiceLike: true, received: false },
  IssuedCreditNotes: { prefix: 'DB', weight: 2, invoiceLike: true, received: false },
  IssuedDebitNotes: { prefix: 'TP', weight: 1, invoiceLike: true, received: false },
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
  },
  IssueSlips: {
    prefix: 'DL',
    weight: 15,
    invoiceLike: false,
    received: false,
    status: ['Unfinished', 'PartiallyFinished', 'Finished'],
  },
  ReceivedInvoices: { prefix: 'PF', weight: 12, invoiceLike: true, received: true },
  ReceivedOrders: {
    prefix: 'OP',
    weight: 20,
    invoiceLike: false,
    received: true,
    status: ['Unfinished', 'PartiallyFinished', 'Finished', 'PermanentDocument'],
  },
  IssuedOrders: {
    prefix: 'OV',
    weight: 5,
    invoiceLike: false,
    received: false,
    status: ['Unfinished', 'PartiallyFinished', 'Finished', 'PermanentDocument'],
  },
  IssuedTaxDocuments: { prefix: 'DD', weight: 2, invoiceLike: true, received: false },
  OtherLiabilities: { prefix: 'OZ', weight: 4, invoiceLike: true, received: true },
};

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

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
}

export interface ReferenceData {
  lists: Map<string, ApiRecord[]>;
  vatRateIds: Record<string, string>;
  currencyEur: string;
  currencyCzk: string;
  centreIds: string[];
  activityIds: string[];
  paymentFormIds: string[];
  bankAccountIds: string[];
  cashRegisterIds: string[];
  priceListItems: ApiRecord[];
  vatClassificationIds: string[];
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

function modificationInfo(created: number, modified: number) {
  return {
    CreatedDate: iso(created),
    CreatedBy: SANDBOX_USER_ID,
    ModifiedDate: iso(modified),
    ModifiedBy: SANDBOX_USER_ID,
  };
}

function person(r: Rng): { first: string; last: string } {
  const female = r.chance(0.5);
  const pair = r.pick(surnames);
  return { first: r.pick(female ? femaleFirstNames : maleFirstNames), last: female ? pair[1] : pair[0] };
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
  const r = recordRng(ctx.seed, 'BusinessPartners', index);
  const head = seedHead(ctx, 'BusinessPartners', index, r);
  const isCompany = r.chance(0.75);
  const p = person(r);
  const [city, postCode] = r.pick(cities);
  const companyName = isCompany
    ? `${r.pick(companyStems)} ${r.pick(companyKinds)} ${r.pick(legalForms)}`
    : `${p.first} ${p.last}`;
  const ico = isCompany ? `${r.int(3, 5)}${r.digits(7)}` : null;
  const dic = isCompany ? `20${r.digits(8)}` : null;
  const vatPayer = isCompany && r.chance(0.7);
  const domain = isCompany ? `${ascii(companyName.split(' ').slice(0, 2).join(''))}.sk` : 'gmail.com';
  return {
    Id: head.id,
    CompanyName: companyName,
    Name: `${p.first} ${p.last}`,
    Street: `${r.pick(streets)} ${r.int(1, 120)}`,
    PostCode: postCode,
    City: city,
    Country: 'SK',
    IdentificationNumber: ico,
    TaxIdentificationNumber: dic,
    VatIdentificationNumber: vatPayer ? `SK${dic}` : null,
    Email: `${ascii(p.first)}.${ascii(p.last)}@${domain}`,
    PhoneNumber: `+421 9${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`,
    Web: isCompany ? `https://www.${domain}` : null,
    Note: null,
    BusinessDetails: {
      DuePeriod: r.pick([7, 14, 14, 14, 30]),
      VatRateType: 'BasicVatRate',
      DiscountPercentage: r.chance(0.1) ? r.pick([2, 5, 10]) : 0,
    },
    DeliveryAddresses: r.chance(0.3)
      ? [
          {
            Name: `Sklad ${city}`,
            Street: `${r.pick(streets)} ${r.int(1, 80)}`,
            City: city,
            PostCode: postCode,
            Country: 'SK',
          },
        ]
      : [],
    ModificationInfo: modificationInfo(head.created, head.modified),
  };
}

export function addressFromPartner(partner: ApiRecord, received: boolean): Record<string, unknown> {
  const address: Record<string, unknown> = {
    Id: partner.Id,
    CompanyName: partner.CompanyName ?? null,
    Name: partner.Name ?? null,
    Street: partner.Street ?? null,
    City: partner.City ?? null,
    PostCode: partner.PostCode ?? null,
    Country: partner.Country ?? 'SK',
    IdentificationNumber: partner.IdentificationNumber ?? null,
    TaxIdentificationNumber: partner.TaxIdentificationNumber ?? null,
    VatIdentificationNumber: partner.VatIdentificationNumber ?? null,
    DeliveryAddress: null,
  };
  if (!received) {
    address.Email = partner.Email ?? null;
    address.PhoneNumber = partner.PhoneNumber ?? null;
  }
  return address;
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
}

/** Builds a document item with computed prices. */
export function buildItem(refs: ReferenceData, id: string, input: ItemInput): Record<string, unknown> {
  const rate = vatPercent[input.VatRateType] ?? 23;
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
    VatRateId: refs.vatRateIds[input.VatRateType] ?? null,
    VatRate: rate,
    PriceWithoutVat: withoutVat,
    Vat: vat,
    PriceWithVat: money(withoutVat + vat),
    DiscountPercentage: discount,
    PriceListItemId: input.PriceListItemId ?? null,
    ReceivedOrderItemId: null,
    Note: input.Note ?? null,
    CentreId: null,
    ActivityId: null,
    VatClassificationId: null,
  };
}

/** `DocumentRecapitulation` from the items. */
export function recapitulation(
  items: readonly Record<string, unknown>[],
  exchangeRate: number | null,
): Record<string, unknown> {
  const sums = new Map<string, { rate: number; base: number; vat: number }>();
  for (const item of items) {
    const type = String(item.VatRateType);
    const s = sums.get(type) ?? { rate: Number(item.VatRate ?? vatPercent[type] ?? 0), base: 0, vat: 0 };
    s.base = money(s.base + Number(item.PriceWithoutVat ?? 0));
    s.vat = money(s.vat + Number(item.Vat ?? 0));
    sums.set(type, s);
  }
  let base = 0;
  let vat = 0;
  const vatRateSums = [...sums.entries()].map(([type, s]) => {
    base = money(base + s.base);
    vat = money(vat + s.vat);
    return {
      VatRateType: type,
      VatRate: s.rate,
      PriceWithoutVat: s.base,
      Vat: s.vat,
      PriceWithVat: money(s.base + s.vat),
    };
  });
  const total = { WithoutVat: base, Vat: vat, WithVat: money(base + vat) };
  return {
    TotalPrice: total,
    TotalPriceInForeignCurrency:
      exchangeRate === null
        ? null
        : {
            WithoutVat: money(base * exchangeRate),
            Vat: money(vat * exchangeRate),
            WithVat: money((base + vat) * exchangeRate),
          },
    VatRounding: 'None',
    Rounding: 'None',
    VatRateSums: vatRateSums,
  };
}

export function documentNumber(collection: string, year: number, sequence: number): string {
  const prefix = documentTypes[collection]?.prefix ?? 'DOC';
  return `${prefix}${year}${String(sequence).padStart(6, '0')}`;
}

function isoDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)}T00:00:00`;
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
    out.OrderNumber = null;
    out.OrderDate = null;
    out.BankAccountId = refs.bankAccountIds[0] ?? null;
    out.CashRegisterId = null;
  }
  if (info?.status) out.Status = status ?? 'Unfinished';
  return out;
}

/** A document of `collection`, generated from its index. */
export function generateDocument(ctx: GeneratorContext, collection: string, index: number): ApiRecord {
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
    const [code, text, unit, price, vatType] = products[r.int(0, products.length - 1)] ?? products[0];
    items.push(
      buildItem(ctx.refs, r.guid(), {
        Code: (p?.Code as string | undefined) ?? code,
        Text: (p?.Name as string | undefined) ?? text,
        Quantity: r.pick([1, 1, 1, 2, 3, 5, 10]),
        Unit: (p?.Unit as string | undefined) ?? unit,
        UnitPrice: (p?.UnitPrice as number | undefined) ?? price,
        VatRateType: (p?.VatRateType as string | undefined) ?? vatType,
        PriceListItemId: p?.Id ?? null,
      }),
    );
  }
  const foreign = r.chance(0.03);
  const exchangeRate = foreign ? 25.21 : null;
  let status: string | undefined;
  if (info?.status) {
    const age = ctx.anchorMs - head.created;
    status =
      age < 20 * DAY && r.chance(0.6) ? 'Unfinished' : r.chance(0.8) ? 'Finished' : r.pick(info.status);
  }
  const duePeriod = Number((partner.BusinessDetails as { DuePeriod?: number }).DuePeriod ?? 14);
  return {
    Id: head.id,
    DocumentNumber: number,
    IssueDate: isoDate(head.created),
    Text: info?.received ? `Prijatý doklad ${number}` : `Fakturujeme Vám tovar a služby podľa objednávky`,
    Note: null,
    InternalNote: null,
    CurrencyId: foreign ? ctx.refs.currencyCzk : ctx.refs.currencyEur,
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
    BusinessPartnerAddress: addressFromPartner(partner, info?.received ?? false),
    Items: items,
    SourceDocuments: [],
    ModificationInfo: modificationInfo(head.created, head.modified),
    DocumentRecapitulation: recapitulation(items, exchangeRate),
  };
}

/** Reference lists: small, materialised, no ModificationInfo. */
export function generateReferenceData(seed: number): ReferenceData {
  const lists = new Map<string, ApiRecord[]>();
  const make = (name: string, rows: Record<string, unknown>[]): ApiRecord[] => {
    const r = new Rng(mix(seed, hashString(`ref:${name}`)));
    const records = rows.map((row) => ({ Id: r.guid(), ...row }) as ApiRecord);
    lists.set(name, records);
    return records;
  };
  const vatRates = make('VatRates', [
    {
      Name: 'Základná sadzba',
      VatRateType: 'BasicVatRate',
      Percentage: 23,
      ValidFrom: '2025-01-01T00:00:00',
    },
    {
      Name: 'Prvá znížená sadzba',
      VatRateType: 'FirstReducedVatRate',
      Percentage: 19,
      ValidFrom: '2025-01-01T00:00:00',
    },
    {
      Name: 'Druhá znížená sadzba',
      VatRateType: 'SecondReducedVatRate',
      Percentage: 5,
      ValidFrom: '2025-01-01T00:00:00',
    },
    { Name: 'Nulová sadzba', VatRateType: 'ZeroVatRate', Percentage: 0, ValidFrom: '2025-01-01T00:00:00' },
  ]);
  const currencies = make('Currencies', [
    { Code: 'EUR', Name: 'Euro', IsHomeCurrency: true },
    { Code: 'CZK', Name: 'Česká koruna', IsHomeCurrency: false },
    { Code: 'USD', Name: 'Americký dolár', IsHomeCurrency: false },
    { Code: 'GBP', Name: 'Britská libra', IsHomeCurrency: false },
    { Code: 'HUF', Name: 'Maďarský forint', IsHomeCurrency: false },
    { Code: 'PLN', Name: 'Poľský zlotý', IsHomeCurrency: false },
  ]);
  make(
    'ExchangeRates',
    [
      ['CZK', 25.21],
      ['USD', 1.0842],
      ['GBP', 0.8573],
      ['HUF', 395.6],
      ['PLN', 4.312],
    ].map(([code, rate]) => ({ CurrencyCode: code, Rate: rate, Quantity: 1, Date: '2025-12-31T00:00:00' })),
  );
  const centres = make('Centres', [
    { Code: 'BA', Name: 'Centrála Bratislava' },
    { Code: 'KE', Name: 'Pobočka Košice' },
    { Code: 'ZA', Name: 'Pobočka Žilina' },
    { Code: 'ESHOP', Name: 'E-shop' },
  ]);
  const activities = make('Activities', [
    { Code: 'OBCH', Name: 'Obchodná činnosť' },
    { Code: 'SLUZ', Name: 'Služby' },
    { Code: 'VYR', Name: 'Výroba' },
    { Code: 'ESH', Name: 'Predaj cez e-shop' },
    { Code: 'SERV', Name: 'Servis' },
  ]);
  const bankList = make(
    'Banks',
    banks.map(([code, name, swift]) => ({ Code: code, Name: name, Swift: swift, Country: 'SK' })),
  );
  const bankAccounts = make('BankAccounts', [
    {
      Name: 'Bežný účet',
      Iban: OWN_COMPANY.Iban,
      Swift: 'TATRSKBX',
      BankId: bankList[2]?.Id,
      CurrencyCode: 'EUR',
    },
    {
      Name: 'Účet VÚB',
      Iban: 'SK0802000000003456789012',
      Swift: 'SUBASKBX',
      BankId: bankList[1]?.Id,
      CurrencyCode: 'EUR',
    },
    {
      Name: 'Devízový účet CZK',
      Iban: 'SK7575000000004023456789',
      Swift: 'CEKOSKBX',
      BankId: bankList[4]?.Id,
      CurrencyCode: 'CZK',
    },
  ]);
  const cashRegisters = make('CashRegisters', [
    { Name: 'Hlavná pokladnica', CurrencyCode: 'EUR' },
    { Name: 'Pokladnica predajňa', CurrencyCode: 'EUR' },
  ]);
  make(
    'CityPostCodes',
    cities.map(([city, code, district]) => ({ Code: code, City: city, District: district, Country: 'SK' })),
  );
  make(
    'Countries',
    [
      ['SK', 'Slovensko', true],
      ['CZ', 'Česko', true],
      ['AT', 'Rakúsko', true],
      ['HU', 'Maďarsko', true],
      ['PL', 'Poľsko', true],
      ['DE', 'Nemecko', true],
      ['UA', 'Ukrajina', false],
      ['US', 'Spojené štáty americké', false],
      ['GB', 'Spojené kráľovstvo', false],
    ].map(([code, name, eu]) => ({ Code: code, Name: name, IsEuMember: eu })),
  );
  make('Establishments', [
    { Name: 'Prevádzka Bratislava', Street: 'Karadžičova 8', City: 'Bratislava', PostCode: '821 08' },
    { Name: 'Predajňa Košice', Street: 'Hlavná 12', City: 'Košice', PostCode: '040 01' },
  ]);
  make(
    'PaymentMethodTypes',
    ['BankTransfer', 'Cash', 'CashOnDelivery', 'Card', 'Offset'].map((k) => ({ Name: k })),
  );
  const paymentForms = make('PaymentMethods', [
    { Name: 'Prevodný príkaz', Kind: 'BankTransfer' },
    { Name: 'Hotovosť', Kind: 'Cash' },
    { Name: 'Dobierka', Kind: 'CashOnDelivery' },
    { Name: 'Platobná karta', Kind: 'Card' },
  ]);
  const priceListItems = make(
    'PriceListItems',
    products.map(([code, name, unit, price, vatType]) => ({
      Code: code,
      Name: name,
      Unit: unit,
      UnitPrice: price,
      UnitPriceVatType: 'WithoutVat',
      VatRateType: vatType,
      StockQuantity: 100,
    })),
  );
  make(
    'RegistrationNumbers',
    ['ELE-001', 'ELE-002'].flatMap((code) =>
      [1, 2, 3].map((n) => ({ Code: code, SerialNumber: `${code}-SN-${String(n).padStart(5, '0')}` })),
    ),
  );
  make(
    'SellingPrices',
    [
      ['VO', 'Veľkoobchodná cena', -10],
      ['MO', 'Maloobchodná cena', 0],
      ['VIP', 'VIP zákazník', -15],
    ].map(([code, name, pct]) => ({ Code: code, Name: name, DiscountPercentage: pct })),
  );
  const vatClassifications = make(
    'VatClassifications',
    [
      ['A1', 'Dodanie tovaru a služby v tuzemsku'],
      ['A2', 'Prenesenie daňovej povinnosti'],
      ['B1', 'Nadobudnutie tovaru z iného členského štátu'],
      ['B2', 'Tuzemské prijaté plnenia'],
      ['C1', 'Opravné doklady dodávateľa'],
      ['D2', 'Maloobchodný predaj (ERP)'],
      ['OSL', 'Oslobodené plnenia'],
    ].map(([code, name]) => ({ Code: code, Name: name })),
  );
  make(
    'Regions',
    cities
      .map(([, , district]) => district)
      .filter((d, i, all) => all.indexOf(d) === i)
      .map((name, i) => ({ Code: String(101 + i), Name: name })),
  );
  const byType = (type: string) => vatRates.find((v) => v.VatRateType === type)?.Id ?? '';
  return {
    lists,
    vatRateIds: {
      BasicVatRate: byType('BasicVatRate'),
      FirstReducedVatRate: byType('FirstReducedVatRate'),
      SecondReducedVatRate: byType('SecondReducedVatRate'),
      ZeroVatRate: byType('ZeroVatRate'),
    },
    currencyEur: currencies[0]?.Id ?? '',
    currencyCzk: currencies[1]?.Id ?? '',
    centreIds: centres.map((c) => c.Id),
    activityIds: activities.map((a) => a.Id),
    paymentFormIds: paymentForms.map((p) => p.Id),
    bankAccountIds: bankAccounts.map((b) => b.Id),
    cashRegisterIds: cashRegisters.map((c) => c.Id),
    priceListItems,
    vatClassificationIds: vatClassifications.map((v) => v.Id),
  };
}
