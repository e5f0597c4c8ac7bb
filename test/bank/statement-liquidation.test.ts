/**
 * Statements in, invoices liquidated, exactly once: a camt.053, a GPC and a Fio statement built
 * around open invoices of the cz and the sk sandbox are imported (one `BankTransaction.Received`
 * per credit) and each event runs through the payment action's entry (catalog parsing included).
 * Exact payments liquidate fully, smaller ones partially, larger ones fully with the surplus
 * reported; unknown symbols, another currency and two invoices with one symbol are reported
 * unmatched and nothing is guessed; a statement imported twice liquidates nothing twice; a
 * liquidation whose outcome is unknown is not repeated.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createMemoryIdempotencyGuard } from '#functions/adapters/local/memory-idempotency-guard.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { liquidatePaymentsAction } from '#functions/core/actions/liquidate-payments/action.js';
import { createActionEntry } from '#functions/core/actions/run-action.js';
import { importStatement, receivedEvent } from '#functions/core/bank/import-statement.js';
import type { BusEvent } from '#functions/core/ports.js';
import { systemClock } from '#functions/shared/clock.js';
import {
  listAll,
  type RecordingPublisher,
  recordingLogger,
  recordingPublisher,
  type SandboxClient,
  startSandboxClient,
} from '../actions/support.js';

const CONNECTION = 'acme';

interface Bed {
  sb: SandboxClient;
  variant: 'cz' | 'sk';
  currency: string;
}

/** An EventBridge event as the bus delivers it. */
const delivered = (e: BusEvent) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': e.detailType,
  source: e.source,
  account: '000000000000',
  time: (e.time ?? new Date()).toISOString(),
  region: 'eu-central-1',
  resources: [],
  detail: e.detail,
});

function actionFor(bed: Bed, api: AccountingApi = bed.sb.client) {
  const config = loadActionsConfig({
    ACCOUNTING_CONNECTION: CONNECTION,
    ACCOUNTING_SERVICE_VARIANT: bed.variant,
  });
  const publisher = recordingPublisher();
  const guard = createMemoryIdempotencyGuard();
  const make = (client: AccountingApi) => {
    const logger = recordingLogger();
    const deps = liquidatePaymentsAction.deps({
      config,
      api: client,
      publisher,
      clock: systemClock,
      logger,
      idempotency: guard,
    });
    return createActionEntry(liquidatePaymentsAction.name, logger, liquidatePaymentsAction.run(deps));
  };
  return { publisher, entry: make(api), make };
}

async function openInvoices(bed: Bed, collection: 'IssuedInvoices' | 'IssuedAdvanceInvoices') {
  const out: { record: ApiRecord; rest: number }[] = [];
  const home = (await listAll(bed.sb.client, 'Currencies')).find((c) => c.Code === bed.currency)?.Id;
  for (const record of await listAll(bed.sb.client, collection)) {
    const status = (await bed.sb.client.call(`${collection}.restToPay`, { params: { id: record.Id } })) as {
      RestToPay: number;
    };
    if (
      status.RestToPay > 0 &&
      (!record.CurrencyId || record.CurrencyId === home) &&
      typeof record.VariableSymbol === 'string'
    )
      out.push({ record, rest: status.RestToPay });
  }
  return out;
}

const rest = async (bed: Bed, collection: string, id: string) =>
  ((await bed.sb.client.call(`${collection}.restToPay`, { params: { id } })) as { RestToPay: number })
    .RestToPay;

const liquidationCount = (bed: Bed) => bed.sb.sandbox.server.domain.liquidations.payments.length;

