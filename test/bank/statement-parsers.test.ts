/**
 * The statement parsers on statements written from the formats' descriptions: camt.053 001.02 and
 * 001.08 with the Czech symbol conventions, GPC/ABO with the standard and internal account format
 * and with and without a currency, and the Fio API's JSON.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StatementFormatError } from '#functions/core/bank/bank-transaction.js';
import { parseCamt053 } from '#functions/core/bank/camt053.js';
import { parseFio } from '#functions/core/bank/fio.js';
import { accountFormatOf, fromInternalFormat, parseGpc } from '#functions/core/bank/gpc.js';
import { parseStatement } from '#functions/core/bank/parse-statement.js';
import { symbolsInText } from '#functions/core/bank/payment-symbols.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/bank/${name}`, import.meta.url));

describe('camt.053', () => {
  it('001.02: booked credits only, one per transaction of a batch, symbols from EndToEndId, the creditor reference and the text', () => {
    const statement = parseCamt053(fixture('camt053-001-02.xml').toString('utf8'));
    expect(statement.account).toBe('CZ6508000000192000145399');
    // A debit, a pending credit and a reversal are left out.
    expect(statement.skipped).toBe(3);
    expect(statement.transactions).toEqual([
      {
        transactionId: '26112000001',
        account: 'CZ6508000000192000145399',
        amount: 1210,
        currency: 'CZK',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        variableSymbol: '2026000042',
        specificSymbol: '77',
        constantSymbol: '308',
        counterparty: { name: 'Jana Nováková', account: '2400123456/2010' },
        message: 'Faktura 2026000042',
      },
      {
        transactionId: '26112000004/1',
        account: 'CZ6508000000192000145399',
        amount: 1000,
        currency: 'CZK',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-19',
        variableSymbol: '12345',
        counterparty: { name: 'ACME s.r.o.', account: 'CZ5855000000001265098001' },
      },
      {
        transactionId: '26112000004/2',
        account: 'CZ6508000000192000145399',
        amount: 2000,
        currency: 'CZK',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-19',
        variableSymbol: '2026000043',
        message: 'Platba za objednavku',
      },
    ]);
  });

  it('001.08: status and party in their later shape, a booking date-time, symbols in the remittance text', () => {
    const statement = parseCamt053(fixture('camt053-001-08.xml').toString('utf8'));
    expect(statement.skipped).toBe(1);
    expect(statement.transactions).toEqual([
      {
        transactionId: 'SK-TX-778899',
        account: 'SK3112000000198742637541',
        amount: 123.45,
        currency: 'EUR',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        variableSymbol: '2026100017',
        constantSymbol: '308',
        counterparty: { name: 'Ján Veľký', account: 'SK8975000000000012345671' },
        message: '/VS2026100017/SS/KS0308 uhrada faktury',
      },
    ]);
  });

  it('refuses a credit without an amount or reference, naming the entry and the field', () => {
    const xml = fixture('camt053-001-08.xml')
      .toString('utf8')
      .replace('<Amt Ccy="EUR">123.45</Amt>', '<Amt Ccy="EUR">abc</Amt>')
      .replace('<AcctSvcrRef>SK-TX-778899</AcctSvcrRef>', '');
    const error = (() => {
      try {
        parseCamt053(xml);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StatementFormatError);
    expect((error as StatementFormatError).reasons).toEqual([
      'Stmt[0].Ntry[0]: transactionId: Invalid input: expected string, received undefined',
      'Stmt[0].Ntry[0]: amount: Invalid input: expected number, received NaN',
    ]);
    expect(() => parseCamt053('<Document><Other/></Document>')).toThrow('Document.BkToCstmrStmt: missing');
  });
});

describe('symbols in text', () => {
  it.each([
    ['/VS/123/SS/456/KS/0308', { variableSymbol: '123', specificSymbol: '456', constantSymbol: '308' }],
    ['VS: 0000042 platba', { variableSymbol: '42' }],
    ['vs 99 ks 1', { variableSymbol: '99', constantSymbol: '1' }],
    ['ADVS123', {}],
    ['VS12345678901', {}],
  ])('%s', (text, expected) => {
    expect(symbolsInText(text)).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// GPC: records built field by field from the ABO description (positions 1-based, 128 characters).

function field(value: string | number, width: number, pad: '0' | ' ' = '0'): string {
  const s = String(value);
  if (s.length > width) throw new Error(`'${s}' is wider than ${width}`);
  return pad === '0' ? s.padStart(width, '0') : s.padEnd(width, ' ');
}

/** The internal format per the ABO description: C9 C7 C8 C5 C0 C1 C2 C3 C4 C6 P0 … P5. */
function internal(standard16: string): string {
  const p = standard16.slice(0, 6);
  const c = standard16.slice(6);
  return [c[9], c[7], c[8], c[5], c[0], c[1], c[2], c[3], c[4], c[6], ...p].join('');
}

