/**
 * ISO 20022 camt.053 (bank to customer statement), versions 001.02 and later, as Czech and Slovak
 * banks issue it. Each booked credit entry (`Ntry` with `CdtDbtInd` CRDT, status BOOK, not a
 * reversal) becomes one transaction per `TxDtls` (a batch entry lists several), or one for an
 * entry without details. The id is the bank's reference (`AcctSvcrRef` of the details, else of the
 * entry; a batch entry's details without their own reference get `<entry ref>/<n>`). Symbols come
 * from `EndToEndId`, `RmtInf/Strd/CdtrRefInf/Ref` and the remittance text, in that order
 * (payment-symbols.ts). Versions differ in two places read here: the status (`<Sts>BOOK</Sts>` in
 * 001.02, `<Sts><Cd>BOOK</Cd></Sts>` later) and the parties (`Dbtr/Nm` in 001.02, `Dbtr/Pty/Nm`
 * from 001.08).
 */
import { XMLParser } from 'fast-xml-parser';
import {
  type BankTransaction,
  checkTransactions,
  type ParsedStatement,
  StatementFormatError,
} from './bank-transaction.js';
import { firstSymbols, symbolsInReference, symbolsInText } from './payment-symbols.js';

type Node = Record<string, unknown>;

const repeated = new Set([
  'Stmt',
  'Ntry',
  'NtryDtls',
  'TxDtls',
  'Ustrd',
  'Strd',
  'Bal',
  'AddtlNtryInf',
  'AddtlTxInf',
]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => repeated.has(name),
});

const node = (value: unknown): Node | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
const list = (value: unknown): Node[] =>
  Array.isArray(value) ? value.map(node).filter((n): n is Node => n !== undefined) : [];

/** The text at `path` (element names), or undefined. */
function text(from: unknown, ...path: string[]): string | undefined {
  let at: unknown = from;
  for (const key of path) {
    const n = node(at);
    if (!n) return undefined;
    at = n[key];
    if (Array.isArray(at)) at = at[0];
  }
  if (typeof at === 'string') return at.trim() === '' ? undefined : at.trim();
  const n = node(at);
  const inner = n?.['#text'];
  return typeof inner === 'string' && inner.trim() !== '' ? inner.trim() : undefined;
}

function texts(from: unknown, ...path: string[]): string[] {
  let at: unknown = from;
  for (const key of path.slice(0, -1)) at = node(at)?.[key];
  const last = node(at)?.[path[path.length - 1] ?? ''];
  const values = Array.isArray(last) ? last : last === undefined ? [] : [last];
  return values
    .map((v) => (typeof v === 'string' ? v.trim() : text({ v }, 'v')))
    .filter((v): v is string => !!v);
}

function accountOf(acct: unknown): string | undefined {
  return text(acct, 'Id', 'IBAN') ?? text(acct, 'Id', 'Othr', 'Id');
}

const dateOf = (holder: unknown): string | undefined =>
  (text(holder, 'Dt') ?? text(holder, 'DtTm'))?.slice(0, 10);

/** The status of an entry in any version: `BOOK`, `PDNG`, `INFO`. */
function statusOf(entry: Node): string | undefined {
  return typeof entry.Sts === 'string' ? entry.Sts.trim() : text(entry, 'Sts', 'Cd');
}

/** The payer: `Dbtr/Nm` (001.02) or `Dbtr/Pty/Nm` (001.08 and later); an ultimate debtor otherwise. */
function payerOf(details: Node | undefined): { name?: string; account?: string } {
  const parties = node(details?.RltdPties);
  const name =
    text(parties, 'Dbtr', 'Nm') ??
    text(parties, 'Dbtr', 'Pty', 'Nm') ??
    text(parties, 'UltmtDbtr', 'Nm') ??
    text(parties, 'UltmtDbtr', 'Pty', 'Nm');
  const account = accountOf(parties?.DbtrAcct);
  return { ...(name ? { name } : {}), ...(account ? { account } : {}) };
}

