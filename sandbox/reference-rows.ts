/** The rows of the seeded reference lists: DTO fields of each record, without `Id` and `ModificationInfo`. */
import type { ApiRecord } from '../functions/accounting/api.js';
import { shapeAs } from './dto-fields.js';
import type { NationalData } from './national-data.js';

export type Rows = Record<string, unknown>[];

export function vatRateRows(n: NationalData): Rows {
  return n.vatRates.map(([type, name, percent]) => ({
    Code: type,
    Name: name,
    VatRateType: type,
    ValidFrom: n.vatRatesValidFrom,
    ValidTo: null,
    VatPercent: percent,
    VatCoefficient: Math.round((percent / (100 + percent)) * 10_000) / 10_000,
  }));
}

export function currencyRows(n: NationalData): Rows {
  return n.currencies.map(([code, name, symbol]) => ({ Code: code, Name: name, Symbol: symbol }));
}

export function countryRows(n: NationalData): Rows {
  return n.countries.map(([code, name, numeric]) => ({ Code: code, Name: name, NumericCode: numeric }));
}

export function activityRows(n: NationalData): Rows {
  return n.activities.map(([code, name]) => ({ Code: code, Name: name, Note: null }));
}

export function establishmentRows(n: NationalData): Rows {
  return n.establishments.map((row) => ({
    Note: null,
    Email: null,
    PhoneNumber: null,
    MobilePhoneNumber: null,
    FaxNumber: null,
    ...row,
  }));
}

export function bankAccountRows(
  n: NationalData,
  bankList: ApiRecord[],
  byCode: (code: string) => string | null,
): Rows {
  return n.bankAccounts.map(([name, number, bank, iban, currency]) => {
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

export function priceListItemRows(n: NationalData): Rows {
  return n.products.map(([code, name, unit, price, vatType], i) => ({
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

export function registrationNumberRows(items: ApiRecord[]): Rows {
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

export function sellingPriceRows(n: NationalData, byCode: (code: string) => string | null): Rows {
  return n.sellingPrices.map(([code, name, type, discount]) => ({
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
    CurrencyId: byCode(n.homeCurrency),
  }));
}

export function vatClassificationRows(): Rows {
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

/** One exchange-rate set (`ExchangeRateSetDto`) of the rates against the home currency. */
export function exchangeRateSetRows(
  n: NationalData,
  byCode: (code: string) => string | null,
  newId: () => string,
  info: Record<string, unknown>,
): Rows {
  return [
    {
      Date: '2025-12-31T00:00:00',
      ExchangeRates: n.exchangeRates.map(([code, rate, quantity]) =>
        shapeAs('ExchangeRateDto', {
          ModificationInfo: info,
          Id: newId(),
          CurrencyId: byCode(code),
          Rate: rate,
          Quantity: quantity,
        }),
      ),
    },
  ];
}

export function centreRows(n: NationalData, establishments: ApiRecord[]): Rows {
  return n.centres.map(([code, name, e]) => ({
    Code: code,
    Name: name,
    Note: null,
    EstablishmentId: e === null ? null : (establishments[e]?.Id ?? null),
  }));
}

export function bankRows(n: NationalData, countryId: string | null): Rows {
  return n.banks.map(([code, name, swift]) => ({
    Code: code,
    Name: name,
    Swift: swift,
    Web: '',
    CountryId: countryId,
  }));
}

export function cashRegisterRows(n: NationalData, byCode: (code: string) => string | null): Rows {
  return n.cashRegisters.map(([code, name]) => ({
    Code: code,
    Name: name,
    CurrencyId: byCode(n.homeCurrency),
    IsActive: true,
  }));
}

export function cityPostCodeRows(n: NationalData): Rows {
  return n.cities.map(([city, code]) => ({ City: city, PostCode: code, PostName: city }));
}

export function paymentMethodTypeRows(n: NationalData): Rows {
  return n.paymentMethodTypes.map(([code, name, description]) => ({
    Code: code,
    Name: name,
    Description: description,
  }));
}

export function regionRows(n: NationalData): Rows {
  return n.cities
    .map(([, , district]) => district)
    .filter((d, i, all) => all.indexOf(d) === i)
    .map((name, i) => ({ Code: String(101 + i), Name: name }));
}
