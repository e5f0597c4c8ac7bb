/** Realistic Czech demo data: names, places, companies, products (prices in CZK), banks. */

export const maleFirstNames = [
  'Jan',
  'Petr',
  'Jiří',
  'Josef',
  'Pavel',
  'Martin',
  'Tomáš',
  'Jaroslav',
  'Miroslav',
  'Zdeněk',
  'Václav',
  'Michal',
  'František',
  'Jakub',
  'Milan',
  'Karel',
  'Lukáš',
  'David',
  'Vladimír',
  'Ondřej',
] as const;

export const femaleFirstNames = [
  'Marie',
  'Jana',
  'Eva',
  'Hana',
  'Anna',
  'Lenka',
  'Kateřina',
  'Lucie',
  'Věra',
  'Alena',
  'Petra',
  'Veronika',
  'Martina',
  'Jaroslava',
  'Tereza',
  'Michaela',
  'Zuzana',
  'Ivana',
  'Markéta',
  'Monika',
] as const;

/** Surnames as [male, female] forms. */
export const surnames = [
  ['Novák', 'Nováková'],
  ['Svoboda', 'Svobodová'],
  ['Novotný', 'Novotná'],
  ['Dvořák', 'Dvořáková'],
  ['Černý', 'Černá'],
  ['Procházka', 'Procházková'],
  ['Kučera', 'Kučerová'],
  ['Veselý', 'Veselá'],
  ['Horák', 'Horáková'],
  ['Němec', 'Němcová'],
  ['Marek', 'Marková'],
  ['Pospíšil', 'Pospíšilová'],
  ['Pokorný', 'Pokorná'],
  ['Hájek', 'Hájková'],
  ['Král', 'Králová'],
  ['Jelínek', 'Jelínková'],
  ['Růžička', 'Růžičková'],
  ['Beneš', 'Benešová'],
  ['Fiala', 'Fialová'],
  ['Sedláček', 'Sedláčková'],
] as const;

/** [city, PSČ, district] */
export const cities = [
  ['Praha', '110 00', 'Praha 1'],
  ['Praha', '140 00', 'Praha 4'],
  ['Brno', '602 00', 'Brno-město'],
  ['Ostrava', '702 00', 'Ostrava-město'],
  ['Plzeň', '301 00', 'Plzeň-město'],
  ['Liberec', '460 01', 'Liberec'],
  ['Olomouc', '779 00', 'Olomouc'],
  ['České Budějovice', '370 01', 'České Budějovice'],
  ['Hradec Králové', '500 02', 'Hradec Králové'],
  ['Ústí nad Labem', '400 01', 'Ústí nad Labem'],
  ['Pardubice', '530 02', 'Pardubice'],
  ['Zlín', '760 01', 'Zlín'],
  ['Havířov', '736 01', 'Karviná'],
  ['Kladno', '272 01', 'Kladno'],
  ['Most', '434 01', 'Most'],
  ['Opava', '746 01', 'Opava'],
  ['Frýdek-Místek', '738 01', 'Frýdek-Místek'],
  ['Jihlava', '586 01', 'Jihlava'],
  ['Karlovy Vary', '360 01', 'Karlovy Vary'],
  ['Teplice', '415 01', 'Teplice'],
] as const;

export const streets = [
  'Hlavní',
  'Nádražní',
  'Husova',
  'Masarykova',
  'Palackého',
  'Komenského',
  'Jiráskova',
  'Smetanova',
  'Školní',
  'Zahradní',
  'Tyršova',
  'Havlíčkova',
  'Sokolovská',
  'Družstevní',
  'Lidická',
  'Polní',
  'Krátká',
  'Dlouhá',
  'Nerudova',
  'Na Příkopě',
] as const;

export const companyStems = [
  'Vltava',
  'Labe',
  'Morava',
  'Šumava',
  'Krkonoše',
  'Beskydy',
  'Jizera',
  'Sázava',
  'Ohře',
  'Berounka',
  'Podyjí',
  'Vysočina',
  'Haná',
  'Polabí',
  'Říp',
  'Sněžka',
  'Radhošť',
  'Blaník',
  'Lipno',
  'Bezděz',
] as const;

export const companyKinds = [
  'Obchod',
  'Stavby',
  'Tech',
  'Soft',
  'Agro',
  'Dřevo',
  'Elektro',
  'Servis',
  'Logistika',
  'Gastro',
] as const;

export const legalForms = ['s.r.o.', 's.r.o.', 's.r.o.', 'a.s.', 'spol. s r.o.', 'k.s.'] as const;

/**
 * [code, name, unit, unit price without VAT (CZK), VAT rate type]. Czech rates since 2024: basic
 * 21 % (`BasicVatRate`), reduced 12 % (`FirstReducedVatRate`: food, medical supplies), zero (books,
 * export).
 */
