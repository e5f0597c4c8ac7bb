/** The rows of the seeded reference lists: DTO fields of each record, without `Id` and `ModificationInfo`. */
import type { ApiRecord } from '../functions/accounting/api.js';
import { shapeAs } from './dto-fields.js';
import { banks, cities, products } from './slovak-data.js';

export type Rows = Record<string, unknown>[];

export function vatRateRows(): Rows {
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

export function currencyRows(): Rows {
  return [
    ['EUR', 'Euro', '€'],
    ['CZK', 'Česká koruna', 'Kč'],
    ['USD', 'Americký dolár', '$'],
    ['GBP', 'Britská libra', '£'],
    ['HUF', 'Maďarský forint', 'Ft'],
    ['PLN', 'Poľský zlotý', 'zł'],
  ].map(([code, name, symbol]) => ({ Code: code, Name: name, Symbol: symbol }));
}

export function countryRows(): Rows {
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

export function activityRows(): Rows {
  return [
    ['OBCH', 'Obchodná činnosť'],
    ['SLUZ', 'Služby'],
    ['VYR', 'Výroba'],
    ['ESH', 'Predaj cez e-shop'],
    ['SERV', 'Servis'],
  ].map(([code, name]) => ({ Code: code, Name: name, Note: null }));
}

export function establishmentRows(): Rows {
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

export function bankAccountRows(bankList: ApiRecord[], byCode: (code: string) => string | null): Rows {
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

export function priceListItemRows(): Rows {
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

export function sellingPriceRows(byCode: (code: string) => string | null): Rows {
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
  byCode: (code: string) => string | null,
  newId: () => string,
  info: Record<string, unknown>,
): Rows {
  const rates = [
    ['CZK', 25.21],
    ['USD', 1.0842],
    ['GBP', 0.8573],
    ['HUF', 395.6],
    ['PLN', 4.312],
  ] as const;
  return [
    {
      Date: '2025-12-31T00:00:00',
      ExchangeRates: rates.map(([code, rate]) =>
        shapeAs('ExchangeRateDto', {
          ModificationInfo: info,
          Id: newId(),
          CurrencyId: byCode(code),
          Rate: rate,
          Quantity: 1,
        }),
      ),
    },
  ];
}

export function centreRows(establishments: ApiRecord[]): Rows {
  return (
    [
      ['BA', 'Centrála Bratislava', 0],
      ['KE', 'Pobočka Košice', 1],
      ['ZA', 'Pobočka Žilina', null],
      ['ESHOP', 'E-shop', null],
    ] as const
  ).map(([code, name, e]) => ({
    Code: code,
    Name: name,
    Note: null,
    EstablishmentId: e === null ? null : (establishments[e]?.Id ?? null),
  }));
}

export function bankRows(countryId: string | null): Rows {
  return banks.map(([code, name, swift]) => ({
    Code: code,
    Name: name,
    Swift: swift,
    Web: '',
    CountryId: countryId,
  }));
}

export function cashRegisterRows(byCode: (code: string) => string | null): Rows {
  return [
    { Code: 'HP', Name: 'Hlavná pokladnica', CurrencyId: byCode('EUR'), IsActive: true },
    { Code: 'PP', Name: 'Pokladnica predajňa', CurrencyId: byCode('EUR'), IsActive: true },
  ];
}

export function cityPostCodeRows(): Rows {
  return cities.map(([city, code]) => ({ City: city, PostCode: code, PostName: city }));
}

export function paymentMethodTypeRows(): Rows {
  return [
    ['PRI', 'Prevodom', 'Bankový prevod'],
    ['HOT', 'Hotovosť', 'Platba v hotovosti'],
    ['DOB', 'Dobierka', 'Platba pri prevzatí'],
    ['KAR', 'Platobná karta', 'Platba kartou'],
    ['ZAP', 'Zápočet', 'Vzájomný zápočet'],
  ].map(([code, name, description]) => ({ Code: code, Name: name, Description: description }));
}

export function regionRows(): Rows {
  return cities
    .map(([, , district]) => district)
    .filter((d, i, all) => all.indexOf(d) === i)
    .map((name, i) => ({ Code: String(101 + i), Name: name }));
}
