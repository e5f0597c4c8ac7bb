/**
 * The reference lists of the demo company, shaped exactly like the service's DTOs (see
 * `dto-fields.ts`): every property present, null where unset. Small and materialised; each list
 * carries `ModificationInfo` as its DTO says — full (created/modified, by whom) or `ModifiedDate` only.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { type DtoName, shapeAs } from './dto-fields.js';
import { hashString, mix, Rng } from './random.js';
import { banks, cities, products } from './slovak-data.js';

/** The demo user every seeded change is attributed to. */
export const SANDBOX_USER_ID = '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b';
/** Seeded reference records were last modified this long before the seed anchor. */
const REFERENCE_AGE_MS = 400 * 86_400_000;

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
  /** `ModifiedDate` (ms) of every seeded reference record. */
  seededAtMs: number;
}

export function fullModificationInfo(created: number, modified: number) {
  return {
    CreatedDate: new Date(created).toISOString(),
    CreatedBy: SANDBOX_USER_ID,
    ModifiedDate: new Date(modified).toISOString(),
    ModifiedBy: SANDBOX_USER_ID,
  };
}

/** Lists whose DTO carries only `ModifiedDate` (`GeneralListItemModificationInfoDto`). */
const generalInfoLists = new Set([
  'Banks',
  'CityPostCodes',
  'Countries',
  'Currencies',
  'ExchangeRates',
  'PaymentMethodTypes',
  'Regions',
  'VatRates',
]);

/** The list's records carry only `ModifiedDate` in their `ModificationInfo`. */
export function isGeneralInfoList(collection: string): boolean {
  return generalInfoLists.has(collection);
}

const dtoOf: Record<string, DtoName | 'VatClassificationDto'> = {
  Activities: 'ActivityDto',
  BankAccounts: 'BankAccountDto',
  Banks: 'BankDto',
  CashRegisters: 'CashRegisterDto',
  Centres: 'CentreDto',
  CityPostCodes: 'CityPostCodeDto',
  Countries: 'CountryDto',
  Currencies: 'CurrencyDto',
  Establishments: 'EstablishmentDto',
  ExchangeRates: 'ExchangeRateSetDto',
  PaymentMethodTypes: 'PaymentMethodTypeDto',
  PaymentMethods: 'PaymentMethodDto',
  PriceListItems: 'PriceListItemDto',
  RegistrationNumbers: 'RegistrationNumberDto',
  SellingPrices: 'SellingPriceDto',
  VatRates: 'VatRateDto',
  Regions: 'RegionDto',
  VatClassifications: 'VatClassificationDto',
};

/** A reference record of `collection` in its DTO shape (unknown fields dropped, absent ones null). */
export function shapeReference(collection: string, values: Record<string, unknown>): ApiRecord {
  const dto = dtoOf[collection];
  if (dto === undefined) throw new Error(`no DTO for reference list '${collection}'`);
  if (dto === 'VatClassificationDto') {
    return {
      Id: values.Id,
      Code: values.Code,
      Name: values.Name,
      ModificationInfo: values.ModificationInfo,
    } as ApiRecord;
  }
  return shapeAs(dto, values) as ApiRecord;
}

export function referenceModificationInfo(collection: string, created: number, modified: number) {
  return generalInfoLists.has(collection)
    ? { ModifiedDate: new Date(modified).toISOString() }
    : fullModificationInfo(created, modified);
}

type Rows = Record<string, unknown>[];

