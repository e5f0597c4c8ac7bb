/**
 * The payment detector's decisions, against a scripted service: what a changed invoice means when
 * it is listed unpaid, when it is not (RestToPay: 0 → Paid, 404 → dropped), a new invoice with a
 * zero total, Overdue once per due date, and an Unpaid answer that does not match the contract.
 */
import { describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord, CallInput, Page } from '#functions/accounting/api.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { pollPayments } from '#functions/core/sync/poll-payments.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { answeringRaw } from '../fakes/raw-answers.js';
import { RecordingPublisher } from './harness.js';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Invoice {
  record: ApiRecord;
  rest: number;
  liquidations: { Id: string; Date: string; DocumentCurrencyAmount: number }[];
  deleted?: boolean;
}

/** A service of issued invoices whose clock is the manual clock; every change stamps ModifiedDate. */
function scriptedService(clock: ReturnType<typeof createManualClock>) {
  const invoices = new Map<string, Invoice>();
  const calls: string[] = [];
  let malformed = false;
  const stamp = () => clock.now().toISOString();
  const status = (i: Invoice) => ({
    Id: i.record.Id,
    Number: String(i.record.DocumentNumber),
    RestToPay: i.rest,
    LiquidationInfos: i.liquidations,
    ModificationInfo: i.record.ModificationInfo,
  });
  const changedSince = (since: string | undefined) =>
    [...invoices.values()].filter(
      (i) => !i.deleted && (since === undefined || String(i.record.ModificationInfo?.ModifiedDate) >= since),
    );
  const api = {
    async *listPages(_collection: string, options: { modifiedSince?: string } = {}) {
      calls.push('list');
      const items = changedSince(options.modifiedSince).map((i) => i.record);
      const page: Page = {
        items,
        totalItemCount: items.length,
        pageSize: 100,
        last: true,
        serverTime: stamp(),
      };
      yield page;
    },
  } as unknown as AccountingApi;
  /** The service's raw answers to the other operations, read through the client's typed methods. */
  const raw = {
    async call(operationId: string, input: CallInput = {}): Promise<unknown> {
      calls.push(operationId.split('.')[1] as string);
      if (operationId.endsWith('.unpaid')) {
        if (malformed) return { Items: [{ Id: ID(1), RestToPay: 'ten' }] };
        const since = input.query?.ModifiedSince as string | undefined;
        const items = changedSince(since)
          .filter((i) => i.rest > 0)
          .map(status);
        return { Items: items, TotalItemCount: items.length, Pagination: { PageSize: 100 } };
      }
      const invoice = invoices.get(String(input.params?.id));
      if (!invoice || invoice.deleted) throw Object.assign(new Error('not found'), { status: 404 });
      return status(invoice);
    },
  };
  Object.assign(
    api,
    answeringRaw((operationId, input) => raw.call(operationId, input)),
  );
  return {
    api,
    raw,
    calls,
    breakUnpaid: () => {
      malformed = true;
    },
    add(n: number, total: number, due: string) {
      const now = stamp();
      invoices.set(ID(n), {
        record: {
          Id: ID(n),
          DocumentNumber: `FV${n}`,
          DueDate: due,
          CurrencyId: ID(900),
          BusinessPartnerAddress: { BusinessPartnerId: ID(800), CompanyName: 'Novák s.r.o.' },
          DocumentRecapitulation: { TotalPrice: total },
          ModificationInfo: { CreatedDate: now, ModifiedDate: now },
        },
        rest: total,
        liquidations: [],
      });
    },
    touch(n: number, patch: Partial<Invoice> & { due?: string } = {}) {
      const i = invoices.get(ID(n)) as Invoice;
      Object.assign(i, patch);
      if (patch.due) i.record.DueDate = patch.due;
      i.record.ModificationInfo = { ...i.record.ModificationInfo, ModifiedDate: stamp() } as never;
    },
    pay(n: number, amount: number, liquidation: number) {
      const i = invoices.get(ID(n)) as Invoice;
      i.liquidations.push({
        Id: ID(liquidation),
        Date: stamp().slice(0, 10),
        DocumentCurrencyAmount: amount,
      });
      this.touch(n, { rest: Math.max(0, i.rest - amount) });
    },
  };
}

function setup() {
  const clock = createManualClock({ start: '2026-03-10T08:00:00Z' });
  const service = scriptedService(clock);
  const publisher = new RecordingPublisher();
  const deps = {
    api: service.api,
    checkpoints: createMemoryCheckpointStore<unknown>(),
    publisher,
    clock,
    logger: silentLogger,
  };
  const options = pollOptionsSchema.parse({
    connection: 'acme',
    payments: true,
    lookbackMs: 60_000,
    paymentReconcileIntervalMs: 0,
  });
  const check = async () => {
    clock.advance(5 * 60_000);
    return pollPayments(deps, options, 'IssuedInvoices');
  };
  const kinds = () => publisher.events.map((e) => `${e.detailType} ${(e.detail as { id: string }).id}`);
  return { clock, service, publisher, check, kinds };
}

