/** The payments proof's comparison finds every kind of miss and mistake it claims to. */
import { describe, expect, it } from 'vitest';
import { checkPaymentEvents, type PaymentTruth, type PublishedEvent } from '#bench/payment-check.js';

const DOC = {
  collection: 'IssuedInvoices',
  documentId: 'd1',
  documentNumber: 'FA2026000001',
  partnerId: 'p1',
  partnerName: 'Alfa s.r.o.',
  currencyId: 'c-eur',
  total: 100,
  dueDate: '2026-05-01T00:00:00',
};
const T0 = Date.parse('2026-06-01T10:00:00Z');

function truth(): PaymentTruth {
  return {
    payments: [
      {
        ...DOC,
        liquidationId: 'l1',
        amount: 40.1,
        kind: 'partial',
        afterDueDate: true,
        restBefore: 100,
        restAfter: 59.9,
        date: '2026-06-01T00:00:00',
        madeAtMs: T0 + 10_000,
      },
      {
        ...DOC,
        liquidationId: 'l2',
        amount: 59.9,
        kind: 'full',
        afterDueDate: true,
        restBefore: 59.9,
        restAfter: 0,
        date: '2026-06-01T00:00:00',
        madeAtMs: T0 + 20_000,
      },
    ],
    dueDatePasses: [
      { ...DOC, dueDate: DOC.dueDate, restToPay: 100, passedAtMs: T0 - 86_400_000, recordedAtMs: T0 },
    ],
  };
}

function event(change: 'Paid' | 'PartiallyPaid' | 'Overdue', extra: Record<string, unknown>): PublishedEvent {
  return {
    'detail-type': `IssuedInvoice.${change}`,
    detail: {
      recordType: 'IssuedInvoice',
      id: 'd1',
      change,
      documentNumber: DOC.documentNumber,
      partner: { id: 'p1', name: 'Alfa s.r.o.' },
      currencyId: 'c-eur',
      total: 100,
      dueDate: DOC.dueDate,
      observedAt: new Date(T0).toISOString(),
      ...extra,
    },
  };
}

const l1 = { id: 'l1', date: '2026-06-01T00:00:00', amount: 40.1 };
const l2 = { id: 'l2', date: '2026-06-01T00:00:00', amount: 59.9 };
function published(): PublishedEvent[] {
  return [
    event('Overdue', { paid: 0, restToPay: 100, liquidations: [], idempotencyKey: 'o', daysOverdue: 31 }),
    event('PartiallyPaid', {
      paid: 40.1,
      restToPay: 59.9,
      liquidations: [l1],
      amountPaid: 40.1,
      idempotencyKey: 'k1',
    }),
    event('Paid', {
      paid: 100,
      restToPay: 0,
      liquidations: [l1, l2],
      amountPaid: 59.9,
      idempotencyKey: 'k2',
    }),
  ];
}
const polls = [
  { atMs: T0 - 5000, durationMs: 100 },
  { atMs: T0, durationMs: 100 },
];

describe('checkPaymentEvents', () => {
  it('passes a run that reported everything right, duplicates counted by key', () => {
    const events = [...published(), published()[2] as PublishedEvent];
    const check = checkPaymentEvents(events, truth(), polls);
    expect(check).toMatchObject({
      missed: 0,
      wrong: 0,
      unique: 3,
      duplicates: 1,
      overdueRequired: 1,
      problems: [],
    });
    expect(check.liquidations).toEqual({ total: 2, full: 1, partial: 1, over: 0, under: 0, afterDueDate: 2 });
  });

  it('counts a liquidation no event reported as missed', () => {
    const check = checkPaymentEvents(published().slice(0, 2), truth(), polls);
    expect(check.missed).toBe(1);
    expect(check.problems).toEqual(['missed: full payment l2 of FA2026000001 (59.9)']);
  });

  it('counts an amount off by a cent, a wrong partner, a wrong rest and a wrong change as wrong', () => {
    const events = published();
    (events[2]?.detail as { liquidations: unknown[] }).liquidations = [l1, { ...l2, amount: 59.91 }];
    expect(checkPaymentEvents(events, truth(), polls).wrong).toBeGreaterThan(0);
    const partner = published();
    (partner[1]?.detail as { partner: unknown }).partner = { id: 'p2', name: 'Alfa s.r.o.' };
    expect(checkPaymentEvents(partner, truth(), polls).problems).toEqual([
      expect.stringContaining('partnerId p2, expected p1'),
    ]);
    const rest = published();
    (rest[1]?.detail as { restToPay: number }).restToPay = 60;
    expect(checkPaymentEvents(rest, truth(), polls).wrong).toBe(1);
    const change = published();
    (change[2] as { 'detail-type': string })['detail-type'] = 'IssuedInvoice.PartiallyPaid';
    (change[2]?.detail as { change: string }).change = 'PartiallyPaid';
    expect(checkPaymentEvents(change, truth(), polls).wrong).toBe(1);
  });

  it('wants an Overdue for a pass the poller saw, and none without a pass', () => {
    const noOverdue = published().slice(1);
    expect(checkPaymentEvents(noOverdue, truth(), polls).missed).toBe(1);
    // Paid before two whole polls began after the pass: the poller could not see it overdue.
    expect(checkPaymentEvents(noOverdue, truth(), []).missed).toBe(0);
    const unknown = published();
    (unknown[0]?.detail as { dueDate: string }).dueDate = '2026-05-02T00:00:00';
    const check = checkPaymentEvents(unknown, truth(), polls);
    expect(check.wrong).toBe(1);
    expect(check.missed).toBe(1);
    const days = published();
    (days[0]?.detail as { daysOverdue: number }).daysOverdue = 30;
    expect(checkPaymentEvents(days, truth(), polls).problems).toEqual([
      expect.stringContaining('daysOverdue 30, expected 31'),
    ]);
  });
});
