/**
 * Terminal display width: what a line takes on screen, not how many UTF-16 units it has. A CJK
 * character or an emoji takes two columns, a combining mark none, and a grapheme cluster (a flag,
 * a family emoji, a letter with its accents) is cut whole or not at all. ANSI CSI sequences
 * (`ESC [ … letter`) take no column and are kept; control characters show as spaces.
 */
import stringWidth from 'string-width';

const ESC_CHAR = '\u001b';
const RESET = `${ESC_CHAR}[0m`;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Length of the ANSI CSI sequence starting at `i` (`ESC [ … letter`), or 0. */
function ansiLength(text: string, i: number): number {
  if (text[i] !== ESC_CHAR || text[i + 1] !== '[') return 0;
  let j = i + 2;
  while (j < text.length && !/[A-Za-z]/.test(text[j] as string)) j += 1;
  return j < text.length ? j - i + 1 : 0;
}

/** One piece of a line: an ANSI sequence (no columns) or one grapheme cluster with its columns. */
interface Piece {
  text: string;
  columns: number;
  ansi: boolean;
}

/** Control characters (a newline in a warning) would break the frame's line count: a space each. */
const flatten = (text: string) => Array.from(text, (ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch)).join('');

function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let plainFrom = 0;
  const plain = (to: number) => {
    if (to <= plainFrom) return;
    for (const { segment } of graphemes.segment(text.slice(plainFrom, to))) {
      const flat = flatten(segment);
      out.push({ text: flat, columns: stringWidth(flat), ansi: false });
    }
  };
  for (let i = 0; i < text.length; ) {
    const skip = ansiLength(text, i);
    if (skip === 0) {
      i += 1;
      continue;
    }
    plain(i);
    out.push({ text: text.slice(i, i + skip), columns: 0, ansi: true });
    i += skip;
    plainFrom = i;
  }
  plain(text.length);
  return out;
}

const sum = (list: readonly Piece[]) => list.reduce((n, p) => n + p.columns, 0);

/** Columns `text` takes on a terminal (ANSI sequences take none). */
export function displayWidth(text: string): number {
  return sum(pieces(text));
}

/** `text` padded with spaces to `columns` display columns (never cut). */
export function padDisplay(text: string, columns: number): string {
  return `${text}${' '.repeat(Math.max(0, columns - displayWidth(text)))}`;
}

/**
 * `text` cut to `width` display columns (ANSI sequences kept, not counted), with `…` and a reset
 * of the attributes when cut; a grapheme cluster is never split.
 */
export function fitLine(text: string, width: number): string {
  const all = pieces(text);
  if (sum(all) <= width) return all.map((p) => p.text).join('');
  let out = '';
  let used = 0;
  for (const piece of all) {
    // One column stays for the ellipsis.
    if (!piece.ansi && used + piece.columns > width - 1) break;
    out += piece.text;
    used += piece.columns;
  }
  return width <= 0 ? '' : `${out}…${RESET}`;
}

/** The graphemes from the start of `list` (or its end) that fit `columns`. */
function take(list: readonly Piece[], columns: number, fromEnd: boolean): string {
  const kept: string[] = [];
  let used = 0;
  for (let k = 0; k < list.length; k += 1) {
    const piece = list[fromEnd ? list.length - 1 - k : k] as Piece;
    if (used + piece.columns > columns) break;
    kept.push(piece.text);
    used += piece.columns;
  }
  return (fromEnd ? kept.reverse() : kept).join('');
}

/**
 * `text` (plain, no ANSI) cut in its middle to `width` display columns: the start and the end stay
 * (the bucket and folder of an S3 key, its document number and extension), `…` between them.
 */
export function fitMiddle(text: string, width: number): string {
  const all = pieces(text).filter((p) => !p.ansi);
  if (sum(all) <= width) return all.map((p) => p.text).join('');
  if (width <= 1) return '…'.slice(0, Math.max(0, width));
  // A little more of the start: where a key lives (its folder, its connection) says the most.
  const head = take(all, Math.ceil((width - 1) * 0.6), false);
  const tail = take(all, width - 1 - displayWidth(head), true);
  return `${head}…${tail}`;
}
