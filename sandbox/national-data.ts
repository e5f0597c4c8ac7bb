/**
 * What a national variant's demo company is made of: its country, home currency, VAT rates,
 * names, places, products, banks, registry, its own company and the texts of its documents. `sk`
 * seeds a Slovak company (EUR, VAT 23/19/5/0 %), `cz` a Czech one (CZK, VAT 21/12/0 %, IČO with
 * its check digit, DIČ `CZ<IČO>`). The seeded records draw from the variant's data only, so the
 * Slovak company is the same for a seed whatever the Czech data holds.
 */
import type { ServiceVariant } from '../functions/accounting/collections.js';
import * as czech from './czech-data.js';
import type { Rng } from './random.js';
import * as slovak from './slovak-data.js';

type Product = readonly [code: string, name: string, unit: string, price: number, vatRateType: string];
type Place = readonly [city: string, postCode: string, district: string];

/** Our own company (the supplier on issued documents). */
export interface OwnCompany {
  CompanyName: string;
  Street: string;
  City: string;
  PostCode: string;
  Country: string;
  IdentificationNumber: string;
  TaxIdentificationNumber: string;
  VatIdentificationNumber: string;
  Email: string;
  Iban: string;
}

export interface RegistryCompany {
  IdentificationNumber: string;
  CompanyName: string;
  Street: string;
  City: string;
  PostCode: string;
  TaxIdentificationNumber: string;
  VatIdentificationNumber: string | null;
}

export interface NationalData {
  variant: ServiceVariant;
  /** ISO country code of the company, its partners and addresses. */
  country: string;
  /** ISO code of the home currency (first in the currency list). */
  homeCurrency: string;
  /** The foreign currency a few seeded documents are in, and its rate (home currency per unit). */
  foreignCurrency: string;
  foreignRate: number;
  /** [VatRateType, name, percent] of the VAT rate list. */
  vatRates: readonly (readonly [type: string, name: string, percent: number])[];
  /** When the VAT rates took effect (`ValidFrom` of the list). */
  vatRatesValidFrom: string;
  vatPercent: Readonly<Record<string, number>>;
  maleFirstNames: readonly string[];
  femaleFirstNames: readonly string[];
  surnames: readonly (readonly [male: string, female: string])[];
  cities: readonly Place[];
  streets: readonly string[];
  companyStems: readonly string[];
  companyKinds: readonly string[];
  legalForms: readonly string[];
  products: readonly Product[];
  banks: readonly (readonly [code: string, name: string, swift: string])[];
  registry: readonly RegistryCompany[];
  ownCompany: OwnCompany;
  /** A partner's IČO and tax number (draws from `r` for a company only). */
  partnerTaxIds(r: Rng, isCompany: boolean): { ico: string | null; taxId: string | null };
  phoneNumber(r: Rng): string;
  webDomain: string;
  texts: {
    issued: string;
    received: (number: string) => string;
    eshopOrder: string;
    warehouse: string;
    /** The exemption reason stated on a line without VAT. */
    vatExemption: string;
  };
  /** Reference rows in the variant's language. */
  currencies: readonly (readonly [code: string, name: string, symbol: string])[];
  countries: readonly (readonly [code: string, name: string, numeric: number])[];
  activities: readonly (readonly [code: string, name: string])[];
  establishments: readonly { Code: string; Name: string; Street: string; City: string; PostCode: string }[];
  /** [name, account number, index into `banks`, IBAN, currency code] */
  bankAccounts: readonly (readonly [string, string, number, string, string])[];
  /** [code, name, index of the establishment or null] */
  centres: readonly (readonly [string, string, number | null])[];
  cashRegisters: readonly (readonly [code: string, name: string])[];
  paymentMethodTypes: readonly (readonly [code: string, name: string, description: string])[];
  paymentMethods: readonly string[];
  sellingPrices: readonly (readonly [code: string, name: string, type: string, discount: number | null])[];
  /** Rates of the exchange-rate set against the home currency: [code, rate, quantity]. */
  exchangeRates: readonly (readonly [code: string, rate: number, quantity: number])[];
}

