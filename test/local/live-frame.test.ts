/** The live view's frame fits the terminal: never more rows than the screen, never a wrapped line. */
import { stripVTControlCharacters } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyUpdate,
  emptyFrameState,
  type FrameState,
  renderFrame,
  visibleWidth,
} from '#functions/local/live-frame.js';

const AT = new Date('2026-11-23T12:00:00Z');

function busyState(types: number, outcomes: number, events: number, warnings: number): FrameState {
  const state = emptyFrameState();
  applyUpdate(state, {
    kind: 'started',
    service: 'http://127.0.0.1:43395',
    sandbox: true,
    dataDir: `/home/someone/${'very-long-directory-name/'.repeat(4)}.local`,
    collections: ['IssuedInvoices'],
    intervalMs: 5000,
    actions: ['transfer-documents', 'archive-isdoc', 'send-invoice'],
  });
  applyUpdate(state, { kind: 'backfill', done: 113, total: 340 });
  applyUpdate(state, { kind: 'poll', at: AT, durationMs: 84, events: 3, requests: 12 });
  for (let i = 0; i < types; i += 1) {
    applyUpdate(state, {
      kind: 'event',
      detailType: `IssuedAdvanceInvoice.SomethingLong${i}`,
      id: `t${i}`,
      at: AT,
    });
  }
  for (let i = 0; i < outcomes; i += 1) {
    applyUpdate(state, {
      kind: 'event',
      detailType: i % 3 === 0 ? 'IssuedInvoice.EInvoiceStatusChanged' : 'IssuedInvoice.IsdocArchived',
      id: `o${i}`,
      documentNumber: `FA2026${String(i).padStart(6, '0')}`,
      note: `s3 isdoc/sandbox/IssuedInvoice/2026/11/FA2026${String(i).padStart(6, '0')}_0123456789abcdef.isdoc`,
      at: AT,
    });
  }
  for (let i = 0; i < events; i += 1) {
    applyUpdate(state, {
      kind: 'event',
      detailType: 'ReceivedOrder.Updated',
      id: `0e7c6f3a-1b2c-4d5e-8f90-${String(i).padStart(12, '0')}`,
      documentNumber: `OP2026${String(i).padStart(6, '0')}`,
      at: AT,
    });
  }
  for (let i = 0; i < warnings; i += 1) {
    applyUpdate(state, {
      kind: 'warning',
      message: `poll of IssuedInvoices failed:\n${'x'.repeat(300)} ${i}`,
    });
  }
  return state;
}

function expectFits(lines: string[], columns: number, rows: number): void {
  expect(lines.length).toBeLessThanOrEqual(rows - 1);
  for (const line of lines) {
    expect(line).not.toMatch(/[\n\r]/);
    expect(visibleWidth(line)).toBeLessThanOrEqual(columns - 1);
  }
}