/** Reference lists of the seed, built from rows of DTO fields. */
export function generateReferenceData(seed: number, anchorMs: number): ReferenceData {
  const lists = new Map<string, ApiRecord[]>();
  const at = anchorMs - REFERENCE_AGE_MS;
  const make = (name: string, rows: Rows): ApiRecord[] => {
    const r = new Rng(mix(seed, hashString(`ref:${name}`)));
    const info = referenceModificationInfo(name, at, at);
    const records = rows.map((row) => shapeReference(name, { Id: r.guid(), ModificationInfo: info, ...row }));
    lists.set(name, records);
    return records;
  };
  const vatRates = make('VatRates', vatRateRows());
  const currencies = make('Currencies', currencyRows());
  const byCode = (code: string) => currencies.find((c) => c.Code === code)?.Id ?? null;
  const generalInfo = referenceModificationInfo('ExchangeRates', at, at);
  const rateRng = new Rng(mix(seed, hashString('ref:ExchangeRateItems')));
  make('ExchangeRates', [
    {
      Date: '2025-12-31T00:00:00',
      ExchangeRates: (
        [
          ['CZK', 25.21],
          ['USD', 1.0842],
          ['GBP', 0.8573],
          ['HUF', 395.6],
          ['PLN', 4.312],
        ] as const
      ).map(([code, rate]) =>
        shapeAs('ExchangeRateDto', {
          ModificationInfo: generalInfo,
          Id: rateRng.guid(),
          CurrencyId: byCode(code),
          Rate: rate,
          Quantity: 1,
        }),
      ),
    },
  ]);
  const establishments = make('Establishments', establishmentRows());
  const centres = make(
    'Centres',
    [
      ['BA', 'Centrála Bratislava', 0],
      ['KE', 'Pobočka Košice', 1],
      ['ZA', 'Pobočka Žilina', null],
      ['ESHOP', 'E-shop', null],
    ].map(([code, name, e]) => ({
      Code: code,
      Name: name,
      Note: null,
      EstablishmentId: e === null ? null : (establishments[Number(e)]?.Id ?? null),
    })),
  );
  const activities = make('Activities', activityRows());
  const countries = make('Countries', countryRows());
  const sk = countries[0]?.Id ?? null;
  const bankList = make(
    'Banks',
    banks.map(([code, name, swift]) => ({ Code: code, Name: name, Swift: swift, Web: '', CountryId: sk })),
  );
  const bankAccounts = make('BankAccounts', bankAccountRows(bankList, byCode));
  const cashRegisters = make('CashRegisters', [
    { Code: 'HP', Name: 'Hlavná pokladnica', CurrencyId: byCode('EUR'), IsActive: true },
    { Code: 'PP', Name: 'Pokladnica predajňa', CurrencyId: byCode('EUR'), IsActive: true },
  ]);
  make(
    'CityPostCodes',
    cities.map(([city, code]) => ({ City: city, PostCode: code, PostName: city })),
  );
  const methodTypes = make(
    'PaymentMethodTypes',
    [
      ['PRI', 'Prevodom', 'Bankový prevod'],
      ['HOT', 'Hotovosť', 'Platba v hotovosti'],
      ['DOB', 'Dobierka', 'Platba pri prevzatí'],
      ['KAR', 'Platobná karta', 'Platba kartou'],
      ['ZAP', 'Zápočet', 'Vzájomný zápočet'],
    ].map(([code, name, description]) => ({ Code: code, Name: name, Description: description })),
  );
  const paymentForms = make(
    'PaymentMethods',
    ['Prevodný príkaz', 'Hotovosť', 'Dobierka', 'Platobná karta'].map((name, i) =>
      paymentMethodValues({ Name: name, PaymentMethodTypeId: methodTypes[i]?.Id ?? null }),
    ),
  );
  const priceListItems = make('PriceListItems', priceListItemRows());
  make('RegistrationNumbers', registrationNumberRows(priceListItems));
  make('SellingPrices', sellingPriceRows(byCode));
  const vatClassifications = make('VatClassifications', vatClassificationRows());
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
    vatRateIds: Object.fromEntries(
      ['BasicVatRate', 'FirstReducedVatRate', 'SecondReducedVatRate', 'ZeroVatRate'].map((t) => [
        t,
        byType(t),
      ]),
    ),
    currencyEur: currencies[0]?.Id ?? '',
    currencyCzk: currencies[1]?.Id ?? '',
    centreIds: centres.map((c) => c.Id),
    activityIds: activities.map((a) => a.Id),
    paymentFormIds: paymentForms.map((p) => p.Id),
    bankAccountIds: bankAccounts.map((b) => b.Id),
    cashRegisterIds: cashRegisters.map((c) => c.Id),
    priceListItems,
    vatClassificationIds: vatClassifications.map((v) => v.Id),
    seededAtMs: at,
  };
}

/** A payment method's values with the DTO's defaults (also used by `POST /v1/PaymentMethods`). */
export function paymentMethodValues(values: Record<string, unknown>): Record<string, unknown> {
  return {
    Description: null,
    IsUsedInSaleVoucher: false,
    IsUsedInOtherAgendas: true,
    IsIncludedInEet: false,
    ...values,
  };
}

function vatRateRows(): Rows {
  return (
    [
      ['BasicVatRate', 'Základná sadzba', 23],
      ['FirstReducedVatRate', 'Prvá znížená sadzba', 19],
      ['SecondReducedVatRate', 'Druhá znížená sadzba', 5],
      ['ZeroVatRate', 'Nulová sadzba', 0],
    ] as const
  ).map(([type, name, percent]) => ({
    Code: type,
    Name: name,
    VatRateType: type,
    ValidFrom: '2025-01-01T00:00:00',
    ValidTo: null,
    VatPercent: percent,
    VatCoefficient: Math.round((percent / (100 + percent)) * 10_000) / 10_000,
  }));
}

function currencyRows(): Rows {
  return [
    ['EUR', 'Euro', '€'],
    ['CZK', 'Česká koruna', 'Kč'],
    ['USD', 'Americký dolár', '$'],
    ['GBP', 'Britská libra', '£'],
    ['HUF', 'Maďarský forint', 'Ft'],
    ['PLN', 'Poľský zlotý', 'zł'],
  ].map(([code, name, symbol]) => ({ Code: code, Name: name, Symbol: symbol }));
}

