/**
 * Without a terminal, plain lines fit the width the environment hands down (`COLUMNS`): an event
 * in one line with its document number whole (a long type cut in its middle when the line needs
 * the room), what it says cut in its middle; other
 * lines wrapped under their text, the console's URL (with its token) whole on a line of its own.
 * Without `COLUMNS`, one line per update, whole.
 */
import { describe, expect, it } from 'vitest';
import { createView, fitLogLine, plainWidth, type RuntimeUpdate } from '#functions/local/live-view.js';

const AT = new Date('2026-11-23T12:00:00Z');
const TOKEN = 'QI9wAxLKFhY2Q-7eVaoOWQojDumVEekKYBNdnHVre9w';
const KEY =
  'isdoc/sandbox/IssuedAdvanceInvoice/2025/07/ZF2025000007_5361022b-7af9-43ec-a1a0-427df2f136ed.isdoc';

const updates: RuntimeUpdate[] = [
  {
    kind: 'started',
    service: 'http://127.0.0.1:43395',
    sandbox: true,
    dataDir: '/home/someone/projects/accounting-events/.local',
    collections: ['IssuedInvoices', 'ReceivedOrders'],
    intervalMs: 5000,
    actions: ['transfer-received-order', 'transfer-issue-slip', 'archive-isdoc', 'send-einvoice'],
  },
  { kind: 'console', url: `http://127.0.0.1:38299/?token=${TOKEN}` },
  {
    kind: 'event',
    detailType: 'BusinessPartner.Created',
    id: '01f7cd80-a0c2-4238-bdd5-ad97ff66088f',
    at: AT,
  },
  {
    kind: 'event',
    detailType: 'IssuedAdvanceInvoice.IsdocArchived',
    id: '5361022b-7af9-43ec-a1a0-427df2f136ed',
    documentNumber: 'ZF2025000007',
    note: `s3 ${KEY}`,
    at: AT,
  },
  {
    kind: 'event',
    detailType: 'ReceivedOrder.Transferred',
    id: '0360cc95-74b9-47e0-aace-266c2450f408',
    documentNumber: 'OP2025000001',
    note: '→ IssueSlip DL2026000003',
    at: AT,
  },
];

function printed(width: number | undefined): string[] {
  let text = '';
  const view = createView(
    {
      write: (t) => {
        text += t;
      },
      isTTY: false,
    },
    { json: false, plainWidth: width },
  );
  for (const update of updates) view.update(update);
  view.close();
  return text.trimEnd().split('\n');
}

describe('plain lines at a width', () => {
  it('reads the width from COLUMNS only when it is a usable number', () => {
    expect(plainWidth({ COLUMNS: '80' })).toBe(80);
    expect(plainWidth({})).toBeUndefined();
    expect(plainWidth({ COLUMNS: 'wide' })).toBeUndefined();
    expect(plainWidth({ COLUMNS: '12' })).toBeUndefined();
  });

  it('fits 80 columns: numbers, targets and the console URL whole, a long type cut as the live view cuts it', () => {
    const lines = printed(80);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const text = lines.join('\n');
    expect(lines).toContain(`http://127.0.0.1:38299/?token=${TOKEN}`);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} console:$/m);
    expect(text).toContain('/home/someone/projects/accounting-events/.local');
    expect(text).toMatch(/ BusinessPartner\.Created - 01f7cd80-a0c2-4238-bdd5-ad97ff66088f$/m);
    expect(text).toMatch(/ IssuedAdvanceInvoi…docArchived ZF2025000007 s3 isdoc\/sa\S*…\S*\.isdoc$/m);
    expect(text).toMatch(/ ReceivedOrder\.Transferred OP2025000001 → IssueSlip DL2026000003$/m);
    // Continuation lines of the start line sit under its text.
    expect(lines[1]).toMatch(/^ {13}\S/);
  });

  it('without a width: one line per update, every value whole', () => {
    const lines = printed(undefined);
    expect(lines).toHaveLength(updates.length);
    expect(lines.join('\n')).toContain(KEY);
    expect(lines.join('\n')).toContain(`console: http://127.0.0.1:38299/?token=${TOKEN}`);
  });

  it("a component's log line wraps, its JSON data broken into pieces with nothing lost", () => {
    const data = JSON.stringify({ action: 'transfer.issueSlipToIssuedInvoice', recordId: KEY, status: 422 });
    const line = `00:29:50.221 WARN  transfer rejected ${data}`;
    const fitted = fitLogLine(line, 80).split('\n');
    for (const l of fitted) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(fitted[0]).toBe('00:29:50.221 WARN  transfer rejected');
    expect(
      fitted
        .slice(1)
        .map((l) => l.slice(13))
        .join(''),
    ).toBe(data);
    expect(fitLogLine(line, undefined)).toBe(line);
  });
});
