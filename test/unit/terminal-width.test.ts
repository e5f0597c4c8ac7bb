/** The CLI's tables and help fit an 80-column terminal, cutting or wrapping without losing the ends. */
import { describe, expect, it } from 'vitest';
import { eventsCommand } from '#functions/local/commands/events.js';
import { formatTable, TERMINAL_COLUMNS, truncateMiddle } from '#functions/local/format-table.js';
import { wrapText } from '#functions/local/wrap-text.js';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

describe('formatTable', () => {
  const key = `isdoc/acme/IssuedInvoice/2026/11/FA2026000123_${'0123456789abcdef'.repeat(4)}.isdoc`;
  const rows: [string, string, number][] = [
    [key, 'IssuedInvoice.ISDOCArchived', 12345],
    ['short', 'ReceivedOrder.Created', 7],
  ];

  it('keeps a table that fits as it is', () => {
    expect(formatTable(['A', 'B'], [['x', 1]])).toBe('A  B\nx  1\n');
  });

  it('cuts the widest text column in its middle until the lines fit, numbers whole', () => {
    const table = formatTable(['KEY', 'DETAIL-TYPE', 'BYTES'], rows);
    expect(widest(table)).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    const line = table.split('\n')[1] as string;
    expect(line.startsWith('isdoc/acme/')).toBe(true);
    expect(line).toContain('…');
    expect(line).toContain('cdef.isdoc');
    expect(line).toContain('IssuedInvoice.ISDOCArchived');
    expect(line.endsWith('12345')).toBe(true);
  });

  it('keeps every cell whole with an unlimited width', () => {
    const table = formatTable(['KEY', 'DETAIL-TYPE', 'BYTES'], rows, { maxWidth: Number.POSITIVE_INFINITY });
    expect(table).toContain(key);
  });

  it('cuts prose columns at their end', () => {
    const prose = 'word '.repeat(30).trim();
    const table = formatTable(['NAME', 'TEXT'], [['n', prose]], { cutAtEnd: [1] });
    const line = table.split('\n')[1] as string;
    expect(line.length).toBe(TERMINAL_COLUMNS);
    expect(line.endsWith('…')).toBe(true);
    expect(line.startsWith('n     word word')).toBe(true);
  });

  it('truncateMiddle keeps both ends', () => {
    expect(truncateMiddle('abcdefghij', 5)).toBe('ab…ij');
    expect(truncateMiddle('abcdefghij', 6)).toBe('abc…ij');
    expect(truncateMiddle('abc', 5)).toBe('abc');
  });
});

describe('wrapText', () => {
  it('wraps a flag line under its description column', () => {
    const line = `  --documents <n>   ${'Seeded documents in total over the eleven types. '.repeat(3).trim()}`;
    const wrapped = wrapText(line).split('\n');
    expect(wrapped.length).toBeGreaterThan(1);
    expect(wrapped.every((l) => l.length <= TERMINAL_COLUMNS)).toBe(true);
    expect(wrapped[0]?.startsWith('  --documents <n>   Seeded')).toBe(true);
    expect(wrapped.slice(1).every((l) => l.startsWith(' '.repeat(20)) && l[20] !== ' ')).toBe(true);
    expect(wrapped.join(' ').replace(/\s+/g, ' ')).toBe(line.replace(/\s+/g, ' '));
  });

  it('leaves short lines and a word longer than the room as they are', () => {
    expect(wrapText('short\n  line')).toBe('short\n  line');
    const long = 'x'.repeat(100);
    expect(wrapText(long)).toBe(long);
  });

  it('continues at a given indent; a word too wide for the room there starts at the first column', () => {
    const url = `http://127.0.0.1:38299/?token=${'T'.repeat(43)}`;
    expect(wrapText(`00:17:12.564 console: ${url}`, 80, 13)).toBe(`00:17:12.564 console:\n${url}`);
    const words = `00:17:12.564 started: ${'service '.repeat(12)}end`;
    const wrapped = wrapText(words, 80, 13).split('\n');
    expect(wrapped.length).toBeGreaterThan(1);
    for (const l of wrapped.slice(1)) expect(l).toMatch(/^ {13}\S/);
    expect(wrapped.every((l) => l.length <= 80)).toBe(true);
  });
});

describe('formatTable keepWhole', () => {
  it('never cuts the kept columns: the others give up the room', () => {
    const header = ['CONNECTION', 'COLLECTION', 'WATERMARK'];
    const row = [
      'a-connection-with-a-very-long-name-indeed',
      'IssuedAdvanceInvoices/Unpaid',
      '2025-11-09T13:25:59Z',
    ];
    const table = formatTable(header, [row], { keepWhole: [1, 2] });
    expect(widest(table)).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    const line = table.split('\n')[1] as string;
    expect(line).toContain('  IssuedAdvanceInvoices/Unpaid  2025-11-09T13:25:59Z');
    expect(line).toContain('…');
  });
});

describe('events', () => {
  it('lists the documents before the opt-in reference lists, within 80 columns', async () => {
    let out = '';
    const ctx = { stdout: { write: (s: string) => (out += s) }, cwd: process.cwd() } as never;
    await eventsCommand.run({ schema: false, json: false, positionals: [] } as never, ctx, []);
    expect(widest(out)).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    const types = out
      .split('\n')
      .slice(1)
      .map((l) => l.split(' ')[0] as string)
      .filter((t) => t.includes('.'));
    expect(types.indexOf('IssuedInvoice.Created')).toBeLessThan(types.indexOf('Bank.Created'));
    expect(types.indexOf('ReceivedOrder.Created')).toBeLessThan(types.indexOf('Bank.Created'));
    expect(out).toMatch(/\d+ detail-types \(the last \d+: opt-in reference lists\)/);
  });
});
