/**
 * A statement file → its credit transactions, whatever its format: camt.053 (XML), the Fio API's
 * JSON, or GPC/ABO (fixed-width text). The format is told by the content, not the file name; a
 * GPC file is windows-1250 unless it is valid UTF-8.
 */
import { type ParsedStatement, type StatementFormat, StatementFormatError } from './bank-transaction.js';
import { parseCamt053 } from './camt053.js';
import { parseFio } from './fio.js';
import { parseGpc } from './gpc.js';

/** Bytes → text: UTF-8 when they are valid UTF-8 (a BOM dropped), else windows-1250. */
export function decodeStatement(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1250').decode(bytes);
  }
}

/** The format of a statement's text. */
export function statementFormatOf(text: string): StatementFormat | undefined {
  const start = text.trimStart();
  if (start.startsWith('<')) return 'camt053';
  if (start.startsWith('{')) return 'fio';
  if (start.startsWith('074')) return 'gpc';
  return undefined;
}

export interface StatementOptions {
  /** The account's currency for GPC files that carry none. */
  defaultCurrency: string;
}

export function parseStatement(bytes: Uint8Array, options: StatementOptions): ParsedStatement {
  const text = decodeStatement(bytes);
  const format = statementFormatOf(text);
  if (format === 'camt053') return parseCamt053(text);
  if (format === 'gpc') return parseGpc(text, options);
  if (format === 'fio') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new StatementFormatError('fio', [`json: ${(error as Error).message}`], { cause: error });
    }
    return parseFio(json);
  }
  throw new StatementFormatError('unknown', [
    'content: expected a camt.053 XML document, a Fio JSON statement or a GPC file (074 header)',
  ]);
}