describe('payment detector decisions', () => {
  it('reports payments after the baseline: partly, fully, paid before first seen; a zero total is no payment', async () => {
    const t = setup();
    t.service.add(1, 1000, '2026-04-30');
    t.service.add(2, 500, '2026-04-30');
    await t.check(); // baseline: nothing overdue, nothing reported
    expect(t.kinds()).toEqual([]);

    t.service.pay(1, 400, 101);
    t.service.add(3, 300, '2026-04-30');
    t.service.pay(3, 300, 103); // created and paid between two checks
    t.service.add(4, 0, '2026-04-30'); // nothing to pay
    await t.check();
    expect(t.kinds()).toEqual([`IssuedInvoice.PartiallyPaid ${ID(1)}`, `IssuedInvoice.Paid ${ID(3)}`]);
    expect(t.publisher.events[0]?.detail).toMatchObject({
      amountPaid: 400,
      paid: 400,
      restToPay: 600,
      total: 1000,
      documentNumber: 'FV1',
      partner: { id: ID(800), name: 'Novák s.r.o.' },
      currencyId: ID(900),
      liquidations: [{ id: ID(101), amount: 400 }],
    });

    t.service.pay(1, 600, 102);
    await t.check();
    expect(t.kinds().at(-1)).toBe(`IssuedInvoice.Paid ${ID(1)}`);
    expect(t.publisher.events.at(-1)?.detail).toMatchObject({ amountPaid: 600, paid: 1000, restToPay: 0 });

    // Idle: one list request, nothing published.
    const before = t.service.calls.length;
    const idle = await t.check();
    expect(t.service.calls.slice(before)).toEqual(['list']);
    expect(idle).toMatchObject({ requests: 1, published: 0 });
  });

  it('drops an unpaid invoice the service no longer has (404) without an event', async () => {
    const t = setup();
    t.service.add(1, 1000, '2026-04-30');
    await t.check();
    t.service.touch(1, { deleted: false });
    // Listed as changed, gone by the time it is looked up: the Unpaid list no longer has it either.
    const api = t.service.raw;
    const call = api.call;
    api.call = async (id, input) => {
      if (id.endsWith('.unpaid')) return { Items: [], TotalItemCount: 0 };
      return call(id, { ...input, params: { id: ID(999) } });
    };
    const result = await t.check();
    expect(result.status).toBe('ok');
    expect(t.kinds()).toEqual([]);
  });

  it('announces Overdue by the service clock once per due date, again for a new due date', async () => {
    const t = setup();
    t.service.add(1, 1000, '2026-03-10');
    await t.check();
    expect(t.kinds()).toEqual([]);
    t.clock.set('2026-03-11T08:00:00Z');
    await t.check();
    await t.check();
    expect(t.kinds()).toEqual([`IssuedInvoice.Overdue ${ID(1)}`]);
    expect(t.publisher.events[0]?.detail).toMatchObject({
      daysOverdue: 1,
      dueDate: '2026-03-10',
      restToPay: 1000,
    });
    t.service.touch(1, { due: '2026-03-20' });
    await t.check();
    expect(t.kinds()).toHaveLength(1);
    t.clock.set('2026-03-21T08:00:00Z');
    await t.check();
    expect(t.kinds()).toEqual([`IssuedInvoice.Overdue ${ID(1)}`, `IssuedInvoice.Overdue ${ID(1)}`]);
    const keys = t.publisher.events.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey);
    expect(new Set(keys).size).toBe(2);
  });

  it('looks up an invoice not read in the check before its Overdue: deleted → dropped, paid → Paid', async () => {
    const t = setup();
    t.service.add(1, 1000, '2026-03-10');
    t.service.add(2, 800, '2026-03-10');
    t.service.add(3, 600, '2026-03-10');
    await t.check(); // baseline, nothing overdue yet
    // 1 is deleted: gone from every list, no change to see. 2 is paid: its document changes.
    t.service.touch(1, { deleted: true });
    t.service.pay(2, 800, 201);
    t.clock.set('2026-03-11T07:55:00Z');
    const before = t.service.calls.length;
    await t.check(); // the day after the due date
    const calls = t.service.calls.slice(before);
    expect(t.kinds()).toEqual([`IssuedInvoice.Paid ${ID(2)}`, `IssuedInvoice.Overdue ${ID(3)}`]);
    // 2 left the unpaid list (one lookup: Paid); 1 and 3 were not read in the check and are looked
    // up before their Overdue: 1 answered 404 and is dropped, 3 is still owed.
    expect(calls).toEqual(['list', 'unpaid', 'restToPay', 'restToPay', 'restToPay']);
    expect(t.publisher.events.at(-1)?.detail).toMatchObject({ restToPay: 600, daysOverdue: 1 });
    const after = t.service.calls.length;
    await t.check();
    expect(t.service.calls.slice(after)).toEqual(['list']);
    expect(t.kinds()).toHaveLength(2);
  });

  it('fails the check, naming the field, when the Unpaid answer does not match the contract', async () => {
    const t = setup();
    t.service.add(1, 1000, '2026-04-30');
    t.service.breakUnpaid();
    const result = await t.check();
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(
      /IssuedInvoices\/Unpaid: response field 'Items\[0\]\.RestToPay' expected number/,
    );
  });
});
