/**
 * The sandbox's ground truth of payments: every liquidation with the document as it was, and every
 * due date that passed with something to pay (once per document and due date), served by
 * `GET /_sandbox/payments`; the generator's weights from SANDBOX_ACTIVITY_WEIGHTS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '#functions/shared/clock.js';
import { ActivityGenerator } from '#sandbox/activity.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { parseSandboxArgs, SandboxCliError } from '#sandbox/main.js';
import type { DueDatePass, PaymentMade } from '#sandbox/payment-truth.js';

describe('payment ground truth', () => {
  // 2026-06-01 12:00 in Prague: seeded invoices (dated in 2025) are long past their due dates.
  const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({
      clock,
      seed: 5,
      variant: 'cz',
      sizes: {
        documents: 60,
        partners: 10,
        perCollection: { IssuedInvoices: 30, IssuedAdvanceInvoices: 10 },
      },
    });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  async function truth(): Promise<{ payments: PaymentMade[]; dueDatePasses: DueDatePass[] }> {
    const res = await fetch(`${sandbox.baseUrl}/_sandbox/payments`);
    expect(res.status).toBe(200);
    return (await res.json()) as { payments: PaymentMade[]; dueDatePasses: DueDatePass[] };
  }

  it('records each payment with the document, and each passed due date once, also after a move', async () => {
    const domain = sandbox.server.domain;
    const open = sandbox.state
      .collection('IssuedInvoices')
      .entries.map((e) => e.id)
      .filter((id) => (domain.liquidations.restOf('IssuedInvoices', id) ?? 0) > 0);
    expect(open.length).toBeGreaterThan(3);
    const [first, second] = open as [string, string];
    const record = sandbox.state.getLatest('IssuedInvoices', first);
    const rest = domain.liquidations.restOf('IssuedInvoices', first) as number;

    // A partial payment of an overdue invoice: its pass is recorded before the payment.
    domain.liquidations.pay('IssuedInvoices', first, Math.round(rest * 40) / 100);
    let t = await truth();
    const paid = t.payments.at(-1) as PaymentMade;
    expect(paid).toMatchObject({
      collection: 'IssuedInvoices',
      documentId: first,
      documentNumber: record?.DocumentNumber,
      currencyId: record?.CurrencyId,
      dueDate: record?.DueDate,
      restBefore: rest,
      kind: 'partial',
      afterDueDate: true,
      date: '2026-06-01T00:00:00',
    });
    expect(paid.restAfter).toBe(Math.round((rest - paid.amount) * 100) / 100);
    const pass = t.dueDatePasses.find((p) => p.documentId === first);
    expect(pass).toMatchObject({ dueDate: record?.DueDate, restToPay: rest });
    // It passed at the start of the day after the due date (Prague), long before now.
    expect((pass as DueDatePass).passedAtMs).toBeLessThan(clock.now().getTime());
    // Every open invoice past its due date is there, each once.
    const keys = t.dueDatePasses.map((p) => `${p.documentId}@${p.dueDate}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(t.dueDatePasses.map((p) => p.documentId)).toEqual(expect.arrayContaining(open));

    // A due date moved on but still in the past: a new pass, dated when it was moved.
    clock.advance(60_000);
    expect(domain.liquidations.moveDueDate('IssuedInvoices', second, 10)).toBe(true);
    const moved = sandbox.state.getLatest('IssuedInvoices', second)?.DueDate as string;
    t = await truth();
    const passes = t.dueDatePasses.filter((p) => p.documentId === second);
    expect(passes.map((p) => p.dueDate)).toEqual([expect.any(String), moved]);
    expect(passes[1]?.passedAtMs).toBe(clock.now().getTime());

    // Paid in full: no more passes for it, and reading again adds nothing.
    domain.liquidations.pay(
      'IssuedInvoices',
      second,
      domain.liquidations.restOf('IssuedInvoices', second) as number,
    );
    const before = (await truth()).dueDatePasses.length;
    expect((await truth()).dueDatePasses.length).toBe(before);
  });

  it('moves a due date into the future for an invoice issued today: no pass', async () => {
    const domain = sandbox.server.domain;
    // An e-shop order, then its invoice (cz: order → invoice), dated today.
    new ActivityGenerator(
      () => domain,
      () => ({ createOrder: 1 }),
    ).tick(domain);
    const generator = new ActivityGenerator(
      () => domain,
      () => ({ issueInvoice: 1 }),
    );
    let created: string | undefined;
    for (let i = 0; i < 20 && !created; i++) {
      const step = generator.tick(domain);
      if (step.collection === 'IssuedInvoices' && step.id) created = step.id;
    }
    expect(created).toBeDefined();
    const id = created as string;
    expect(domain.liquidations.moveDueDate('IssuedInvoices', id, 7)).toBe(true);
    const t = await truth();
    expect(t.dueDatePasses.some((p) => p.documentId === id)).toBe(false);
  });

  it('the generator moves due dates with its moveDueDate weight', () => {
    const domain = sandbox.server.domain;
    const generator = new ActivityGenerator(
      () => domain,
      () => ({ moveDueDate: 1 }),
    );
    const steps = Array.from({ length: 5 }, () => generator.tick(domain));
    expect(steps.every((s) => s.action === 'moveDueDate' && s.id !== undefined)).toBe(true);
  });
});

describe('SANDBOX_ACTIVITY_WEIGHTS', () => {
  it('sets weights over the defaults', () => {
    const options = parseSandboxArgs([], { SANDBOX_ACTIVITY_WEIGHTS: 'payInvoice=3, moveDueDate=0.5' });
    expect(options).not.toBe('help');
    if (options === 'help') return;
    expect(options.activity?.weights).toEqual({
      createOrder: 0.45,
      editDocument: 0.25,
      issueInvoice: 0.2,
      payInvoice: 3,
      moveDueDate: 0.5,
    });
  });

  it('names the flag and what it expects for an unknown action or a bad weight', () => {
    expect(() => parseSandboxArgs(['--activity-weights', 'refund=1'])).toThrow(SandboxCliError);
    expect(() => parseSandboxArgs(['--activity-weights', 'refund=1'])).toThrow(
      /--activity-weights: expected action=weight .*payInvoice.*got 'refund=1'/,
    );
    expect(() => parseSandboxArgs([], { SANDBOX_ACTIVITY_WEIGHTS: 'payInvoice=-1' })).toThrow(
      /--activity-weights/,
    );
  });
});