function countryRows(): Rows {
  return (
    [
      ['SK', 'Slovensko', 703],
      ['CZ', 'Česko', 203],
      ['AT', 'Rakúsko', 40],
      ['HU', 'Maďarsko', 348],
      ['PL', 'Poľsko', 616],
      ['DE', 'Nemecko', 276],
      ['UA', 'Ukrajina', 804],
      ['US', 'Spojené štáty americké', 840],
      ['GB', 'Spojené kráľovstvo', 826],
    ] as const
  ).map(([code, name, numeric]) => ({ Code: code, Name: name, NumericCode: numeric }));
}

function activityRows(): Rows {
  return [
    ['OBCH', 'Obchodná činnosť'],
    ['SLUZ', 'Služby'],
    ['VYR', 'Výroba'],
    ['ESH', 'Predaj cez e-shop'],
    ['SERV', 'Servis'],
  ].map(([code, name]) => ({ Code: code, Name: name, Note: null }));
}

function establishmentRows(): Rows {
  return [
    {
      Code: 'BA',
      Name: 'Prevádzka Bratislava',
      Street: 'Karadžičova 8',
      City: 'Bratislava',
      PostCode: '821 08',
    },
    { Code: 'KE', Name: 'Predajňa Košice', Street: 'Hlavná 12', City: 'Košice', PostCode: '040 01' },
  ].map((row) => ({
    Note: null,
    Email: null,
    PhoneNumber: null,
    MobilePhoneNumber: null,
    FaxNumber: null,
    ...row,
  }));
}

function bankAccountRows(bankList: ApiRecord[], byCode: (code: string) => string | null): Rows {
  return [
    ['Bežný účet', '2612345678', 2, 'SK3111000000002612345678', 'EUR'],
    ['Účet VÚB', '3456789012', 1, 'SK0802000000003456789012', 'EUR'],
    ['Devízový účet CZK', '4023456789', 4, 'SK7575000000004023456789', 'CZK'],
  ].map(([name, number, bank, iban, currency]) => {
    const b = bankList[Number(bank)];
    return {
      AccountName: name,
      AccountNumber: number,
      BankCode: b?.Code ?? null,
      Iban: iban,
      Swift: b?.Swift ?? null,
      BankName: b?.Name ?? null,
      CancellationDate: null,
      CurrencyId: byCode(String(currency)),
      IsActive: true,
    };
  });
}

function priceListItemRows(): Rows {
  return products.map(([code, name, unit, price, vatType], i) => ({
    Type: 'Card',
    RegistrationNumberType: code.startsWith('ELE') ? 'SerialNumber' : 'None',
    Code: code,
    Name: name,
    Plu: null,
    Ean: `858${String(1_000_000_000 + i * 7919).padStart(10, '0')}`,
    Text: null,
    WarehouseDivisionPath: null,
    WarehouseDivisionId: null,
    UnitQuantity: 100,
    Unit: unit,
    UnitPrice: price,
    DiscountPercentage: 0,
    UnitPriceVatType: 'WithoutVat',
    VatRate: vatType,
    IsSales: true,
    PriceGroup: null,
    Note: null,
    InternalNote: null,
    SubItems: [],
  }));
}

function registrationNumberRows(items: ApiRecord[]): Rows {
  return items
    .filter((i) => i.RegistrationNumberType === 'SerialNumber')
    .flatMap((item) =>
      [1, 2, 3].map((n) => ({
        Name: `${String(item.Code)}-SN-${String(n).padStart(5, '0')}`,
        AvailableQuantity: n === 3 ? 0 : 1,
        ComplaintQuantity: 0,
        ServicedQuantity: 0,
        PriceListItemId: item.Id,
      })),
    );
}

function sellingPriceRows(byCode: (code: string) => string | null): Rows {
  return (
    [
      ['VO', 'Veľkoobchodná cena', 'SecondaryPrice', 10],
      ['MO', 'Maloobchodná cena', 'BasicPrice', null],
      ['VIP', 'VIP zákazník', 'Discount', 15],
    ] as const
  ).map(([code, name, type, discount]) => ({
    Code: code,
    Name: name,
    SellingPriceType: type,
    ValidityType: 'Permanent',
    ValidFrom: null,
    ValidTo: null,
    Margin: null,
    Rebate: null,
    Discount: discount,
    PriceVatType: 'WithoutVat',
    Rounding: null,
    ExchangeRate: null,
    CurrencyId: byCode('EUR'),
  }));
}

function vatClassificationRows(): Rows {
  return [
    ['A1', 'Dodanie tovaru a služby v tuzemsku'],
    ['A2', 'Prenesenie daňovej povinnosti'],
    ['B1', 'Nadobudnutie tovaru z iného členského štátu'],
    ['B2', 'Tuzemské prijaté plnenia'],
    ['C1', 'Opravné doklady dodávateľa'],
    ['D2', 'Maloobchodný predaj (ERP)'],
    ['OSL', 'Oslobodené plnenia'],
  ].map(([code, name]) => ({ Code: code, Name: name }));
}
