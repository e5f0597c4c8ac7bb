/**
 * The live view measures display columns, not characters: wide characters (CJK, emoji) and
 * combining marks in a document number, a partner's name or a note never push a line past the
 * terminal, a grapheme cluster is never split, and the document number stays whole.
 */
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { displayWidth, fitLine, fitMiddle, padDisplay } from '#functions/local/display-width.js';
import { applyUpdate, emptyFrameState, renderFrame } from '#functions/local/live-frame.js';

const AT = new Date('2026-11-23T12:00:00Z');
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const clusters = (text: string) => [...graphemes.segment(text)].map((s) => s.segment);

// Wide (CJK, fullwidth digits, emoji with ZWJ and skin tone, a flag) and combining (e + U+0301).
const NUMBER_CJK = '発注２０２６００００６２';
const NUMBER_COMBINING = 'FA2026e\u0301e\u0301e\u0301\u0301091';
const PARTNER = '株式会社 山田商事 👩‍👩‍👧‍👦🇨🇿 Žlutoučký ku\u030Aň';

function wideState() {
  const state = emptyFrameState();
  applyUpdate(state, {
    kind: 'started',
    service: 'http://127.0.0.1:43395',
    sandbox: true,
    dataDir: `/home/利用者/${'データ/'.repeat(12)}.local`,
    collections: ['IssuedInvoices'],
    intervalMs: 5000,
    actions: ['transfer-documents', 'archive-isdoc', 'send-invoice'],
  });
  applyUpdate(state, { kind: 'poll', at: AT, durationMs: 84, events: 3, requests: 12 });
  const outcome = (detailType: string, documentNumber: string, note: string) =>
    applyUpdate(state, { kind: 'event', detailType, id: documentNumber, documentNumber, note, at: AT });
  outcome('ReceivedOrder.Transferred', NUMBER_CJK, `→ IssueSlip 出庫２０２６０００４７ ${PARTNER}`);
  outcome(
    'IssuedInvoice.IsdocArchived',
    NUMBER_COMBINING,
    `s3 isdoc/sandbox/IssuedInvoice/2026/11/${'請求書'.repeat(8)}_0123.isdoc`,
  );
  outcome('EshopOrder.Imported', '🧾🧾🧾🧾🧾🧾', `shopify #4380280 ${PARTNER} → ReceivedOrder ${NUMBER_CJK}`);
  for (const number of [NUMBER_CJK, NUMBER_COMBINING]) {
    applyUpdate(state, {
      kind: 'event',
      detailType: 'ReceivedOrder.Created',
      id: '0e2106c7-0000-4000-8000-000000000000',
      documentNumber: number,
      note: `${PARTNER} ${PARTNER}`,
      at: AT,
    });
  }
  applyUpdate(state, { kind: 'warning', message: `partner ${PARTNER.repeat(4)} has no e-mail` });
  return state;
}

describe('live view with wide and combining characters', () => {
  it('renders every line of an 80×24 frame in at most 79 display columns, document numbers whole', () => {
    const lines = renderFrame(wideState(), { columns: 80, rows: 24 }, AT);
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(79);
    const text = lines.join('\n');
    // Each number appears whole on the lines that show it: in the actions and in the events.
    expect(lines.filter((l) => l.includes(NUMBER_CJK))).toHaveLength(2);
    expect(lines.filter((l) => l.includes(NUMBER_COMBINING))).toHaveLength(2);
    expect(text).toContain('🧾🧾🧾🧾🧾🧾');
    // The wide lines were cut (the notes are longer than the room), not wrapped.
    expect(lines.some((l) => l.includes('…') && stringWidth(l) >= 70)).toBe(true);
  });

  it('the same frame at 40 columns still fits', () => {
    for (const line of renderFrame(wideState(), { columns: 40, rows: 24 }, AT))
      expect(stringWidth(line), line).toBeLessThanOrEqual(39);
  });
});

describe('display width', () => {
  it('counts columns, not characters', () => {
    expect(displayWidth(NUMBER_CJK)).toBe(2 * [...NUMBER_CJK].length);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👩‍👩‍👧‍👦')).toBe(2);
    expect(displayWidth('\u001b[1m発\u001b[22m')).toBe(2);
    expect(padDisplay('発注', 6)).toBe('発注  ');
  });

  it('fitLine cuts at a grapheme boundary and keeps the ANSI sequences before the cut', () => {
    expect(fitLine('発注発注発注', 6)).toBe('発注…\u001b[0m');
    expect(fitLine('発注発注発注', 12)).toBe('発注発注発注');
    expect(fitLine('ae\u0301e\u0301e\u0301e\u0301', 4)).toBe('ae\u0301e\u0301…\u001b[0m');
    expect(fitLine('\u001b[32m👩‍👩‍👧‍👦👩‍👩‍👧‍👦\u001b[39m', 3)).toBe('\u001b[32m👩‍👩‍👧‍👦…\u001b[0m');
  });

  it('fitMiddle keeps both ends and whole clusters', () => {
    const cut = fitMiddle(`isdoc/${'請求書'.repeat(10)}/FA2026000091.isdoc`, 50);
    expect(stringWidth(cut)).toBeLessThanOrEqual(50);
    expect(cut.startsWith('isdoc/')).toBe(true);
    expect(cut.endsWith('FA2026000091.isdoc')).toBe(true);
  });

  it('never exceeds the width nor splits a cluster, for any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 2, max: 90 }), (s, w) => {
        for (const fitted of [fitLine(s, w), fitMiddle(s, w)]) {
          expect(stringWidth(fitted)).toBeLessThanOrEqual(w);
          for (const part of fitted.replaceAll('\u001b[0m', '').split('…'))
            for (const cluster of clusters(part)) expect(s).toContain(cluster);
        }
      }),
    );
  });
});