const skData: NationalData = {
  variant: 'sk',
  country: 'SK',
  homeCurrency: 'EUR',
  foreignCurrency: 'CZK',
  foreignRate: 25.21,
  vatRates: [
    ['BasicVatRate', 'Základná sadzba', 23],
    ['FirstReducedVatRate', 'Prvá znížená sadzba', 19],
    ['SecondReducedVatRate', 'Druhá znížená sadzba', 5],
    ['ZeroVatRate', 'Nulová sadzba', 0],
  ],
  vatRatesValidFrom: '2025-01-01T00:00:00',
  vatPercent: slovak.vatPercent,
  maleFirstNames: slovak.maleFirstNames,
  femaleFirstNames: slovak.femaleFirstNames,
  surnames: slovak.surnames,
  cities: slovak.cities,
  streets: slovak.streets,
  companyStems: slovak.companyStems,
  companyKinds: slovak.companyKinds,
  legalForms: slovak.legalForms,
  products: slovak.products,
  banks: slovak.banks,
  registry: slovak.registry,
  ownCompany: {
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
  },
  partnerTaxIds(r, isCompany) {
    const ico = isCompany ? `${r.int(3, 5)}${r.digits(7)}` : null;
    const dic = isCompany ? `20${r.digits(8)}` : null;
    const vatPayer = isCompany && r.chance(0.7);
    return { ico, taxId: vatPayer ? `SK${dic}` : dic };
  },
  phoneNumber: (r) => `+421 9${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`,
  webDomain: 'sk',
  texts: {
    issued: 'Fakturujeme Vám tovar a služby podľa objednávky',
    received: (number) => `Prijatý doklad ${number}`,
    eshopOrder: 'Objednávka z e-shopu',
    warehouse: 'Sklad',
    vatExemption: 'Dodanie tovaru oslobodené od dane podľa § 47 zákona o DPH',
  },
  currencies: [
    ['EUR', 'Euro', '€'],
    ['CZK', 'Česká koruna', 'Kč'],
    ['USD', 'Americký dolár', '$'],
    ['GBP', 'Britská libra', '£'],
    ['HUF', 'Maďarský forint', 'Ft'],
    ['PLN', 'Poľský zlotý', 'zł'],
  ],
  countries: [
    ['SK', 'Slovensko', 703],
    ['CZ', 'Česko', 203],
    ['AT', 'Rakúsko', 40],
    ['HU', 'Maďarsko', 348],
    ['PL', 'Poľsko', 616],
    ['DE', 'Nemecko', 276],
    ['UA', 'Ukrajina', 804],
    ['US', 'Spojené štáty americké', 840],
    ['GB', 'Spojené kráľovstvo', 826],
  ],
  activities: [
    ['OBCH', 'Obchodná činnosť'],
    ['SLUZ', 'Služby'],
    ['VYR', 'Výroba'],
    ['ESH', 'Predaj cez e-shop'],
    ['SERV', 'Servis'],
  ],
  establishments: [
    {
      Code: 'BA',
      Name: 'Prevádzka Bratislava',
      Street: 'Karadžičova 8',
      City: 'Bratislava',
      PostCode: '821 08',
    },
    { Code: 'KE', Name: 'Predajňa Košice', Street: 'Hlavná 12', City: 'Košice', PostCode: '040 01' },
  ],
  bankAccounts: [
    ['Bežný účet', '2612345678', 2, 'SK3111000000002612345678', 'EUR'],
    ['Účet VÚB', '3456789012', 1, 'SK0802000000003456789012', 'EUR'],
    ['Devízový účet CZK', '4023456789', 4, 'SK7575000000004023456789', 'CZK'],
  ],
  centres: [
    ['BA', 'Centrála Bratislava', 0],
    ['KE', 'Pobočka Košice', 1],
    ['ZA', 'Pobočka Žilina', null],
    ['ESHOP', 'E-shop', null],
  ],
  cashRegisters: [
    ['HP', 'Hlavná pokladnica'],
    ['PP', 'Pokladnica predajňa'],
  ],
  paymentMethodTypes: [
    ['PRI', 'Prevodom', 'Bankový prevod'],
    ['HOT', 'Hotovosť', 'Platba v hotovosti'],
    ['DOB', 'Dobierka', 'Platba pri prevzatí'],
    ['KAR', 'Platobná karta', 'Platba kartou'],
    ['ZAP', 'Zápočet', 'Vzájomný zápočet'],
  ],
  paymentMethods: ['Prevodný príkaz', 'Hotovosť', 'Dobierka', 'Platobná karta'],
  sellingPrices: [
    ['VO', 'Veľkoobchodná cena', 'SecondaryPrice', 10],
    ['MO', 'Maloobchodná cena', 'BasicPrice', null],
    ['VIP', 'VIP zákazník', 'Discount', 15],
  ],
  exchangeRates: [
    ['CZK', 25.21, 1],
    ['USD', 1.0842, 1],
    ['GBP', 0.8573, 1],
    ['HUF', 395.6, 1],
    ['PLN', 4.312, 1],
  ],
};

