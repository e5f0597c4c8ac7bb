/**
 * kill -9 during a statement import liquidates nothing twice and loses nothing: `run` (a child
 * process, against a cz sandbox that outlives it) imports a camt.053 statement dropped into its
 * folder, paying eight open invoices by their variable symbols; it is killed with SIGKILL as soon as
 * the sandbox has made the first liquidation, its other transactions not all liquidated yet. A
 * second `run` on the same data directory must liquidate every transaction of the statement exactly
 * once: the sandbox's own record of liquidations is the oracle (one per invoice, each for its rest).
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRun, until } from '#bench/payments-run.js';
import type { Sandbox } from '#sandbox/index.js';
import { listAll, type SandboxClient, startSandboxClient } from '../actions/support.js';

let sb: SandboxClient;
let sandbox: Sandbox;
let dir: string;
// Two child processes, the first killed mid-import; the restart may wait for a liquidation left in
// progress to expire (the route's 60 s timeout) before it finds that liquidation by its mark.
const TEST_TIMEOUT_MS = 300_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-bank-kill-'));
  sb = await startSandboxClient({ variant: 'cz', sizes: { documents: 80, partners: 8, perCollection: {} } });
  sandbox = sb.sandbox;
});

afterAll(async () => {
  await sb?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A camt.053 (ISO 20022, version 02) statement of booked credits, each with its symbol in EndToEndId. */
function camt053(account: string, txs: { id: string; amount: number; vs: string }[]): string {
  const entries = txs.map(
    (t) => `<Ntry><Amt Ccy="CZK">${t.amount.toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><AcctSvcrRef>${t.id}</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><AcctSvcrRef>${t.id}</AcctSvcrRef><EndToEndId>/VS/${t.vs}</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>KILL-1</MsgId></GrpHdr>
<Stmt><Id>KILL-1</Id><Acct><Id><IBAN>${account}</IBAN></Id><Ccy>CZK</Ccy></Acct>
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>`;
}

it(
  'a run killed with SIGKILL during a statement import liquidates every transaction once after its restart',
  async () => {
    // Eight open CZK invoices whose variable symbol no other open invoice shares.
    const czk = (await listAll(sb.client, 'Currencies')).find((c) => c.Code === 'CZK')?.Id;
    const open: { number: string; vs: string; rest: number }[] = [];
    for (const record of await listAll(sb.client, 'IssuedInvoices')) {
      const { RestToPay } = (await sb.client.call('IssuedInvoices.restToPay', {
        params: { id: record.Id },
      })) as { RestToPay: number };
      if (
        RestToPay > 0 &&
        (!record.CurrencyId || record.CurrencyId === czk) &&
        typeof record.VariableSymbol === 'string'
      )
        open.push({ number: String(record.DocumentNumber), vs: record.VariableSymbol, rest: RestToPay });
    }
    const unique = open.filter((o) => open.filter((p) => p.vs === o.vs).length === 1).slice(0, 8);
    expect(unique).toHaveLength(8);

    const statement = join(dir, 'statement.xml');
    await writeFile(
      statement,
      camt053(
        'CZ6508000000192000145399',
        unique.map((o, i) => ({ id: `KILL${String(i).padStart(6, '0')}`, amount: o.rest, vs: o.vs })),
      ),
    );
    const data = join(dir, 'data');
    const folder = join(data, 'bank-statements', 'sandbox');
    await mkdir(folder, { recursive: true });
    await copyFile(statement, join(folder, 'statement.xml'));

    const made = () => sandbox.server.domain.liquidations.payments.length;
    const before = made();
    const args = [
      '--no-sandbox',
      '--base-url',
      sandbox.baseUrl,
      '--json',
      '--no-console',
      '--data-dir',
      data,
      '--interval',
      '1s',
      '--collections',
      'IssuedInvoices',
    ];
    const env = {
      ACCOUNTING_API_KEY: sb.sandbox.credentials.apiKey,
      ACCOUNTING_SERVICE_VARIANT: 'cz',
      ACCOUNTING_CONNECTION: 'sandbox',
    };
    const first = startRun(args, env, dir);
    await until('the first liquidation', first, () => (made() > before ? true : undefined), 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = made() - before;
    expect(atKill).toBeGreaterThan(0);

    const second = startRun(args, env, dir);
    await until(
      'every transaction liquidated',
      second,
      () => (made() - before >= 8 ? true : undefined),
      200_000,
    );
    // Some time more for anything that would liquidate twice: the restart has handled its backlog.
    await until(
      'the payment action idle',
      second,
      () =>
        second.updates.filter((u) => u.kind === 'action' && /PaymentRecorded$/.test(String(u.detailType)))
          .length +
          atKill >=
        8
          ? true
          : undefined,
      120_000,
    );
    second.child.kill('SIGINT');
    await second.exited;

    const liquidations = sandbox.server.domain.liquidations.payments.slice(before);
    const perInvoice = new Map<string, number>();
    for (const l of liquidations)
      perInvoice.set(l.documentNumber, (perInvoice.get(l.documentNumber) ?? 0) + 1);
    expect(Object.fromEntries(perInvoice)).toEqual(Object.fromEntries(unique.map((o) => [o.number, 1])));
    for (const o of unique) {
      const l = liquidations.find((x) => x.documentNumber === o.number);
      expect(l?.amount, o.number).toBe(o.rest);
    }
  },
  TEST_TIMEOUT_MS,
);
