import { describe, expect, it } from 'vitest';
import type { BankTransaction } from '#functions/core/bank/bank-transaction.js';
import { matchPayment, type OpenInvoice, settle } from './match-payment.js';

const tx = (amount: number, variableSymbol?: string, currency = 'CZK'): BankTransaction => ({
  transactionId: 'T1',
  account: 'CZ6508000000192000145399',
  amount,
  currency,
  bookingDate: '2026-11-20',
  ...(variableSymbol ? { variableSymbol } : {}),
});
const invoice = (id: string, vs: string, rest: number, extra: Partial<OpenInvoice> = {}): OpenInvoice => ({
  recordType: 'IssuedInvoice',
  id,
  documentNumber: `FV${vs}`,
  variableSymbol: vs,
  currency: 'CZK',
  restToPay: rest,
  ...extra,
});
const cz = { advancePartially: false };

describe('matchPayment', () => {
  const open = [
    invoice('a', '42', 1210),
    invoice('b', '43', 100.1),
    invoice('c', '44', 50, { currency: 'EUR' }),
  ];

  it('equal → fully, less → partially, more → fully with the surplus (to the cent)', () => {
    expect(matchPayment(tx(1210, '42'), open, cz)).toMatchObject({
      kind: 'liquidate',
      mode: 'fully',
      liquidated: 1210,
      overpayment: 0,
    });
    expect(matchPayment(tx(100.09, '43'), open, cz)).toMatchObject({ mode: 'partially', liquidated: 100.09 });
    expect(matchPayment(tx(100.11, '43'), open, cz)).toMatchObject({
      mode: 'fully',
      liquidated: 100.1,
      overpayment: 0.01,
    });
  });

  it('never guesses: no symbol, no invoice, another currency, two invoices', () => {
    expect(matchPayment(tx(1210), open, cz)).toMatchObject({
      kind: 'unmatched',
      reason: 'noMatch',
      candidates: [],
    });
    expect(matchPayment(tx(1210, '99'), open, cz)).toMatchObject({ reason: 'noMatch' });
    expect(matchPayment(tx(50, '44'), open, cz)).toMatchObject({
      reason: 'currency',
      candidates: [{ id: 'c' }],
    });
    const twins = [...open, invoice('d', '42', 1210, { recordType: 'IssuedAdvanceInvoice' })];
    expect(matchPayment(tx(1210, '42'), twins, cz)).toMatchObject({
      reason: 'ambiguous',
      candidates: [{ id: 'a' }, { id: 'd', recordType: 'IssuedAdvanceInvoice' }],
    });
  });

  it('an advance invoice is liquidated partially only where the service can (sk)', () => {
    const advance = invoice('e', '45', 500, { recordType: 'IssuedAdvanceInvoice' });
    expect(settle(tx(200, '45'), advance, cz)).toMatchObject({
      kind: 'unmatched',
      reason: 'partialAdvance',
      amount: 200,
    });
    expect(settle(tx(200, '45'), advance, { advancePartially: true })).toMatchObject({ mode: 'partially' });
    expect(settle(tx(200, '45'), invoice('f', '46', 0), cz)).toMatchObject({
      reason: 'overpaid',
      amount: 200,
    });
  });
});
