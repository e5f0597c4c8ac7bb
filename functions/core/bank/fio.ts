/**
 * The Fio banka API's statement (`…/transactions.json`, `…/last/{token}/transactions.json`):
 * `accountStatement.info` names the account; `accountStatement.transactionList.transaction[]`
 * holds each movement as numbered columns `{ value, name, id }` (or null). Read here: `column22`
 * the movement id, `column0` the date (`2026-11-20+0100`), `column1` the amount (negative for a
 * debit), `column14` the currency, `column5` VS, `column4` KS, `column6` SS, `column2`/`column3` the
 * counter-account and its bank code, `column10` its name, `column16` the message for the payee,
 * `column7` the payer's identification and `column25` the comment.
 */
import * as z from 'zod';
import {
  type BankTransaction,
  checkTransactions,
  normaliseSymbol,
  type ParsedStatement,
  StatementFormatError,
} from './bank-transaction.js';

const column = z
  .object({ value: z.union([z.string(), z.number()]).nullable() })
  .loose()
  .nullish();

const transactionSchema = z.record(z.string(), column);

export const fioStatementSchema = z.object({
  accountStatement: z.object({
    info: z
      .object({
        accountId: z.string().nullish(),
        bankId: z.string().nullish(),
        currency: z.string().nullish(),
        iban: z.string().nullish(),
        idLastDownload: z.number().nullish(),
        idTo: z.number().nullish(),
      })
      .loose(),
    transactionList: z
      .object({ transaction: z.array(transactionSchema).nullish() })
      .loose()
      .nullish(),
  }),
});
export type FioStatement = z.infer<typeof fioStatementSchema>;

type Columns = z.infer<typeof transactionSchema>;

const value = (t: Columns, n: number): string | undefined => {
  const v = t[`column${n}`]?.value;
  if (v === null || v === undefined) return undefined;
  const s = String(v).trim();
  return s === '' ? undefined : s;
};

/** `2026-11-20+0100` → `2026-11-20`. */
const dateOf = (v: string | undefined): string | undefined => v?.slice(0, 10);

/** A Fio statement (parsed JSON) → its credit transactions; `lastId` is the highest movement id seen. */
export function parseFio(json: unknown): ParsedStatement & { lastId?: number } {
  const parsed = fioStatementSchema.safeParse(json);
  if (!parsed.success)
    throw new StatementFormatError(
      'fio',
      parsed.error.issues.map((i) => `${i.path.join('.') || 'statement'}: ${i.message}`),
      { cause: parsed.error },
    );
  const { info, transactionList } = parsed.data.accountStatement;
  const account =
    info.iban ?? (info.accountId && info.bankId ? `${info.accountId}/${info.bankId}` : undefined);
  if (!account)
    throw new StatementFormatError('fio', ['accountStatement.info.iban: missing (and no accountId)']);
  const built: { where: string; record: Record<string, unknown> }[] = [];
  let skipped = 0;
  let lastId: number | undefined;
  (transactionList?.transaction ?? []).forEach((t, i) => {
    const id = value(t, 22);
    if (id && /^\d+$/.test(id)) lastId = Math.max(lastId ?? 0, Number(id));
    const amount = Number(value(t, 1));
    if (!(amount > 0)) {
      skipped += 1;
      return;
    }
    const counterAccount = value(t, 2);
    const bank = value(t, 3);
    const message = [value(t, 16), value(t, 7), value(t, 25)].filter(Boolean).join(' ');
    built.push({
      where: `transactionList.transaction[${i}]`,
      record: {
        transactionId: id,
        account,
        amount,
        currency: value(t, 14) ?? info.currency ?? undefined,
        bookingDate: dateOf(value(t, 0)),
        variableSymbol: normaliseSymbol(value(t, 5)),
        constantSymbol: normaliseSymbol(value(t, 4)),
        specificSymbol: normaliseSymbol(value(t, 6)),
        counterparty: {
          name: value(t, 10),
          account: counterAccount ? (bank ? `${counterAccount}/${bank}` : counterAccount) : undefined,
        },
        message: message || undefined,
      },
    });
  });
  const transactions: BankTransaction[] = checkTransactions('fio', built);
  return { format: 'fio', account, transactions, skipped, ...(lastId !== undefined ? { lastId } : {}) };
}