function header(account16: string): string {
  const line =
    '074' +
    account16 +
    field('ESHOP SRO', 20, ' ') +
    '191126' +
    field(1000000, 14) +
    '+' +
    field(1234500, 14) +
    '+' +
    field(0, 14) +
    '0' +
    field(234500, 14) +
    '0' +
    '226' +
    '201126' +
    ' '.repeat(14);
  expect(line).toHaveLength(128);
  return line;
}

function item(o: {
  account16: string;
  counter16: string;
  id: string;
  cents: number;
  code: string;
  vs: string;
  bank: string;
  ks: string;
  ss: string;
  name: string;
  currency: string;
}): string {
  const line =
    '075' +
    o.account16 +
    o.counter16 +
    field(o.id, 13) +
    field(o.cents, 12) +
    o.code +
    field(o.vs, 10) +
    field(`00${o.bank}${field(o.ks, 4)}`, 10) +
    field(o.ss, 10) +
    '201126' +
    field(o.name, 20, ' ') +
    o.currency +
    '201126';
  expect(line).toHaveLength(128);
  return line;
}

const OWN = '0000192000145399'; // 19-2000145399 (passes the modulo-11 check)
const COUNTER = '0000002400222222'; // 2400222222 (fails the check: a file's format comes from its header)

describe('GPC/ABO', () => {
  it('reads credits with symbols, currency and counterparty; leaves debits out; joins 078/079 messages', () => {
    const gpc = [
      header(OWN),
      item({
        account16: OWN,
        counter16: COUNTER,
        id: '4711',
        cents: 121000,
        code: '2',
        vs: '2026000042',
        bank: '2010',
        ks: '308',
        ss: '',
        name: 'NOVAK PAVEL',
        currency: '00203',
      }),
      `078${field('Faktura 2026000042', 35, ' ')}${field('dekujeme', 35, ' ')}`,
      item({
        account16: OWN,
        counter16: COUNTER,
        id: '4712',
        cents: 5000,
        code: '1',
        vs: '1',
        bank: '2010',
        ks: '',
        ss: '',
        name: 'POPLATEK',
        currency: '00203',
      }),
      item({
        account16: OWN,
        counter16: COUNTER,
        id: '4713',
        cents: 1999,
        code: '2',
        vs: '0000000777',
        bank: '0800',
        ks: '',
        ss: '55',
        name: '',
        currency: '00978',
      }),
    ].join('\r\n');
    const statement = parseGpc(gpc, { defaultCurrency: 'CZK' });
    expect(statement.account).toBe('19-2000145399');
    expect(statement.skipped).toBe(1);
    expect(statement.transactions).toEqual([
      {
        transactionId: '4711',
        account: '19-2000145399',
        amount: 1210,
        currency: 'CZK',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        variableSymbol: '2026000042',
        constantSymbol: '308',
        counterparty: { name: 'NOVAK PAVEL', account: '2400222222/2010' },
        message: 'Faktura 2026000042 dekujeme',
      },
      {
        transactionId: '4713',
        account: '19-2000145399',
        amount: 19.99,
        currency: 'EUR',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        variableSymbol: '777',
        specificSymbol: '55',
        counterparty: { account: '2400222222/0800' },
      },
    ]);
  });

  it("reads accounts in the internal format (KB's dialect) and takes the configured currency when none is given", () => {
    expect(fromInternalFormat(internal(OWN))).toBe(OWN);
    expect(accountFormatOf(internal(OWN))).toBe('internal');
    expect(accountFormatOf(OWN)).toBe('standard');
    const gpc = [
      header(internal(OWN)),
      item({
        account16: internal(OWN),
        counter16: internal(COUNTER),
        id: '900001',
        cents: 50000,
        code: '2',
        vs: '42',
        bank: '0100',
        ks: '',
        ss: '',
        name: 'JANA',
        currency: '01101', // item-change flag and data type, not a currency
      }),
    ].join('\n');
    const [tx] = parseGpc(gpc, { defaultCurrency: 'EUR' }).transactions;
    expect(tx).toMatchObject({
      account: '19-2000145399',
      currency: 'EUR',
      amount: 500,
      counterparty: { account: '2400222222/0100' },
    });
  });

  it('refuses a file without a header, an unknown record and a short record, naming the line', () => {
    expect(() => parseGpc('075xyz', { defaultCurrency: 'CZK' })).toThrow('expected a 074 statement header');
    const bad = [header(OWN), '099 something', '075short'].join('\n');
    expect(() => parseGpc(bad, { defaultCurrency: 'CZK' })).toThrow(
      "line 2: unknown record type '099'; line 3: a 075 record is 8 characters, expected 128",
    );
  });

  it('decodes windows-1250 files', () => {
    const line = item({
      account16: OWN,
      counter16: COUNTER,
      id: '1',
      cents: 100,
      code: '2',
      vs: '5',
      bank: '2010',
      ks: '',
      ss: '',
      name: 'ŽLUŤOUČKÝ KŮŇ',
      currency: '00203',
    });
    const text = [header(OWN), line].join('\r\n');
    const bytes = new Uint8Array([...text].map((ch) => cp1250[ch] ?? ch.charCodeAt(0)));
    expect(parseStatement(bytes, { defaultCurrency: 'CZK' }).transactions[0]?.counterparty?.name).toBe(
      'ŽLUŤOUČKÝ KŮŇ',
    );
  });
});

