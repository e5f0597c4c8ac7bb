import { describe, expect, it } from 'vitest';
import { createView, fitLine, outcomeNote, progressBar } from '#functions/local/live-view.js';

describe('live view helpers', () => {
  it('fitLine counts visible characters only and marks a cut', () => {
    expect(fitLine('\u001b[32mhello world\u001b[39m', 5)).toBe('\u001b[32mhell…\u001b[0m');
    expect(fitLine('abcde', 5)).toBe('abcde');
    expect(fitLine('abcdef', 5)).toBe('abcd…\u001b[0m');
  });

  it('progressBar shows the ratio and the counts', () => {
    expect(progressBar(5, 10, 10)).toBe('[#####.....]  50% 5/10');
    expect(progressBar(0, 0, 4)).toBe('[####] 100% 0/0');
  });

  it('outcomeNote names the S3 key, the target document and the e-invoice status', () => {
    expect(outcomeNote('IssuedInvoice.IsdocArchived', { archive: { key: 'isdoc/a/b.isdoc' } })).toBe(
      's3 isdoc/a/b.isdoc',
    );
    expect(
      outcomeNote('ReceivedOrder.Transferred', {
        target: { recordType: 'IssueSlip', documentNumber: 'DL1' },
      }),
    ).toBe('→ IssueSlip DL1');
    expect(
      outcomeNote('IssuedInvoice.EInvoiceStatusChanged', {
        status: 'Delivered',
        responseCode: 'AP',
        final: true,
      }),
    ).toBe('e-invoice Delivered (AP) final');
    expect(
      outcomeNote('IssuedInvoice.EInvoiceStatusChanged', {
        status: 'Rejected',
        responseCode: null,
        mls: { code: 'RE', reasons: [{ code: 'BV', ruleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'] }] },
        final: true,
      }),
    ).toBe('e-invoice Rejected (MLS RE: BV BR-CO-10 PEPPOL-EN16931-R120) final');
  });
});

describe('views', () => {
  it('without a TTY writes one line per event; with --json one JSON object per line', () => {
    let plain = '';
    const view = createView(
      {
        write: (t) => {
          plain += t;
        },
        isTTY: false,
      },
      { json: false },
    );
    view.update({
      kind: 'event',
      detailType: 'ReceivedOrder.Created',
      id: 'id-1',
      documentNumber: 'OP1',
      at: new Date(),
    });
    view.close();
    expect(plain).toMatch(/event ReceivedOrder\.Created OP1 id-1\n$/);

    const lines: string[] = [];
    const json = createView({ write: (t) => void lines.push(t), isTTY: true }, { json: true });
    json.update({ kind: 'poll', at: new Date(0), durationMs: 12, events: 3 });
    json.close();
    expect(JSON.parse(lines[0] as string)).toMatchObject({ kind: 'poll', durationMs: 12, events: 3 });
  });

  it('the live view redraws in place and restores the cursor on close', () => {
    let out = '';
    const view = createView(
      {
        write: (t) => {
          out += t;
        },
        isTTY: true,
        columns: 80,
      },
      { json: false },
    );
    view.update({ kind: 'backfill', done: 1, total: 4 });
    view.close();
    expect(out).toContain('\u001b[?25l');
    expect(out).toContain('first backfill');
    expect(out).toContain('25% 1/4');
    expect(out.endsWith('\u001b[?25h')).toBe(true);
    for (const line of out.split('\n')) {
      const visible = line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g'), '');
      expect(visible.length).toBeLessThanOrEqual(80);
    }
  });
});
