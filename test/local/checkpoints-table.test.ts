/**
 * `checkpoints` at 80 columns cuts nothing a reader compares: connection names, collection names
 * (the payment detector's `…/Unpaid` ones too) and timestamps stay whole, a last error wraps onto
 * the lines under its row; `--wide` keeps one row per collection with every value whole.
 */
import { describe, expect, it } from 'vitest';
import { type CheckpointRow, formatCheckpoints } from '#functions/local/checkpoints-table.js';

const NOW = new Date('2026-11-26T10:00:00Z');
const LONG = 'acme-holding-international-services-and-trading-of-central-europe';

const rows: CheckpointRow[] = [
  ...['BusinessPartners', 'IssuedAdvanceInvoices', 'IssuedAdvanceInvoices/Unpaid'].map((collection) => ({
    connection: LONG,
    collection,
    watermark: '2025-11-09T13:25:59.341Z',
    lagMs: 3_700_000,
    lastPollAt: '2026-11-26T09:59:48.120Z',
  })),
  {
    connection: LONG,
    collection: 'ReceivedOrders',
    lagMs: 250_000_000,
    lastPollAt: '2026-11-26T09:40:00.000Z',
    lastError: `ConnectionError: GET https://api.example.com/v1/ReceivedOrders answered 503 ${'Service Unavailable, try again later; '.repeat(4)}`,
    lastErrorAt: '2026-11-26T09:40:01.999Z',
  },
  { connection: 'sandbox', collection: 'IssuedTaxDocuments' },
];

describe('checkpoints table', () => {
  it('fits 80 columns with names and timestamps whole', () => {
    const text = formatCheckpoints(rows, { wide: false, now: NOW });
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^CONNECTION \/ COLLECTION\s+WATERMARK\s+LAG\s+LAST POLL$/);
    expect(lines[1]).toBe(LONG);
    expect(lines[2]).toMatch(/^ {2}BusinessPartners\s+2025-11-09T13:25:59Z {2}62 min {2}12 s ago$/);
    expect(lines[4]).toMatch(/^ {2}IssuedAdvanceInvoices\/Unpaid {2}2025-11-09T13:25:59Z/);
    expect(lines[5]).toMatch(/^ {2}ReceivedOrders\s+-\s+3 d\s+20 min ago$/);
    // The error under its row, wrapped under its text, nothing of it lost but the spaces.
    const error = lines.slice(6, -2);
    expect(error[0]).toMatch(/^ {4}last error {2}2026-11-26T09:40:01Z ConnectionError: GET/);
    expect(error.length).toBeGreaterThan(1);
    for (const more of error.slice(1)) expect(more).toMatch(/^ {16}\S/);
    expect(error.map((l) => l.trim()).join(' ')).toBe(
      `last error  2026-11-26T09:40:01Z ${rows[3]?.lastError?.trim()}`,
    );
    expect(lines.at(-2)).toBe('sandbox');
    expect(lines.at(-1)).toMatch(/^ {2}IssuedTaxDocuments\s+-\s+-\s+-$/);
    expect(text).not.toContain('…');
  });

  it('--wide: one row per collection, every value whole', () => {
    const lines = formatCheckpoints(rows, { wide: true, now: NOW }).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CONNECTION\s+COLLECTION\s+WATERMARK\s+LAG\s+LAST POLL\s+LAST ERROR$/);
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${LONG}\\s+BusinessPartners\\s+2025-11-09T13:25:59.341Z\\s+62 min\\s+2026-11-26T09:59:48Z\\s+-$`,
      ),
    );
    expect(lines[4]).toContain(`2026-11-26T09:40:01Z ${rows[3]?.lastError}`.trimEnd());
  });

  it('says so when there is none', () => {
    expect(formatCheckpoints([], { wide: false, now: NOW })).toBe(
      'no checkpoints yet (the first poll writes them)\n',
    );
  });
});
