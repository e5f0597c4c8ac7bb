/**
 * Help text fitted to a terminal: a line wider than the limit is wrapped at spaces, its
 * continuation lines indented under where its text starts (the description column of a
 * `  --flag <v>   description` line, or the line's own indent).
 */
import { TERMINAL_COLUMNS } from './format-table.js';

/** Where the wrapped text of `line` continues: after a two-space gap past the first word, or at the indent. */
function hangingIndent(line: string): number {
  const indent = line.length - line.trimStart().length;
  const column = /^(\s*\S.*?\s{2,})\S/.exec(line);
  const at = column?.[1]?.length ?? indent;
  // A column too far right leaves no room for text: fall back to the indent plus four.
  return at > 48 ? indent + 4 : at;
}

function wrapLine(line: string, width: number, fixedIndent?: number): string[] {
  if (line.length <= width) return [line];
  const indent = Math.min(fixedIndent ?? hangingIndent(line), Math.max(0, width - 8));
  const out: string[] = [];
  let rest = line;
  let prefix = '';
  while (prefix.length + rest.length > width) {
    const room = width - prefix.length;
    // The last space within the room that is past the indent (so the flag column stays whole).
    let cut = rest.lastIndexOf(' ', room);
    if (out.length === 0 && cut < indent) cut = rest.indexOf(' ', indent);
    if (cut <= 0 && prefix !== '') {
      // A word wider than the room under the indent (a URL with its token): a line of its own,
      // from the first column when it fits there.
      const end = rest.indexOf(' ');
      const word = end < 0 ? rest : rest.slice(0, end);
      out.push(word.length <= width ? word : `${prefix}${word}`);
      if (end < 0) return out;
      rest = rest.slice(end + 1).trimStart();
      continue;
    }
    if (cut <= 0) break;
    out.push(`${prefix}${rest.slice(0, cut)}`.trimEnd());
    rest = rest.slice(cut + 1).trimStart();
    prefix = ' '.repeat(indent);
  }
  out.push(`${prefix}${rest}`);
  return out;
}

/**
 * `text` with every line wider than `width` wrapped; continuation lines start under the text
 * (`indent` columns when given). A word wider than the room starts at the first column instead,
 * and one wider than `width` stays whole.
 */
export function wrapText(text: string, width: number = TERMINAL_COLUMNS, indent?: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, indent))
    .join('\n');
}