/** A camt.053 document (XML text) → its booked credit transactions. */
export function parseCamt053(xml: string): ParsedStatement {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new StatementFormatError('camt053', [`xml: ${(error as Error).message}`], { cause: error });
  }
  const statement = node(node(doc.Document)?.BkToCstmrStmt);
  if (!statement) throw new StatementFormatError('camt053', ['Document.BkToCstmrStmt: missing']);
  const stmts = list(statement.Stmt);
  if (stmts.length === 0) throw new StatementFormatError('camt053', ['BkToCstmrStmt.Stmt: missing']);
  const built: { where: string; record: Record<string, unknown> }[] = [];
  let skipped = 0;
  let firstAccount: string | undefined;
  stmts.forEach((stmt, s) => {
    const account = accountOf(stmt.Acct);
    firstAccount ??= account;
    const accountCurrency = text(stmt, 'Acct', 'Ccy');
    list(stmt.Ntry).forEach((entry, e) => {
      const where = `Stmt[${s}].Ntry[${e}]`;
      const reversal = text(entry, 'RvslInd') === 'true';
      if (text(entry, 'CdtDbtInd') !== 'CRDT' || statusOf(entry) !== 'BOOK' || reversal) {
        skipped += 1;
        return;
      }
      const entryRef = text(entry, 'AcctSvcrRef') ?? text(entry, 'NtryRef');
      const amt = node(entry.Amt);
      const entryAmount = text(entry, 'Amt');
      const currency = (amt?.['@Ccy'] as string | undefined) ?? accountCurrency;
      const details = list(entry.NtryDtls).flatMap((d) => list(d.TxDtls));
      const common = {
        account,
        bookingDate: dateOf(entry.BookgDt),
        valueDate: dateOf(entry.ValDt),
      };
      const entryInfo = texts(entry, 'AddtlNtryInf').join(' ');
      const rows = details.length > 0 ? details : [undefined];
      rows.forEach((tx, t) => {
        const refs = node(tx?.Refs);
        const ownRef = text(refs, 'AcctSvcrRef') ?? text(refs, 'TxId');
        const transactionId =
          ownRef ?? (rows.length > 1 ? (entryRef ? `${entryRef}/${t + 1}` : undefined) : entryRef);
        const txAmount = text(tx, 'AmtDtls', 'TxAmt', 'Amt') ?? text(tx, 'Amt');
        const rmt = node(tx?.RmtInf);
        const unstructured = texts(rmt, 'Ustrd').join(' ');
        const creditorRef = list(rmt?.Strd)
          .map((strd) => text(strd, 'CdtrRefInf', 'Ref'))
          .find((r) => r !== undefined);
        const endToEnd = text(refs, 'EndToEndId');
        const symbols = firstSymbols(
          symbolsInText(endToEnd === 'NOTPROVIDED' ? undefined : endToEnd),
          symbolsInReference(creditorRef),
          symbolsInText(unstructured),
          symbolsInText(texts(tx, 'AddtlTxInf').join(' ')),
          symbolsInText(entryInfo),
        );
        const message = [unstructured, ...texts(tx, 'AddtlTxInf')].filter(Boolean).join(' ') || entryInfo;
        const amount = rows.length > 1 ? txAmount : (txAmount ?? entryAmount);
        built.push({
          where: rows.length > 1 ? `${where}.TxDtls[${t}]` : where,
          record: {
            transactionId,
            ...common,
            amount: amount === undefined ? undefined : Number(amount),
            currency,
            ...symbols,
            counterparty: payerOf(tx),
            message: message ? message.slice(0, 1000) : undefined,
          },
        });
      });
    });
  });
  if (!firstAccount) throw new StatementFormatError('camt053', ['Stmt[0].Acct.Id: missing']);
  const transactions: BankTransaction[] = checkTransactions('camt053', built);
  return { format: 'camt053', account: firstAccount, transactions, skipped };
}
