/**
 * Payment symbols in free text, as Czech and Slovak banks write them into ISO 20022 statements.
 * The Czech Banking Association's convention puts them into `EndToEndId` or the remittance text as
 * `/VS/1234567890/SS/12/KS/0308`; banks and payers also write `VS:1234`, `VS 1234`, `VS1234`. A
 * creditor reference (`RmtInf/Strd/CdtrRefInf/Ref`) of digits alone is the variable symbol.
 */
import { normaliseSymbol } from './bank-transaction.js';

export interface PaymentSymbols {
  variableSymbol?: string;
  constantSymbol?: string;
  specificSymbol?: string;
}

const pattern = /(?:^|[^A-Z0-9])(VS|SS|KS)(?:\s*[:/.=-]\s*|\s+|(?=\d))(\d{1,10})(?!\d)/gi;

const fieldOf = {
  VS: 'variableSymbol',
  SS: 'specificSymbol',
  KS: 'constantSymbol',
} as const;

/** The symbols written in `text` (the first of each kind). */
export function symbolsInText(text: string | undefined): PaymentSymbols {
  const out: PaymentSymbols = {};
  if (!text) return out;
  for (const match of text.matchAll(pattern)) {
    const kind = (match[1] ?? '').toUpperCase() as keyof typeof fieldOf;
    const field = fieldOf[kind];
    const value = normaliseSymbol(match[2]);
    if (value && out[field] === undefined) out[field] = value;
  }
  return out;
}

/** A creditor reference: digits alone are the variable symbol, else the symbols written in it. */
export function symbolsInReference(reference: string | undefined): PaymentSymbols {
  if (!reference) return {};
  const trimmed = reference.trim();
  if (/^\d{1,10}$/.test(trimmed)) {
    const vs = normaliseSymbol(trimmed);
    return vs ? { variableSymbol: vs } : {};
  }
  return symbolsInText(trimmed);
}

/** The symbols of several sources, the first source that has a kind winning it. */
export function firstSymbols(...sources: PaymentSymbols[]): PaymentSymbols {
  const out: PaymentSymbols = {};
  for (const s of sources) {
    out.variableSymbol ??= s.variableSymbol;
    out.constantSymbol ??= s.constantSymbol;
    out.specificSymbol ??= s.specificSymbol;
  }
  for (const k of Object.keys(out) as (keyof PaymentSymbols)[]) if (out[k] === undefined) delete out[k];
  return out;
}
