/**
 * The payments proof, shortened: `run` (a child process, its own sandbox, every action,
 * POLLER_PAYMENTS=true) while the sandbox's generator pays invoices at 10 actions a second for 30 s —
 * in full, in part, over and under the rest, after the due date — and extends payment terms. Every
 * Paid, PartiallyPaid and Overdue event must match the sandbox's ground truth: 0 missed, 0 wrong.
 * The 120 s run by hand is `npm run proof:payments` (docs/payments.md).
 */
import { expect, it } from 'vitest';
import { runPaymentsProof } from '#bench/payments-run.js';

it('a run publishes every payment the sandbox made and every due date passed, each as the ground truth says', async () => {
  const result = await runPaymentsProof({ spanMs: 30_000, ratePerSecond: 10, intervalMs: 1000 });
  console.info(JSON.stringify(result));
  expect(result.problems).toEqual([]);
  expect({ missed: result.missed, wrong: result.wrong }).toEqual({ missed: 0, wrong: 0 });
  // Every kind of liquidation happened; each kind of event was published for invoices, and payment
  // and Overdue events for advance invoices (fewer of them are open: a partial payment of one is
  // not certain in a short run).
  const { liquidations: l } = result;
  expect(Math.min(l.full, l.partial, l.over, l.under, l.afterDueDate)).toBeGreaterThan(0);
  const count = (type: string) => result.events[type] ?? 0;
  for (const change of ['Paid', 'PartiallyPaid', 'Overdue'])
    expect(count(`IssuedInvoice.${change}`), change).toBeGreaterThan(0);
  expect(count('IssuedAdvanceInvoice.Paid') + count('IssuedAdvanceInvoice.PartiallyPaid')).toBeGreaterThan(0);
  expect(count('IssuedAdvanceInvoice.Overdue')).toBeGreaterThan(0);
  // Overdue both for what was overdue at the baseline and for terms extended during the run.
  expect(result.dueDatePassesDuringRun).toBeGreaterThan(0);
  expect(result.overdueRequired).toBeGreaterThan(result.dueDatePassesDuringRun);
  expect(result.exitCode).toBe(130);
}, 240_000);