const czData: NationalData = {
  variant: 'cz',
  country: 'CZ',
  homeCurrency: 'CZK',
  foreignCurrency: 'EUR',
  foreignRate: 25.21,
  vatRates: [
    ['BasicVatRate', 'Základní sazba', 21],
    ['FirstReducedVatRate', 'Snížená sazba', 12],
    ['ZeroVatRate', 'Nulová sazba', 0],
  ],
  vatRatesValidFrom: '2024-01-01T00:00:00',
  vatPercent: czech.vatPercent,
  maleFirstNames: czech.maleFirstNames,
  femaleFirstNames: czech.femaleFirstNames,
  surnames: czech.surnames,
  cities: czech.cities,
  streets: czech.streets,
  companyStems: czech.companyStems,
  companyKinds: czech.companyKinds,
  legalForms: czech.legalForms,
  products: czech.products,
  banks: czech.banks,
  registry: czech.registry,
  ownCompany: {
    CompanyName: 'Sandbox Demo s.r.o.',
    Street: 'Vinohradská 12',
    City: 'Praha',
    PostCode: '120 00',
    Country: 'CZ',
    IdentificationNumber: '27123456',
    TaxIdentificationNumber: 'CZ27123456',
    VatIdentificationNumber: 'CZ27123456',
    Email: 'fakturace@sandbox-demo.cz',
    Iban: 'CZ6020100000002612345682',
  },
  partnerTaxIds(r, isCompany) {
    if (!isCompany) return { ico: null, taxId: null };
    const first7 = `${r.int(1, 9)}${r.digits(6)}`;
    const ico = `${first7}${czech.icoCheckDigit(first7)}`;
    return { ico, taxId: `CZ${ico}` };
  },
  phoneNumber: (r) => `+420 ${r.pick(['6', '7'])}${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`,
  webDomain: 'cz',
  texts: {
    issued: 'Fakturujeme Vám zboží a služby dle objednávky',
    received: (number) => `Přijatý doklad ${number}`,
    eshopOrder: 'Objednávka z e-shopu',
    warehouse: 'Sklad',
    vatExemption: 'Osvobozeno od daně podle § 66 zákona o DPH',
  },
  currencies: [
    ['CZK', 'Česká koruna', 'Kč'],
    ['EUR', 'Euro', '€'],
    ['USD', 'Americký dolar', '$'],
    ['GBP', 'Britská libra', '£'],
    ['HUF', 'Maďarský forint', 'Ft'],
    ['PLN', 'Polský zlotý', 'zł'],
  ],
  countries: [
    ['CZ', 'Česko', 203],
    ['SK', 'Slovensko', 703],
    ['AT', 'Rakousko', 40],
    ['HU', 'Maďarsko', 348],
    ['PL', 'Polsko', 616],
    ['DE', 'Německo', 276],
    ['UA', 'Ukrajina', 804],
    ['US', 'Spojené státy americké', 840],
    ['GB', 'Spojené království', 826],
  ],
  activities: [
    ['OBCH', 'Obchodní činnost'],
    ['SLUZ', 'Služby'],
    ['VYR', 'Výroba'],
    ['ESH', 'Prodej přes e-shop'],
    ['SERV', 'Servis'],
  ],
  establishments: [
    { Code: 'PHA', Name: 'Provozovna Praha', Street: 'Vinohradská 12', City: 'Praha', PostCode: '120 00' },
    { Code: 'BRN', Name: 'Prodejna Brno', Street: 'Masarykova 20', City: 'Brno', PostCode: '602 00' },
  ],
  bankAccounts: [
    ['Běžný účet', '2612345682', 3, 'CZ6020100000002612345682', 'CZK'],
    ['Účet KB', '3456789015', 0, 'CZ8401000000003456789015', 'CZK'],
    ['Devizový účet EUR', '4023456789', 2, 'CZ4508000000004023456789', 'EUR'],
  ],
  centres: [
    ['PHA', 'Centrála Praha', 0],
    ['BRN', 'Pobočka Brno', 1],
    ['OVA', 'Pobočka Ostrava', null],
    ['ESHOP', 'E-shop', null],
  ],
  cashRegisters: [
    ['HP', 'Hlavní pokladna'],
    ['PP', 'Pokladna prodejna'],
  ],
  paymentMethodTypes: [
    ['PRI', 'Převodem', 'Bankovní převod'],
    ['HOT', 'Hotově', 'Platba v hotovosti'],
    ['DOB', 'Dobírka', 'Platba při převzetí'],
    ['KAR', 'Platební karta', 'Platba kartou'],
    ['ZAP', 'Zápočet', 'Vzájemný zápočet'],
  ],
  paymentMethods: ['Převodní příkaz', 'Hotovost', 'Dobírka', 'Platební karta'],
  sellingPrices: [
    ['VO', 'Velkoobchodní cena', 'SecondaryPrice', 10],
    ['MO', 'Maloobchodní cena', 'BasicPrice', null],
    ['VIP', 'VIP zákazník', 'Discount', 15],
  ],
  exchangeRates: [
    ['EUR', 25.21, 1],
    ['USD', 23.25, 1],
    ['GBP', 29.41, 1],
    ['HUF', 6.37, 100],
    ['PLN', 5.86, 1],
  ],
};

const byVariant: Readonly<Record<ServiceVariant, NationalData>> = { sk: skData, cz: czData };

/** The demo company's national data of a variant. */
export function nationalData(variant: ServiceVariant): NationalData {
  return byVariant[variant];
}