function camt(
  account: string,
  currency: string,
  txs: { id: string; amount: number; vs: string; ccy?: string }[],
) {
  const entries = txs
    .map(
      (
        t,
      ) => `<Ntry><Amt Ccy="${t.ccy ?? currency}">${t.amount.toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><AcctSvcrRef>${t.id}</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><AcctSvcrRef>${t.id}</AcctSvcrRef><EndToEndId>/VS/${t.vs}</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  return new TextEncoder().encode(`<?xml version="1.0"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId></GrpHdr>
<Stmt><Id>S1</Id><Acct><Id><IBAN>${account}</IBAN></Id><Ccy>${currency}</Ccy></Acct>
${entries}
</Stmt></BkToCstmrStmt></Document>`);
}

function gpc(txs: { id: string; amount: number; vs: string }[]) {
  const own = '0000192000145399';
  const pad = (v: string | number, n: number) => String(v).padStart(n, '0');
  const lines = [
    `074${own}${'ESHOP'.padEnd(20)}191126${pad(0, 14)}+${pad(0, 14)}+${pad(0, 14)}0${pad(0, 14)}0001201126${' '.repeat(14)}`,
    ...txs.map(
      (t) =>
        `075${own}${pad(2400222222, 16)}${pad(t.id, 13)}${pad(Math.round(t.amount * 100), 12)}2${pad(t.vs, 10)}${pad('20100000', 10)}${pad(0, 10)}201126${'PLATBA'.padEnd(20)}00203201126`,
    ),
  ];
  return new TextEncoder().encode(lines.join('\r\n'));
}

function fio(txs: { id: number; amount: number; vs: string }[]) {
  return new TextEncoder().encode(
    JSON.stringify({
      accountStatement: {
        info: { accountId: '2400222222', bankId: '2010', currency: 'CZK', iban: 'CZ7920100000002400222222' },
        transactionList: {
          transaction: txs.map((t) => ({
            column22: { value: t.id, name: 'ID pohybu', id: 22 },
            column0: { value: '2026-11-20+0100', name: 'Datum', id: 0 },
            column1: { value: t.amount, name: 'Objem', id: 1 },
            column14: { value: 'CZK', name: 'Měna', id: 14 },
            column5: { value: t.vs, name: 'VS', id: 5 },
          })),
        },
      },
    }),
  );
}

async function runAll(entry: ReturnType<typeof actionFor>['entry'], events: BusEvent[]) {
  const out = [];
  for (const e of events) out.push(await entry(delivered(e)));
  return out;
}

async function imported(bytes: Uint8Array, key: string, currency = 'CZK') {
  const bus = recordingPublisher();
  await importStatement(
    { publisher: bus, clock: systemClock, logger: recordingLogger() },
    { connection: CONNECTION, key, defaultCurrency: currency },
    bytes,
  );
  return bus.events;
}

const recorded = (p: RecordingPublisher) => [
  ...p.ofType('IssuedInvoice.PaymentRecorded'),
  ...p.ofType('IssuedAdvanceInvoice.PaymentRecorded'),
];

describe('cz: statements liquidate the invoices they pay, exactly once', () => {
  const bed = { variant: 'cz', currency: 'CZK' } as Bed;
  beforeAll(async () => {
    bed.sb = await startSandboxClient({
      variant: 'cz',
      sizes: { documents: 80, partners: 8, perCollection: {} },
    });
  });
  afterAll(async () => bed.sb?.close());

  it('camt.053: full, partial, over; unknown symbol, another currency and two invoices with one symbol unmatched; twice = once', async () => {
    const open = await openInvoices(bed, 'IssuedInvoices');
    expect(open.length).toBeGreaterThanOrEqual(6);
    const [full, part, over, twinA, twinB, other] = open as { record: ApiRecord; rest: number }[];
    if (!full || !part || !over || !twinA || !twinB || !other) throw new Error('too few open invoices');
    // Two open invoices with one symbol: the matching must not pick one.
    bed.sb.sandbox.state.update('IssuedInvoices', twinB.record.Id, (r) => {
      r.VariableSymbol = twinA.record.VariableSymbol;
    });
    const vs = (i: { record: ApiRecord }) => String(i.record.VariableSymbol);
    const bytes = camt('CZ6508000000192000145399', 'CZK', [
      { id: 'T1', amount: full.rest, vs: vs(full) },
      { id: 'T2', amount: Math.floor(part.rest / 2), vs: vs(part) },
      { id: 'T3', amount: over.rest + 100, vs: vs(over) },
      { id: 'T4', amount: 10, vs: '999999999' },
      { id: 'T5', amount: 10, vs: vs(twinA) },
      { id: 'T6', amount: other.rest, vs: vs(other), ccy: 'EUR' },
    ]);
    const { entry, publisher } = actionFor(bed);
    const before = liquidationCount(bed);
    const events = await imported(bytes, 'bank-statements/acme/camt.xml');
    expect(events).toHaveLength(6);
    const outcomes = await runAll(entry, events);
    expect(outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done', 'failed', 'failed', 'failed']);
    expect(liquidationCount(bed) - before).toBe(3);
    expect(await rest(bed, 'IssuedInvoices', full.record.Id)).toBe(0);
    expect(await rest(bed, 'IssuedInvoices', part.record.Id)).toBeCloseTo(
      part.rest - Math.floor(part.rest / 2),
      2,
    );
    expect(await rest(bed, 'IssuedInvoices', over.record.Id)).toBe(0);
    expect(await rest(bed, 'IssuedInvoices', other.record.Id)).toBe(other.rest);
    expect(recorded(publisher).map((e) => (e.detail as { kind: string; overpayment: number }).kind)).toEqual([
      'fully',
      'partially',
      'fully',
    ]);
    expect((recorded(publisher)[2]?.detail as { overpayment: number } | undefined)?.overpayment).toBe(100);
    const unmatched = publisher
      .ofType('BankTransaction.Unmatched')
      .map((e) => e.detail as { reason: string; amount: number; candidates: { id: string }[] });
    expect(unmatched.map((u) => [u.reason, u.amount])).toEqual([
      ['overpaid', 100],
      ['noMatch', 10],
      ['ambiguous', 10],
      ['currency', other.rest],
    ]);
    expect(unmatched[2]?.candidates.map((c) => c.id).sort()).toEqual(
      [twinA.record.Id, twinB.record.Id].sort(),
    );

    // The same statement again, and the same transactions in another file: nothing liquidated twice.
    const again = await runAll(entry, await imported(bytes, 'bank-statements/acme/camt-again.xml'));
    expect(again.map((o) => o.status)).toEqual(Array(6).fill('duplicate'));
    expect(liquidationCount(bed) - before).toBe(3);

    // A person assigns the unknown payment to an invoice: the same action with a target.
    const target = open[6] ?? twinA;
    const t4 = (events[3]?.detail as { transaction: Parameters<typeof receivedEvent>[2] } | undefined)
      ?.transaction;
    if (!t4) throw new Error('no transaction');
    const assignment = receivedEvent(
      { clock: systemClock },
      CONNECTION,
      t4,
      { format: 'assignment' },
      {
        recordType: 'IssuedInvoice',
        id: target.record.Id,
      },
    );
    expect((await entry(delivered(assignment))).status).toBe('done');
    expect((await entry(delivered(assignment))).status).toBe('duplicate');
    expect(liquidationCount(bed) - before).toBe(4);
    // Assigning a liquidated transaction again (to another invoice) liquidates nothing.
    const reassigned = receivedEvent(
      { clock: systemClock },
      CONNECTION,
      t4,
      { format: 'assignment' },
      {
        recordType: 'IssuedInvoice',
        id: other.record.Id,
      },
    );
    expect((await entry(delivered(reassigned))).status).toBe('duplicate');
    expect(liquidationCount(bed) - before).toBe(4);
    bed.sb.sandbox.state.update('IssuedInvoices', twinB.record.Id, (r) => {
      r.VariableSymbol = twinB.record.VariableSymbol;
    });
  });

  it('GPC and Fio: each liquidates in the sandbox, once even when imported twice', async () => {
    const open = await openInvoices(bed, 'IssuedInvoices');
    const [a, b] = open as { record: ApiRecord; rest: number }[];
    if (!a || !b) throw new Error('too few open invoices');
    const { entry } = actionFor(bed);
    const before = liquidationCount(bed);
    const gpcBytes = gpc([{ id: '7001', amount: a.rest, vs: String(a.record.VariableSymbol) }]);
    const fioBytes = fio([{ id: 990001, amount: b.rest, vs: String(b.record.VariableSymbol) }]);
    for (const bytes of [gpcBytes, fioBytes, gpcBytes, fioBytes])
      await runAll(entry, await imported(bytes, 'f'));
    expect(liquidationCount(bed) - before).toBe(2);
    expect(await rest(bed, 'IssuedInvoices', a.record.Id)).toBe(0);
    expect(await rest(bed, 'IssuedInvoices', b.record.Id)).toBe(0);
  });

  it('advance invoices: an exact payment liquidates fully; less is left for a person (cz liquidates them only fully)', async () => {
    const [a] = (await openInvoices(bed, 'IssuedAdvanceInvoices')) as { record: ApiRecord; rest: number }[];
    if (!a) throw new Error('no open advance invoice');
    // The sandbox numbers advance invoices with the invoices' digits (ZF2025000022, FA2025000022):
    // one symbol for two documents is ambiguous, so this one gets a symbol of its own.
    a.record.VariableSymbol = `9${String(a.record.VariableSymbol).slice(-9)}`;
    bed.sb.sandbox.state.update('IssuedAdvanceInvoices', a.record.Id, (r) => {
      r.VariableSymbol = a.record.VariableSymbol;
    });
    const { entry, publisher } = actionFor(bed);
    const bytes = camt('CZ6508000000192000145399', 'CZK', [
      { id: 'A1', amount: Math.floor(a.rest / 2), vs: String(a.record.VariableSymbol) },
      { id: 'A2', amount: a.rest, vs: String(a.record.VariableSymbol) },
    ]);
    const outcomes = await runAll(entry, await imported(bytes, 'adv.xml'));
    expect(
      outcomes.map((o) => o.status),
      JSON.stringify(outcomes),
    ).toEqual(['failed', 'done']);
    expect(await rest(bed, 'IssuedAdvanceInvoices', a.record.Id)).toBe(0);
    expect(publisher.ofType('IssuedAdvanceInvoice.PaymentRecorded')).toHaveLength(1);
    const unmatched = publisher.ofType('BankTransaction.Unmatched')[0]?.detail as
      | { reason: string }
      | undefined;
    expect(unmatched?.reason).toBe('partialAdvance');
  });

  it('a liquidation whose outcome is unknown is reported for a person and never repeated', async () => {
    const [a] = (await openInvoices(bed, 'IssuedInvoices')) as { record: ApiRecord; rest: number }[];
    if (!a) throw new Error('no open invoice');
    const action = actionFor(bed);
    let calls = 0;
    const lost: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    lost.create = async (operationId, input) => {
      calls += 1;
      await bed.sb.client.create(operationId, input); // it reached the service, the answer was lost
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/IssuedInvoices' }, operationId, {
        cause: new Error('the connection closed before the answer'),
      });
    };
    const entry = action.make(lost);
    const events = await imported(
      camt('CZ1', 'CZK', [{ id: 'U1', amount: a.rest, vs: String(a.record.VariableSymbol) }]),
      'u',
    );
    expect((await entry(delivered(events[0] as BusEvent))).status).toBe('failed');
    const failed = action.publisher.ofType('Action.Failed')[0]?.detail as {
      problem: { kind: string };
      id: string;
    };
    expect(failed.problem.kind).toBe('outcomeUnknown');
    expect(failed.id).toBe(a.record.Id);
    expect((await entry(delivered(events[0] as BusEvent))).status).toBe('duplicate');
    expect(calls).toBe(1);
  });
  it('a run cut short after the liquidation (a crash) finds it by its mark and does not liquidate again', async () => {
    const [a] = (await openInvoices(bed, 'IssuedInvoices')) as { record: ApiRecord; rest: number }[];
    if (!a) throw new Error('no open invoice');
    const action = actionFor(bed);
    const crashing: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    crashing.create = async (operationId, input) => {
      await bed.sb.client.create(operationId, input);
      throw new Error('the process died before the outcome was recorded');
    };
    const half = Math.floor(a.rest / 2);
    const events = await imported(
      camt('CZ1', 'CZK', [{ id: 'K1', amount: half, vs: String(a.record.VariableSymbol) }]),
      'k',
    );
    const event = delivered(events[0] as BusEvent);
    const before = liquidationCount(bed);
    await expect(action.make(crashing)(event)).rejects.toThrow('the process died');
    expect(liquidationCount(bed) - before).toBe(1);
    // The redelivery (the guard's records of the cut run are gone) reads the invoice's liquidations first.
    expect((await action.entry(event)).status).toBe('duplicate');
    expect(liquidationCount(bed) - before).toBe(1);
    expect(await rest(bed, 'IssuedInvoices', a.record.Id)).toBeCloseTo(a.rest - half, 2);
  });
});

describe('sk: a bank receipt with the liquidation', () => {
  const bed = { variant: 'sk', currency: 'EUR' } as Bed;
  beforeAll(async () => {
    bed.sb = await startSandboxClient({
      variant: 'sk',
      sizes: { documents: 60, partners: 8, perCollection: {} },
    });
  });
  afterAll(async () => bed.sb?.close());

  it('camt.053 in EUR: full and partial, the receipt created once however often the statement comes', async () => {
    const open = await openInvoices(bed, 'IssuedInvoices');
    const [a, b] = open as { record: ApiRecord; rest: number }[];
    if (!a || !b) throw new Error('too few open invoices');
    const { entry, publisher } = actionFor(bed);
    const before = liquidationCount(bed);
    const bytes = camt('SK3112000000198742637541', 'EUR', [
      { id: 'S1', amount: a.rest, vs: String(a.record.VariableSymbol) },
      { id: 'S2', amount: 1, vs: String(b.record.VariableSymbol) },
      { id: 'S3', amount: 5, vs: '424242' },
    ]);
    const first = await runAll(entry, await imported(bytes, 'sk.xml', 'EUR'));
    const second = await runAll(entry, await imported(bytes, 'sk.xml', 'EUR'));
    expect(first.map((o) => o.status)).toEqual(['done', 'done', 'failed']);
    expect(second.map((o) => o.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(liquidationCount(bed) - before).toBe(2);
    expect(bed.sb.sandbox.server.domain.liquidations.bankDocuments.size).toBe(2);
    expect(await rest(bed, 'IssuedInvoices', a.record.Id)).toBe(0);
    expect(await rest(bed, 'IssuedInvoices', b.record.Id)).toBeCloseTo(b.rest - 1, 2);
    expect(
      recorded(publisher).map(
        (e) => (e.detail as { liquidation: { operation: string } }).liquidation.operation,
      ),
    ).toEqual(['BankDocuments.createReceiptWithLiquidation', 'BankDocuments.createReceiptWithLiquidation']);
  });
});