/** The windows-1250 bytes of the Czech capitals used above. */
const cp1250: Record<string, number> = { Ž: 0x8e, Ť: 0x8d, Č: 0xc8, Ý: 0xdd, Ů: 0xd9, Ň: 0xd2 };

describe('Fio API JSON', () => {
  it('reads credits by column (id 22, amount 1, currency 14, VS 5, KS 4, SS 6) and reports the last id', () => {
    const statement = parseFio(JSON.parse(fixture('fio-last.json').toString('utf8')));
    expect(statement.account).toBe('CZ7920100000002400222222');
    expect(statement.skipped).toBe(1);
    expect(statement.lastId).toBe(1147608198);
    expect(statement.transactions).toEqual([
      {
        transactionId: '1147608196',
        account: 'CZ7920100000002400222222',
        amount: 1500,
        currency: 'CZK',
        bookingDate: '2026-11-20',
        variableSymbol: '20260044',
        constantSymbol: '308',
        counterparty: { name: 'Novák, Pavel', account: '2900233333/2010' },
        message: 'Objednávka 44 Novák Pavel',
      },
      {
        transactionId: '1147608198',
        account: 'CZ7920100000002400222222',
        amount: 800,
        currency: 'CZK',
        bookingDate: '2026-11-21',
        specificSymbol: '123',
        counterparty: { account: '19-2000145399/0800' },
        message: 'záloha',
      },
    ]);
  });

  it('refuses a document of another shape, naming the field', () => {
    expect(() => parseFio({ accountStatement: { transactionList: null } })).toThrow(
      'accountStatement.info: Invalid input',
    );
    expect(() => parseStatement(new TextEncoder().encode('hello'), { defaultCurrency: 'CZK' })).toThrow(
      'expected a camt.053 XML document',
    );
  });
});