describe('live view frame', () => {
  it('fits 80×24 when busy, with the title first and the newest entries and summaries shown', () => {
    const lines = renderFrame(busyState(30, 60, 60, 10), { columns: 80, rows: 24 }, AT);
    expectFits(lines, 80, 24);
    expect(lines[0]).toContain('accounting-events');
    const text = lines.join('\n');
    expect(text).toContain('polls 1');
    expect(text).toContain('first backfill');
    expect(text).toMatch(/… \d+ more types/);
    expect(text).toMatch(/… \d+ earlier/);
    // The newest event is the one shown last in its section.
    expect(text).toContain('OP2026000059');
    expect(text).toContain('warning: poll of IssuedInvoices failed:');
  });

  it('shows the console URL whole, its token uncut, on 80 columns and wider', () => {
    const url = `http://127.0.0.1:40649/?token=${'T'.repeat(43)}`;
    for (const columns of [80, 120]) {
      const state = busyState(30, 60, 60, 10);
      applyUpdate(state, { kind: 'console', url });
      const lines = renderFrame(state, { columns, rows: 24 }, AT);
      expectFits(lines, columns, 24);
      const line = lines
        .map((l) => stripVTControlCharacters(l))
        .find((l) => l.includes('http://127.0.0.1:40649/'));
      expect(line?.trim()).toBe(columns === 80 ? url : `console ${url}`);
    }
  });

  it('the first backfill: a bar while running, done only when done, interrupted when stopped before', () => {
    const frame = (update: Partial<{ done: number; state: 'done' | 'interrupted' }>) => {
      const state = emptyFrameState();
      applyUpdate(state, { kind: 'backfill', done: 166, total: 340, ...update });
      return renderFrame(state, { columns: 80, rows: 24 }, AT).join('\n');
    };
    expect(frame({})).toContain(' 49% 166/340');
    expect(frame({ state: 'interrupted' })).toContain(
      'first backfill interrupted at 166/340: the next run goes on',
    );
    expect(frame({ state: 'interrupted' })).not.toContain('done');
    expect(frame({ done: 340, state: 'done' })).toContain('first backfill done: 340 records');
    // All counted records published, but the poll has not said it is done: still the bar.
    expect(frame({ done: 340 })).toContain('100% 340/340');
  });

  it('fits 80×24 when empty', () => {
    const lines = renderFrame(emptyFrameState(), { columns: 80, rows: 24 }, AT);
    expectFits(lines, 80, 24);
    expect(lines.join('\n')).toContain('(none yet)');
  });

  it('keeps a space between a cut counter name and its count', () => {
    const state = emptyFrameState();
    for (let i = 0; i < 392; i += 1)
      applyUpdate(state, {
        kind: 'event',
        detailType: 'IssuedInvoice.EInvoiceStatusChanged',
        id: `s${i}`,
        at: AT,
      });
    applyUpdate(state, { kind: 'event', detailType: 'IssuedInvoice.Created', id: 'c', at: AT });
    const row = renderFrame(state, { columns: 80, rows: 24 }, AT).find((l) => l.includes('392')) ?? '';
    const plain = stripVTControlCharacters(row);
    expect(plain).toMatch(/^IssuedInvoice\.EInvoiceStatusCha\S*… +392 {2}IssuedInvoice\.Created +1$/);
    expect(visibleWidth(row)).toBeLessThanOrEqual(79);
  });

  it('fits any terminal of at least 80×24, whatever it has seen', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 80, max: 250 }),
        fc.integer({ min: 24, max: 80 }),
        fc.nat(40),
        fc.nat(60),
        fc.nat(60),
        fc.nat(8),
        (columns, rows, types, outcomes, events, warnings) => {
          expectFits(
            renderFrame(busyState(types, outcomes, events, warnings), { columns, rows }, AT),
            columns,
            rows,
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the document number, the target and the status readable at 80 columns', () => {
    const state = emptyFrameState();
    applyUpdate(state, {
      kind: 'started',
      service: 'http://127.0.0.1:45001',
      sandbox: true,
      dataDir: `/home/someone/${'very-long-directory-name/'.repeat(4)}companies`,
      collections: ['IssuedInvoices'],
      intervalMs: 500,
      actions: ['transfer-documents', 'archive-isdoc', 'send-invoice'],
    });
    const outcome = (detailType: string, documentNumber: string, note: string) =>
      applyUpdate(state, { kind: 'event', detailType, id: documentNumber, documentNumber, note, at: AT });
    const key =
      'isdoc/sandbox-12/IssuedInvoice/2026/11/FA2026000007_435a2b5b-e919-4ad1-9b6a-ddb49ab0fcda.isdoc';
    outcome('IssuedInvoice.IsdocArchived', 'FA2026000007', `s3 ${key}`);
    outcome('IssuedInvoice.EInvoiceStatusChanged', 'FA2025000001', 'e-invoice Delivered (AP) final');
    outcome('ReceivedOrder.Transferred', 'OP2026000005', '→ IssueSlip DL2026000005');
    const lines = renderFrame(state, { columns: 80, rows: 24 }, AT).map((l) => stripVTControlCharacters(l));
    expectFits(lines, 80, 24);
    const line = (what: string) => lines.find((l) => l.includes(what)) ?? '';
    const archived = line('FA2026000007');
    expect(archived).toMatch(/^IssuedInvoice\.IsdocArchived +FA2026000007 /);
    expect(archived).toMatch(/ s3 isdoc\/sandbox-12\/\S*…\S*fcda\.isdoc$/);
    expect(line('FA2025000001')).toMatch(/FA2025000001 +e-invoice Delivered \(AP\) final$/);
    expect(line('OP2026000005')).toMatch(/OP2026000005 +→ IssueSlip DL2026000005$/);
    // The head: where, how often, and the data directory's end; the actions on their heading.
    expect(lines[1]).toMatch(
      /^sandbox http:\/\/127\.0\.0\.1:45001 · every 500 ms · data \/home\/\S*…\S*\/companies$/,
    );
    expect(line('actions (')).toBe('actions (transfer-documents, archive-isdoc, send-invoice)');
  });

  it('cuts a long detail-type in its middle, keeping what changed', () => {
    const state = emptyFrameState();
    applyUpdate(state, {
      kind: 'event',
      detailType: 'IssuedInvoice.EInvoiceStatusChanged',
      id: 'x',
      documentNumber: 'ZF2026000001',
      note: 'e-invoice Sent',
      at: AT,
    });
    const lines = renderFrame(state, { columns: 80, rows: 24 }, AT).map((l) => stripVTControlCharacters(l));
    const row = lines.find((l) => l.includes('ZF2026000001')) ?? '';
    expect(row).toMatch(/^IssuedInvoice\.EInv…atusChanged +ZF2026000001 +e-invoice Sent$/);
    expect(row.indexOf('ZF2026000001')).toBe(31);
  });

  it('shows more of each list on a taller terminal', () => {
    const state = busyState(30, 60, 60, 1);
    const small = renderFrame(state, { columns: 80, rows: 24 }, AT);
    const tall = renderFrame(state, { columns: 120, rows: 50 }, AT);
    expect(tall.length).toBeGreaterThan(small.length);
  });
});

