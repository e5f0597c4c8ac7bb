/**
 * The payment detector against the sandbox through the real client: the activity generator pays
 * invoices (full, partial, over, under, after the due date) between polls, a poller crashes between
 * publish and checkpoint and a second instance goes on from the same checkpoint store, unpaid
 * invoices are deleted. Every liquidation of the sandbox's ground truth must be reported once, with
 * its amount, and the last state of every invoice must match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountingClient, createAccountingClient } from '#functions/accounting/client.js';
import type { CollectionName } from '#functions/accounting/collections.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import type { PaymentDetail } from '#functions/core/events/payment-events.js';
import { pollAll } from '#functions/core/sync/poll-all.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { daysPastDue, pollPayments } from '#functions/core/sync/poll-payments.js';
import type { SyncDeps } from '#functions/core/sync/sync-types.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { ActivityGenerator } from '#sandbox/activity.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { crashingCheckpoints, RecordingPublisher } from './harness.js';

const PAYABLE: CollectionName[] = ['IssuedInvoices', 'IssuedAdvanceInvoices'];
const HOUR = 3_600_000;

describe('payment events against the sandbox', () => {
  const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
  let sandbox: Sandbox;
  let client: AccountingClient;

  beforeAll(async () => {
    sandbox = await startSandbox({
      clock,
      seed: 11,
      variant: 'cz',
      sizes: {
        documents: 200,
        partners: 30,
        perCollection: { IssuedInvoices: 60, IssuedAdvanceInvoices: 30, ReceivedOrders: 40 },
      },
      maxPageSize: 25,
      timestampPrecision: 's',
    });
    client = createAccountingClient(
      parseAccountingConfig({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.credentials.apiKey,
        variant: 'cz',
      }),
      { clock, logger: silentLogger },
    );
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });

  it('publishes every payment the sandbox made, once per stage of overdue, across a crash and a second poller', async () => {
    sandbox.setFaults({ clockSkewMs: -3 * 60_000 });
    const publisher = new RecordingPublisher();
    const { store: checkpoints, control } = crashingCheckpoints(createMemoryCheckpointStore());
    const options = pollOptionsSchema.parse({
      connection: 'sandbox',
      variant: 'cz',
      payments: true,
      pageSize: 25,
      lookbackMs: 5 * 60_000,
      reconcileIntervalMs: 0,
      paymentReconcileIntervalMs: 12 * HOUR,
    });
    // Two poller instances share the checkpoint store, as two Lambda invocations do.
    const instance = (): SyncDeps => ({ api: client, checkpoints, publisher, clock, logger: silentLogger });
    const domain = sandbox.server.domain;
    const activity = new ActivityGenerator(
      () => domain,
      () => ({ createOrder: 0.1, editDocument: 0.1, issueInvoice: 0.2, payInvoice: 0.6 }),
    );
    // Only payment events are checked here: the payment lists alone (the documents' own events
    // are the change detector's, tested elsewhere; pollAll runs both, below).
    const poll = (deps: SyncDeps) =>
      Promise.all(PAYABLE.map((c) => pollPayments(deps, options, c as 'IssuedInvoices')));

    // Baseline: no Paid/PartiallyPaid for what was paid before; Overdue for what is overdue now.
    let first = instance();
    await poll(first);
    expect(publisher.events.filter((e) => !e.detailType.endsWith('.Overdue'))).toHaveLength(0);
    const baselineEvents = publisher.events.length;
    expect(baselineEvents).toBeGreaterThan(0);
    const baselinePayments = domain.liquidations.payments.length;

    const deleted: string[] = [];
    let crashed = 0;
    for (let cycle = 0; cycle < 16; cycle++) {
      for (let i = 0; i < 6; i++) {
        try {
          activity.tick(domain);
        } catch {
          // an action the rules refuse is skipped, as the generator does
        }
        clock.advance(20_000);
      }
      if (cycle === 5) {
        // An unpaid invoice without payments is deleted: it leaves the unpaid list without an event.
        const victim = sandbox.state
          .collection('IssuedInvoices')
          .entries.map((e) => e.id)
          .find(
            (id) =>
              (domain.liquidations.restOf('IssuedInvoices', id) ?? 0) > 0 &&
              !domain.liquidations.payments.some((p) => p.documentId === id),
          );
        expect(victim).toBeDefined();
        sandbox.state.remove('IssuedInvoices', victim as string);
        deleted.push(victim as string);
      }
      if (cycle === 4 || cycle === 9) {
        // Dies after publishing, before the checkpoint; the next cycle is another instance.
        control.crashOnPut = control.puts;
        crashed++;
      }
      const results = await poll(first);
      if (control.crashOnPut >= 0 && control.puts > control.crashOnPut) {
        expect(results.some((r) => r.status === 'failed')).toBe(true);
        control.crashOnPut = -1;
        first = instance();
      }
      // Days pass: invoices issued in the run fall due; payments come after due dates.
      clock.advance(cycle % 3 === 2 ? 5 * 24 * HOUR : 10 * 60_000);
    }
    // Past the reconciliation interval: the deleted invoice is found gone (404), not paid.
    clock.advance(13 * HOUR);
    await poll(first);
    const idle = await poll(instance());

    const details = publisher.events.map((e) => {
      parseDetail(e.detailType, e.detail);
      return e.detail as PaymentDetail;
    });
    // Unique by idempotency key: what a consumer that dedupes sees.
    const unique = new Map(details.map((d) => [d.idempotencyKey, d]));
    const payments = domain.liquidations.payments.slice(baselinePayments);
    expect(payments.length).toBeGreaterThan(20);
    const kinds = new Set(payments.map((p) => (p.restAfter > 0 ? 'partial' : 'full')));
    expect(kinds).toEqual(new Set(['partial', 'full']));

    // Over-payments and payments after the due date happened and were reported.
    expect(details.some((d) => d.change === 'Paid' && d.paid > d.total)).toBe(true);
    const late = payments.filter((p) => {
      const due = sandbox.state.getLatest(p.collection, p.documentId)?.DueDate;
      return typeof due === 'string' && p.date.slice(0, 10) > due.slice(0, 10);
    });
    expect(late.length).toBeGreaterThan(0);

    // Every liquidation reported exactly once as new, with its amount (0 missed, 0 wrong).
    const reported = new Map<string, number>();
    const byDocument = new Map<string, PaymentDetail[]>();
    for (const d of unique.values()) {
      if (d.change === 'Overdue') continue;
      const list = byDocument.get(d.id) ?? [];
      list.push(d);
      byDocument.set(d.id, list);
    }
    const made = new Set(payments.map((p) => p.liquidationId));
    let missed = 0;
    let wrong = 0;
    const problems: string[] = [];
    for (const [, events] of byDocument) {
      events.sort((a, b) => a.liquidations.length - b.liquidations.length);
      let before = new Set<string>();
      for (const e of events) {
        // Liquidations from before the baseline (the sandbox's seeded payments) are not new.
        const fresh = e.liquidations.filter((l) => !before.has(l.id) && made.has(l.id));
        const sum = Math.round(fresh.reduce((s, l) => s + l.amount, 0) * 100) / 100;
        if (e.change === 'Overdue' || sum !== e.amountPaid) {
          wrong++;
          problems.push(`amountPaid ${e.id}: ${sum} vs ${JSON.stringify(e)}`);
        }
        for (const l of fresh) reported.set(l.id, l.amount);
        before = new Set(e.liquidations.map((l) => l.id));
      }
    }
    for (const p of payments) {
      const amount = reported.get(p.liquidationId);
      if (amount === undefined) missed++;
      else if (amount !== p.amount) {
        wrong++;
        problems.push(`amount ${p.liquidationId}: ${amount} vs ${p.amount}`);
      }
    }
    // The last event of each paid document states its rest as the ground truth does.
    for (const p of payments) {
      const lastPayment = payments.filter((q) => q.documentId === p.documentId).at(-1);
      if (lastPayment !== p) continue;
      const last = (byDocument.get(p.documentId) ?? []).at(-1);
      if (!last) continue;
      const expected = p.restAfter > 0 ? 'PartiallyPaid' : 'Paid';
      if (last.change !== expected || last.restToPay !== p.restAfter) {
        wrong++;
        problems.push(`last ${p.documentId}: ${last.change} ${last.restToPay} vs ${JSON.stringify(p)}`);
      }
    }
    console.info(
      JSON.stringify({
        payments: payments.length,
        events: details.length,
        uniqueEvents: unique.size,
        duplicates: details.length - unique.size,
        crashed,
        missed,
        wrong,
        idleRequests: idle.map((r) => [r.collection, r.requests]),
      }),
    );
    expect({ missed, wrong, problems }).toEqual({ missed: 0, wrong: 0, problems: [] });
    // Duplicates only from the crashes (one page's events each, same idempotency keys).
    expect(details.length - unique.size).toBeLessThanOrEqual(crashed * options.pageSize);

    // Overdue: once per invoice and due date; every invoice still owing past its due date has one.
    const overdue = [...unique.values()].filter((d) => d.change === 'Overdue');
    const overdueIds = overdue.map((d) => `${d.id}@${d.dueDate}`);
    expect(new Set(overdueIds).size).toBe(overdueIds.length);
    const serverNow = clock.now().getTime() - 3 * 60_000;
    for (const collection of PAYABLE) {
      for (const { id } of sandbox.state.collection(collection).entries) {
        const record = sandbox.state.getLatest(collection, id);
        const rest = domain.liquidations.restOf(collection, id) ?? 0;
        if (!record || rest <= 0 || typeof record.DueDate !== 'string') continue;
        if (daysPastDue(record.DueDate, serverNow) > 0) {
          expect(overdueIds, `${collection} ${id} is overdue`).toContain(`${id}@${record.DueDate}`);
        }
      }
    }
    // Deleted invoices: no payment event, and no longer tracked.
    for (const id of deleted) expect(byDocument.has(id)).toBe(false);
    const state = (await checkpoints.get('sandbox#IssuedInvoices/Unpaid'))?.value as {
      open: Record<string, unknown>;
    };
    for (const id of deleted) expect(state.open[id]).toBeUndefined();

    // An idle cycle: one list request per payment list, nothing published.
    expect(idle.map((r) => r.requests)).toEqual([1, 1]);
    expect(idle.every((r) => r.published === 0)).toBe(true);
  });

  it('runs with the change detector only when turned on, and on its cadence', async () => {
    const publisher = new RecordingPublisher();
    const deps: SyncDeps = {
      api: client,
      checkpoints: createMemoryCheckpointStore(),
      publisher,
      clock,
      logger: silentLogger,
    };
    const base = { connection: 'cadence', variant: 'cz', reconcileIntervalMs: 0 } as const;
    const off = await pollAll(deps, pollOptionsSchema.parse({ ...base, payments: false }), [
      'IssuedInvoices',
    ]);
    expect(off.collections.map((c) => c.collection)).toEqual(['IssuedInvoices']);

    const on = pollOptionsSchema.parse({ ...base, payments: true, paymentIntervalMs: HOUR });
    const payment = async () =>
      (await pollAll(deps, on, ['IssuedInvoices'])).collections.find(
        (c) => c.collection === 'IssuedInvoices/Unpaid',
      );
    const first = await payment();
    expect(first).toMatchObject({ status: 'ok' });
    expect(first?.requests).toBeGreaterThanOrEqual(2); // the documents, then their unpaid statuses
    clock.advance(10 * 60_000);
    expect(await payment()).toMatchObject({ status: 'skipped', requests: 0, published: 0 });
    clock.advance(HOUR);
    expect(await payment()).toMatchObject({ status: 'ok', requests: 1 });
  });
});

describe('paid or deleted: an invoice leaving the unpaid list, on the sandbox', () => {
  const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
  let sandbox: Sandbox;
  let client: AccountingClient;

  beforeAll(async () => {
    sandbox = await startSandbox({
      clock,
      seed: 12,
      variant: 'cz',
      sizes: { documents: 60, partners: 10, perCollection: { IssuedInvoices: 30 } },
    });
    client = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey, variant: 'cz' }),
      { clock, logger: silentLogger },
    );
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });

  it('a paid invoice is Paid; a deleted one is the change detector’s Deleted and no payment event', async () => {
    const publisher = new RecordingPublisher();
    const checkpoints = createMemoryCheckpointStore();
    // The change detector's deletion reconciliation keeps its id list in the object store.
    const deps: SyncDeps = {
      api: client,
      checkpoints,
      publisher,
      clock,
      logger: silentLogger,
      objectStore: createMemoryObjectStore(),
    };
    const options = pollOptionsSchema.parse({
      connection: 'both',
      variant: 'cz',
      payments: true,
      lookbackMs: 60_000,
      reconcileIntervalMs: 60_000,
      paymentReconcileIntervalMs: 0,
    });
    const poll = () => pollAll(deps, options, ['IssuedInvoices']);
    const domain = sandbox.server.domain;
    // Two invoices issued today (not overdue): one is paid in full, the other deleted unpaid.
    const issued: string[] = [];
    const orders = new ActivityGenerator(
      () => domain,
      () => ({ createOrder: 1 }),
    );
    const invoicing = new ActivityGenerator(
      () => domain,
      () => ({ issueInvoice: 1 }),
    );
    while (issued.length < 2) {
      orders.tick(domain);
      const step = invoicing.tick(domain);
      if (step.collection === 'IssuedInvoices' && step.id) issued.push(step.id);
    }
    await poll(); // baseline
    const [paid, deleted] = issued as [string, string];
    clock.advance(1000); // a later version: its ModifiedDate moves on
    domain.liquidations.pay(
      'IssuedInvoices',
      paid,
      domain.liquidations.restOf('IssuedInvoices', paid) as number,
    );
    expect(sandbox.state.remove('IssuedInvoices', deleted)).toBe(true);
    const start = publisher.events.length;
    clock.advance(2 * 60_000);
    await poll();
    clock.advance(2 * 60_000);
    await poll();
    const about = (id: string) =>
      publisher.events
        .slice(start)
        .filter((e) => (e.detail as { id?: string }).id === id)
        .map((e) => e.detailType);
    expect(about(paid)).toContain('IssuedInvoice.Paid');
    expect(about(deleted)).toEqual(['IssuedInvoice.Deleted']);
    // The service tells them apart: RestToPay 0 for the paid one, 404 for the deleted one.
    expect(
      (await client.call('IssuedInvoices.restToPay', { params: { id: paid } })) as unknown,
    ).toMatchObject({
      RestToPay: 0,
    });
    await expect(client.call('IssuedInvoices.restToPay', { params: { id: deleted } })).rejects.toMatchObject({
      status: 404,
    });
    // Days later (past the deleted one's due date), it is never announced Overdue.
    clock.advance(60 * 24 * HOUR);
    await poll();
    expect(about(deleted)).toEqual(['IssuedInvoice.Deleted']);
    const state = (await checkpoints.get('both#IssuedInvoices/Unpaid'))?.value as {
      open: Record<string, unknown>;
    };
    expect(state.open[deleted]).toBeUndefined();
  });
});
