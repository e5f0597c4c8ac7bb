/**
 * The `checkpoints` table. At 80 columns nothing a reader compares is cut: each connection's name
 * on a line of its own, under it its collections whole with the watermark as a compact ISO time
 * (seconds, UTC), the lag and the age of the last poll; a last error on the lines under its row,
 * wrapped. `--wide` is one row per collection, every value whole however wide.
 */
import { formatTable, TERMINAL_COLUMNS, truncateEnd, truncateMiddle } from './format-table.js';
import { wrapText } from './wrap-text.js';

export interface CheckpointRow {
  connection: string;
  collection: string;
  watermark?: string;
  lagMs?: number;
  lastPollAt?: string;
  lastError?: string;
  lastErrorAt?: string;
}

/** `42 s`, `12 min`, `5 h`, `3 d`. */
export function formatLag(ms: number | undefined): string {
  if (ms === undefined) return '-';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/** `2025-11-30T12:34:59Z`: an ISO time to the second (a watermark's milliseconds say little here). */
export function compactTime(iso: string | undefined): string {
  if (!iso) return '-';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function ageOf(iso: string | undefined, now: Date): string {
  if (!iso) return '-';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${formatLag(now.getTime() - ms)} ago`;
}

/** Every value whole, one row per collection (the table before 80 columns were a rule). */
function wideTable(rows: readonly CheckpointRow[]): string {
  return formatTable(
    ['CONNECTION', 'COLLECTION', 'WATERMARK', 'LAG', 'LAST POLL', 'LAST ERROR'],
    rows.map((r) => [
      r.connection,
      r.collection,
      r.watermark ?? '-',
      formatLag(r.lagMs),
      r.lastPollAt ? compactTime(r.lastPollAt) : '-',
      r.lastError ? `${compactTime(r.lastErrorAt)} ${r.lastError}` : '-',
    ]),
    { maxWidth: Number.POSITIVE_INFINITY },
  );
}

/** The last error under its row: wrapped under its text, a word wider than the line cut at its end. */
function errorLines(row: CheckpointRow): string[] {
  if (!row.lastError) return [];
  const text = `    last error  ${row.lastErrorAt ? `${compactTime(row.lastErrorAt)} ` : ''}${row.lastError}`;
  return wrapText(text)
    .split('\n')
    .map((line) => truncateEnd(line, TERMINAL_COLUMNS));
}

/** The table `checkpoints` prints: 80 columns unless `wide`. Rows are sorted by connection. */
export function formatCheckpoints(
  rows: readonly CheckpointRow[],
  options: { wide: boolean; now: Date },
): string {
  if (rows.length === 0) return 'no checkpoints yet (the first poll writes them)\n';
  if (options.wide) return wideTable(rows);
  const [header, ...lines] = formatTable(
    ['CONNECTION / COLLECTION', 'WATERMARK', 'LAG', 'LAST POLL'],
    rows.map((r) => [
      `  ${r.collection}`,
      compactTime(r.watermark),
      formatLag(r.lagMs),
      ageOf(r.lastPollAt, options.now),
    ]),
    { keepWhole: [0, 1, 2, 3] },
  )
    .trimEnd()
    .split('\n');
  const out = [header as string];
  rows.forEach((row, i) => {
    if (row.connection !== rows[i - 1]?.connection)
      out.push(truncateMiddle(row.connection, TERMINAL_COLUMNS));
    out.push(lines[i] as string, ...errorLines(row));
  });
  return `${out.join('\n')}\n`;
}