describe('live frame with many connections', () => {
  const manyConnections = (count: number, unhealthy: readonly number[]) => {
    const state = busyState(12, 8, 40, 3);
    for (let i = 1; i <= count; i += 1) {
      const connection = `sandbox-${i}`;
      applyUpdate(state, {
        kind: 'poll',
        at: new Date(AT.getTime() - i * 1000),
        durationMs: 40,
        events: 2,
        connection,
        lagMs: 1500,
      });
      applyUpdate(state, {
        kind: 'event',
        detailType: 'IssuedInvoice.Created',
        id: `e${i}`,
        at: AT,
        connection,
      });
    }
    for (const i of unhealthy)
      applyUpdate(state, {
        kind: 'connection',
        connection: `sandbox-${i}`,
        state: 'unhealthy',
        reason: 'authentication',
      });
    applyUpdate(state, { kind: 'connection', connection: 'sandbox-7', state: 'paused' });
    return state;
  };

  it('fits 80×24 with a thousand connections: the unhealthy first, the most recent next, then +N more', () => {
    const lines = renderFrame(manyConnections(1000, [500, 900]), { columns: 80, rows: 24 }, AT);
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(79);
    const text = lines.join('\n');
    expect(text).toContain('connections (1000)');
    const rows = lines.filter((l) => /sandbox-\d+ /.test(l));
    expect(rows[0]).toMatch(/sandbox-500 +unhealthy .* · authentication/);
    expect(rows[1]).toMatch(/sandbox-900 +unhealthy/);
    expect(rows[2]).toMatch(/sandbox-1 +healthy +1 ev · polled 1\.0 s ago · lag 1\.5 s/);
    expect(text).toMatch(/\+\d+ more: \d+ healthy, 1 paused/);
    expect(text).toContain('events');
  });

  it('shows no connections section for one connection', () => {
    const lines = renderFrame(busyState(3, 2, 5, 0), { columns: 80, rows: 24 }, AT);
    expect(lines.join('\n')).not.toContain('connections (');
  });
});
