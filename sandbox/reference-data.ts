/**
 * The reference lists of the demo company, shaped exactly like the service's DTOs (see
 * `dto-fields.ts`): every property present, null where unset. Small and materialised; each list
 * carries `ModificationInfo` as its DTO says — full (created/modified, by whom) or `ModifiedDate` only.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import type { ServiceVariant } from '../functions/accounting/collections.js';
import { type DtoName, shapeAs } from './dto-fields.js';
import { type NationalData, nationalData } from './national-data.js';
import { hashString, mix, Rng } from './random.js';
import {
  activityRows,
  bankAccountRows,
  bankRows,
  cashRegisterRows,
  centreRows,
  cityPostCodeRows,
  countryRows,
  currencyRows,
  establishmentRows,
  exchangeRateSetRows,
  paymentMethodTypeRows,
  priceListItemRows,
  type Rows,
  regionRows,
  registrationNumberRows,
  sellingPriceRows,
  vatClassificationRows,
  vatRateRows,
} from './reference-rows.js';

/** The demo user every seeded change is attributed to. */
export const SANDBOX_USER_ID = '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b';
/** Seeded reference records were last modified this long before the seed anchor. */
const REFERENCE_AGE_MS = 400 * 86_400_000;

export interface ReferenceData {
  /** The variant's national data (VAT percents, names, places, products, own company). */
  national: NationalData;
  lists: Map<string, ApiRecord[]>;
  /** VAT rate type → id, for the types the company's VAT rate list has. */
  vatRateIds: Record<string, string>;
  /** Id of the home currency (EUR in sk, CZK in cz). */
  homeCurrency: string;
  /** Id of the foreign currency some seeded documents are in (CZK in sk, EUR in cz). */
  foreignCurrency: string;
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

/** Reference lists of the seed and variant, built from rows of DTO fields. */
export function generateReferenceData(
  seed: number,
  anchorMs: number,
  variant: ServiceVariant = 'sk',
): ReferenceData {
  const n = nationalData(variant);
  const lists = new Map<string, ApiRecord[]>();
  const at = anchorMs - REFERENCE_AGE_MS;
  const make = (name: string, rows: Rows): ApiRecord[] => {
    const r = new Rng(mix(seed, hashString(`ref:${name}`)));
    const info = referenceModificationInfo(name, at, at);
    const records = rows.map((row) => shapeReference(name, { Id: r.guid(), ModificationInfo: info, ...row }));
    lists.set(name, records);
    return records;
  };
  make('VatRates', vatRateRows(n));
  const currencies = make('Currencies', currencyRows(n));
  const byCode = (code: string) => currencies.find((c) => c.Code === code)?.Id ?? null;
  const rateRng = new Rng(mix(seed, hashString('ref:ExchangeRateItems')));
  make(
    'ExchangeRates',
    exchangeRateSetRows(n, byCode, () => rateRng.guid(), referenceModificationInfo('ExchangeRates', at, at)),
  );
  const establishments = make('Establishments', establishmentRows(n));
  make('Centres', centreRows(n, establishments));
  make('Activities', activityRows(n));
  const countries = make('Countries', countryRows(n));
  const bankList = make('Banks', bankRows(n, countries[0]?.Id ?? null));
  make('BankAccounts', bankAccountRows(n, bankList, byCode));
  make('CashRegisters', cashRegisterRows(n, byCode));
  make('CityPostCodes', cityPostCodeRows(n));
  const methodTypes = make('PaymentMethodTypes', paymentMethodTypeRows(n));
  make(
    'PaymentMethods',
    n.paymentMethods.map((name, i) =>
      paymentMethodValues({ Name: name, PaymentMethodTypeId: methodTypes[i]?.Id ?? null }),
    ),
  );
  const priceListItems = make('PriceListItems', priceListItemRows(n));
  make('RegistrationNumbers', registrationNumberRows(priceListItems));
  make('SellingPrices', sellingPriceRows(n, byCode));
  make('VatClassifications', vatClassificationRows());
  make('Regions', regionRows(n));
  return indexOf(n, lists, at);
}

/** The ids the generator and the domain need, found in the seeded lists. */
function indexOf(n: NationalData, lists: Map<string, ApiRecord[]>, seededAtMs: number): ReferenceData {
  const ids = (name: string) => (lists.get(name) ?? []).map((r) => r.Id);
  const currencies = lists.get('Currencies') ?? [];
  const currency = (code: string) => currencies.find((c) => c.Code === code)?.Id ?? '';
  return {
    national: n,
    lists,
    vatRateIds: Object.fromEntries((lists.get('VatRates') ?? []).map((v) => [String(v.VatRateType), v.Id])),
    homeCurrency: currency(n.homeCurrency),
    foreignCurrency: currency(n.foreignCurrency),
    centreIds: ids('Centres'),
    activityIds: ids('Activities'),
    paymentFormIds: ids('PaymentMethods'),
    bankAccountIds: ids('BankAccounts'),
    cashRegisterIds: ids('CashRegisters'),
    priceListItems: lists.get('PriceListItems') ?? [],
    vatClassificationIds: ids('VatClassifications'),
    seededAtMs,
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
