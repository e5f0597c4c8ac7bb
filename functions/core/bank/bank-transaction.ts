/**
 * One credit transaction of a bank statement, whatever the format it came in (camt.053, GPC/ABO,
 * the Fio API): the record the matching works on. Amounts are positive, in the currency of the
 * account; symbols are the Czech and Slovak payment symbols (variable, constant, specific), digits
 * only, without leading zeros (a variable symbol `0000012345` pays the invoice whose symbol is
 * `12345`).
 */
import * as z from 'zod';

const isoDate = z.iso.date();
const symbol = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, 'expected up to 10 digits without leading zeros')
  .describe('A payment symbol: digits only, leading zeros removed.');

export const bankTransactionSchema = z
  .object({
    transactionId: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .describe("The bank's id of the transaction: the same in every statement that lists it."),
    account: z.string().trim().min(1).max(64).describe('The own account (IBAN, or number/bank code).'),
    amount: z.number().finite().positive().max(1e12).describe('The amount credited, in `currency`.'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code'),
    bookingDate: isoDate,
    valueDate: isoDate.optional(),
    variableSymbol: symbol.optional(),
    constantSymbol: symbol.optional(),
    specificSymbol: symbol.optional(),
    counterparty: z
      .object({
        name: z.string().trim().min(1).max(255).optional(),
        account: z.string().trim().min(1).max(64).optional(),
      })
      .strict()
      .optional(),
    message: z.string().trim().min(1).max(1000).optional(),
  })
  .strict();
export type BankTransaction = z.infer<typeof bankTransactionSchema>;

/** The formats a statement may come in. */
export const statementFormats = ['camt053', 'gpc', 'fio'] as const;
export type StatementFormat = (typeof statementFormats)[number];

/** A parsed statement: its credit transactions (debits, pending and reversed entries left out). */
export interface ParsedStatement {
  format: StatementFormat;
  account: string;
  transactions: BankTransaction[];
  /** Entries that are not credits to match (debits, pending, reversals), counted. */
  skipped: number;
}

/** A statement that cannot be read: every problem, each naming its place in the file. */
export class StatementFormatError extends Error {
  override readonly name = 'StatementFormatError';
  constructor(
    readonly format: StatementFormat | 'unknown',
    readonly reasons: string[],
    options?: { cause?: unknown },
  ) {
    super(`the ${format} statement cannot be read: ${reasons.slice(0, 10).join('; ')}`, options);
  }
}

/** A symbol as the record keeps it: digits only without leading zeros; undefined for none or zero. */
export function normaliseSymbol(value: string | number | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const digits = String(value).trim();
  if (!/^\d{1,10}$/.test(digits)) return undefined;
  const stripped = digits.replace(/^0+/, '');
  return stripped === '' ? undefined : stripped;
}

/** Drops keys whose value is undefined or an empty string (and an empty counterparty). */
function compact<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === '') continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const inner = compact(v as Record<string, unknown>);
      if (Object.keys(inner).length === 0) continue;
      out[k] = inner;
    } else out[k] = v;
  }
  return out as T;
}

/**
 * Validates the transactions a parser built; every problem names the transaction (`where` of
 * each) and the field. Throws `StatementFormatError` listing them all.
 */
export function checkTransactions(
  format: StatementFormat,
  built: readonly { where: string; record: Record<string, unknown> }[],
): BankTransaction[] {
  const reasons: string[] = [];
  const out: BankTransaction[] = [];
  for (const { where, record } of built) {
    const parsed = bankTransactionSchema.safeParse(compact(record));
    if (parsed.success) out.push(parsed.data);
    else
      for (const issue of parsed.error.issues)
        reasons.push(`${where}: ${issue.path.join('.') || 'record'}: ${issue.message}`);
  }
  const seen = new Map<string, string>();
  built.forEach(({ where, record }) => {
    const id = String(record.transactionId ?? '');
    const first = seen.get(id);
    if (id && first) reasons.push(`${where}: transactionId: ${id} repeats ${first}`);
    else seen.set(id, where);
  });
  if (reasons.length > 0) throw new StatementFormatError(format, reasons);
  return out;
}
