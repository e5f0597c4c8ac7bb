/** The width the CLI's tables and help fit: a plain terminal. */
export const TERMINAL_COLUMNS = 80;

/** The separator between two columns. */
const GAP = '  ';

export interface TableOptions {
  /** The widest a line may be (`TERMINAL_COLUMNS` by default); `Infinity` keeps every cell whole. */
  readonly maxWidth?: number;
  /** Columns of prose, cut at their end rather than in their middle. */
  readonly cutAtEnd?: readonly number[];
  /** Columns never cut (names and timestamps people read whole); the others give up room first. */
  readonly keepWhole?: readonly number[];
}

/** `text` in `width` characters, its end replaced by `…`. */
export function truncateEnd(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, Math.max(0, width)) : `${text.slice(0, width - 1)}…`;
}

/** `text` in `width` characters, its middle replaced by `…` (ids and keys differ at both ends). */
export function truncateMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return text.slice(0, Math.max(0, width));
  const head = Math.ceil((width - 1) / 2);
  const tail = width - 1 - head;
  return `${text.slice(0, head)}…${tail > 0 ? text.slice(-tail) : ''}`;
}

/**
 * The column widths that fit `maxWidth`: the widest text column gives up a character at a time,
 * never below its header (or 8), numbers and `keepWhole` columns never; a table that cannot fit
 * keeps those minimums.
 */
function fitWidths(
  widths: number[],
  header: readonly string[],
  whole: boolean[],
  maxWidth: number,
): number[] {
  const fitted = [...widths];
  const floor = header.map((h, i) => (whole[i] ? (widths[i] ?? 0) : Math.max(h.length, 8)));
  const total = () => fitted.reduce((a, b) => a + b, 0) + GAP.length * (fitted.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (const [i, w] of fitted.entries())
      if (w > (floor[i] ?? 0) && (widest < 0 || w > (fitted[widest] ?? 0))) widest = i;
    if (widest < 0) break;
    fitted[widest] = (fitted[widest] ?? 0) - 1;
  }
  return fitted;
}

/**
 * A plain left-aligned text table (numbers right-aligned), one trailing newline, no line wider
 * than `maxWidth`: the widest text columns are cut in their middle (`…`) until it fits.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  options: TableOptions = {},
): string {
  const cells = [header, ...rows].map((row) => row.map((c) => String(c)));
  const natural = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  const whole = numeric.map((n, i) => n || (options.keepWhole?.includes(i) ?? false));
  const widths = fitWidths(natural, header, whole, options.maxWidth ?? TERMINAL_COLUMNS);
  return `${cells
    .map((row) =>
      row
        .map((c, i) => {
          const w = widths[i] ?? c.length;
          if (numeric[i]) return c.padStart(w);
          return (options.cutAtEnd?.includes(i) ? truncateEnd(c, w) : truncateMiddle(c, w)).padEnd(w);
        })
        .join(GAP)
        .trimEnd(),
    )
    .join('\n')}\n`;
}