export const products = [
  ['KAN-001', 'Papír A4 80 g, 500 listů', 'bal', 119, 'BasicVatRate'],
  ['KAN-002', 'Toner černý HP 305A', 'ks', 1590, 'BasicVatRate'],
  ['KAN-003', 'Pořadač pákový A4', 'ks', 59, 'BasicVatRate'],
  ['POT-001', 'Káva zrnková 1 kg', 'ks', 459, 'FirstReducedVatRate'],
  ['POT-002', 'Chléb pšenično-žitný 1 kg', 'ks', 49.9, 'FirstReducedVatRate'],
  ['POT-003', 'Máslo 250 g', 'ks', 54.9, 'FirstReducedVatRate'],
  ['KNI-001', 'Kniha: Účetnictví podnikatelů', 'ks', 599, 'ZeroVatRate'],
  ['ELE-001', 'Notebook 15,6" i5 16 GB', 'ks', 18990, 'BasicVatRate'],
  ['ELE-002', 'Monitor 27" IPS', 'ks', 5490, 'BasicVatRate'],
  ['ELE-003', 'Kabel HDMI 2 m', 'ks', 199, 'BasicVatRate'],
  ['SLU-001', 'Servisní hodina technika', 'hod', 890, 'BasicVatRate'],
  ['SLU-002', 'Doprava do 50 km', 'km', 16, 'BasicVatRate'],
  ['SLU-003', 'Instalace softwaru', 'ks', 1190, 'BasicVatRate'],
  ['STA-001', 'Cement 25 kg', 'pytel', 149, 'BasicVatRate'],
  ['STA-002', 'Cihla plná 290×140×65', 'ks', 11.5, 'BasicVatRate'],
  ['STA-003', 'Sádrokarton 12,5 mm', 'm2', 99, 'BasicVatRate'],
  ['DRE-001', 'Hranol smrk 100×100', 'm', 159, 'BasicVatRate'],
  ['ZDR-001', 'Respirátor FFP2', 'ks', 22, 'FirstReducedVatRate'],
  ['EXP-001', 'Vývoz zboží mimo EU', 'ks', 2990, 'ZeroVatRate'],
  ['LIC-001', 'Licence účetního softwaru (rok)', 'ks', 4790, 'BasicVatRate'],
] as const;

export const vatPercent: Readonly<Record<string, number>> = {
  BasicVatRate: 21,
  FirstReducedVatRate: 12,
  ZeroVatRate: 0,
};

/** [bank code, name, SWIFT/BIC] */
export const banks = [
  ['0100', 'Komerční banka, a.s.', 'KOMBCZPP'],
  ['0300', 'Československá obchodní banka, a. s.', 'CEKOCZPP'],
  ['0800', 'Česká spořitelna, a.s.', 'GIBACZPX'],
  ['2010', 'Fio banka, a.s.', 'FIOBCZPP'],
  ['0600', 'MONETA Money Bank, a.s.', 'AGBACZPP'],
  ['2700', 'UniCredit Bank Czech Republic and Slovakia, a.s.', 'BACXCZPP'],
  ['3030', 'Air Bank a.s.', 'AIRACZPP'],
  ['5500', 'Raiffeisenbank a.s.', 'RZBCCZPP'],
  ['6210', 'mBank S.A., organizační složka', 'BREXCZPP'],
  ['2250', 'Banka CREDITAS a.s.', 'CTASCZ22'],
  ['5800', 'J&T BANKA, a.s.', 'JTBPCZPP'],
  ['0710', 'Česká národní banka', 'CNBACZPP'],
] as const;

/**
 * The check digit of an IČO's first seven digits: weights 8…2, c = (11 − sum mod 11) mod 10.
 * Throws on anything but seven digits.
 */
export function icoCheckDigit(first7: string): number {
  if (!/^\d{7}$/.test(first7)) throw new RangeError(`expected seven digits, got '${first7}'`);
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(first7[i]) * (8 - i);
  return (11 - (sum % 11)) % 10;
}

/** Whether `ico` is eight digits whose last is the check digit of the others. */
export function isValidIco(ico: string): boolean {
  return /^\d{8}$/.test(ico) && icoCheckDigit(ico.slice(0, 7)) === Number(ico[7]);
}

/** The built-in company registry used by `AddressResolutionMode` (IČO → company); DIČ is `CZ<IČO>`. */
export const registry = [
  {
    IdentificationNumber: '26431009',
    CompanyName: 'Vltava Soft s.r.o.',
    Street: 'Na Florenci 15',
    City: 'Praha',
    PostCode: '110 00',
    TaxIdentificationNumber: 'CZ26431009',
    VatIdentificationNumber: 'CZ26431009',
  },
  {
    IdentificationNumber: '45123781',
    CompanyName: 'Labe Stavby a.s.',
    Street: 'Nádražní 44',
    City: 'Ústí nad Labem',
    PostCode: '400 01',
    TaxIdentificationNumber: 'CZ45123781',
    VatIdentificationNumber: 'CZ45123781',
  },
  {
    IdentificationNumber: '60789123',
    CompanyName: 'Morava Logistika s.r.o.',
    Street: 'Vídeňská 78',
    City: 'Brno',
    PostCode: '619 00',
    TaxIdentificationNumber: 'CZ60789123',
    VatIdentificationNumber: 'CZ60789123',
  },
  {
    IdentificationNumber: '25987658',
    CompanyName: 'Šumava Agro spol. s r.o.',
    Street: 'Polní 3',
    City: 'České Budějovice',
    PostCode: '370 01',
    TaxIdentificationNumber: 'CZ25987658',
    VatIdentificationNumber: 'CZ25987658',
  },
  {
    IdentificationNumber: '28345673',
    CompanyName: 'Beskydy Gastro s.r.o.',
    Street: 'Masarykovo náměstí 5',
    City: 'Frýdek-Místek',
    PostCode: '738 01',
    TaxIdentificationNumber: 'CZ28345673',
    VatIdentificationNumber: null,
  },
  {
    IdentificationNumber: '47318520',
    CompanyName: 'Jizera Elektro s.r.o.',
    Street: 'Palackého 17',
    City: 'Liberec',
    PostCode: '460 01',
    TaxIdentificationNumber: 'CZ47318520',
    VatIdentificationNumber: 'CZ47318520',
  },
] as const;
