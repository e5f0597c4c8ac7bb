/**
 * GPC/ABO statements (the Czech and Slovak banks' fixed-width format, `.gpc`): records of 128
 * characters, `074` the statement header, `075` a transaction, and in some banks `076`, `078` and
 * `079` with more of the transaction before or after it. Positions (1-based) of a `075`:
 *
 * | 4–19 own account | 20–35 counter-account | 36–48 transaction id | 49–60 amount in hundredths |
 * | 61 posting code | 62–71 VS | 72–81 bank code + KS (KS the last 4) | 82–91 SS | 92–97 value date
 * | 98–117 counterparty name or note | 118–122 currency (ISO numeric, some banks) | 123–128 date |
 *
 * The known dialects read here:
 * - **Account numbers in the internal format** (KB and others, by the application's setting): the
 *   16 digits permuted. The header's own account tells the file's format: when its standard
 *   reading fails the modulo-11 check and its internal reading passes, every account of the file
 *   is read as internal.
 * - **Posting code.** `2` is a credit everywhere; banks number reversals differently (3/4 or 4/5),
 *   so every other code is not a credit to match.
 * - **Currency** at 118–122 (`00203` CZK, `00978` EUR) in ČSOB, Fio, Raiffeisenbank and others; KB
 *   writes an item-change flag and data type there instead: then the statement's currency is the
 *   one configured for the connection (`defaultCurrency`).
 * - **Messages**: `078`/`079` (AV fields, 35 characters each) after the `075` they belong to; a `076`
 *   holds a counterparty name at 36–? in some banks and is read as a message line.
 * The file is windows-1250 in most banks, UTF-8 in a few: the caller decodes it (`decodeStatement`).
 */
import {
  type BankTransaction,
  checkTransactions,
  normaliseSymbol,
  type ParsedStatement,
  StatementFormatError,
} from './bank-transaction.js';

/** ISO 4217 numeric → alphabetic for the currencies Czech and Slovak accounts hold. */
const currencyByNumber: Record<string, string> = {
  '203': 'CZK',
  '978': 'EUR',
  '840': 'USD',
  '826': 'GBP',
  '985': 'PLN',
  '348': 'HUF',
  '756': 'CHF',
};

const PREFIX_WEIGHTS = [10, 5, 8, 4, 2, 1];
const NUMBER_WEIGHTS = [6, 3, 7, 9, 10, 5, 8, 4, 2, 1];

function mod11(digits: string, weights: readonly number[]): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) sum += Number(digits[i]) * (weights[i] ?? 0);
  return sum % 11 === 0;
}

/** Sixteen digits (prefix 6 + number 10) pass the Czech account check. */
export function validAccountDigits(digits: string): boolean {
  return (
    /^\d{16}$/.test(digits) &&
    !/^0{16}$/.test(digits) &&
    mod11(digits.slice(0, 6), PREFIX_WEIGHTS) &&
    mod11(digits.slice(6), NUMBER_WEIGHTS)
  );
}

/** Standard position (0-based) ← internal position (1-based) of the ABO internal format. */
const INTERNAL_ORDER = [11, 12, 13, 14, 15, 16, 5, 6, 7, 8, 9, 4, 10, 2, 3, 1];

/** The internal-format digits permuted back into prefix + number. */
export function fromInternalFormat(internal: string): string {
  return INTERNAL_ORDER.map((p) => internal[p - 1] ?? '0').join('');
}

/** `prefix-number` without leading zeros (prefix left out when zero). */
function formatAccount(digits: string): string {
  const prefix = digits.slice(0, 6).replace(/^0+/, '');
  const number = digits.slice(6).replace(/^0+/, '') || '0';
  return prefix ? `${prefix}-${number}` : number;
}

export type AccountFormat = 'standard' | 'internal';

/** The file's account format, told by the own account of its header. */
export function accountFormatOf(ownAccountField: string): AccountFormat {
  const padded = ownAccountField.trim().padStart(16, '0');
  return !validAccountDigits(padded) && validAccountDigits(fromInternalFormat(padded))
    ? 'internal'
    : 'standard';
}

/** A 16-digit account field → `prefix-number`, or undefined for an empty one. */
export function readAccount(field: string, format: AccountFormat): string | undefined {
  const digits = field.trim();
  if (!/^\d{1,16}$/.test(digits) || /^0+$/.test(digits)) return undefined;
  const padded = digits.padStart(16, '0');
  return formatAccount(format === 'internal' ? fromInternalFormat(padded) : padded);
}

/** `ddmmyy` → `yyyy-mm-dd` (years 00–69 are 20xx), or undefined for blanks and zeros. */
function dateOf(field: string): string | undefined {
  if (!/^\d{6}$/.test(field) || field === '000000') return undefined;
  const dd = field.slice(0, 2);
  const mm = field.slice(2, 4);
  const yy = Number(field.slice(4, 6));
  return `${yy < 70 ? 2000 + yy : 1900 + yy}-${mm}-${dd}`;
}

const cut = (line: string, from: number, to: number): string => line.slice(from - 1, to);

export interface GpcOptions {
  /** The account's currency when the records carry none (KB's dialect). */
  defaultCurrency: string;
}

/** A GPC/ABO statement (decoded text) → its credit transactions. */
export function parseGpc(content: string, options: GpcOptions): ParsedStatement {
  const lines = content.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines.find((l) => l.startsWith('074'));
  if (!header) throw new StatementFormatError('gpc', ['line 1: expected a 074 statement header']);
  const format = accountFormatOf(cut(header, 4, 19));
  const account = readAccount(cut(header, 4, 19), format);
  if (!account) throw new StatementFormatError('gpc', ['074: own account (positions 4-19) is empty']);
  const built: { where: string; record: Record<string, unknown> }[] = [];
  const reasons: string[] = [];
  let skipped = 0;
  let current: { record: Record<string, unknown>; message: string[] } | undefined;
  const close = () => {
    if (!current) return;
    const message = current.message.join(' ').replace(/\s+/g, ' ').trim();
    if (message) current.record.message = message;
    current = undefined;
  };
  lines.forEach((line, i) => {
    const where = `line ${i + 1}`;
    const type = line.slice(0, 3);
    if (type === '074') return;
    if (type === '076' || type === '078' || type === '079') {
      if (current) current.message.push(line.slice(3).trim());
      return;
    }
    if (type !== '075') {
      reasons.push(`${where}: unknown record type '${type}'`);
      return;
    }
    close();
    if (line.length < 97) {
      reasons.push(`${where}: a 075 record is ${line.length} characters, expected 128`);
      return;
    }
    if (cut(line, 61, 61) !== '2') {
      skipped += 1;
      return;
    }
    const amountField = cut(line, 49, 60);
    const currencyField = cut(line, 118, 122).trim();
    const currencyByCode = /^\d{3,5}$/.test(currencyField)
      ? currencyByNumber[currencyField.slice(-3)]
      : undefined;
    const constant = cut(line, 72, 81);
    const name = cut(line, 98, 117).trim();
    const counterAccount = readAccount(cut(line, 20, 35), format);
    const bankCode = constant.slice(2, 6);
    const record: Record<string, unknown> = {
      transactionId: cut(line, 36, 48)
        .trim()
        .replace(/^0+(?=\d)/, ''),
      account,
      amount: /^\d{12}$/.test(amountField) ? Number(amountField) / 100 : Number.NaN,
      currency: currencyByCode ?? options.defaultCurrency,
      bookingDate: dateOf(cut(line, 123, 128)) ?? dateOf(cut(line, 92, 97)),
      valueDate: dateOf(cut(line, 92, 97)),
      variableSymbol: normaliseSymbol(cut(line, 62, 71)),
      constantSymbol: normaliseSymbol(constant.slice(-4)),
      specificSymbol: normaliseSymbol(cut(line, 82, 91)),
      counterparty: {
        name: name || undefined,
        account:
          counterAccount && /^\d{4}$/.test(bankCode) && bankCode !== '0000'
            ? `${counterAccount}/${bankCode}`
            : counterAccount,
      },
    };
    current = { record, message: [] };
    built.push({ where, record });
  });
  close();
  if (reasons.length > 0) throw new StatementFormatError('gpc', reasons);
  const transactions: BankTransaction[] = checkTransactions('gpc', built);
  return { format: 'gpc', account, transactions, skipped };
}
