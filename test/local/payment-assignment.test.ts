/**
 * A person assigns an unmatched bank transaction at the console: `run` imports a statement dropped in
 * its folder, the payment action reports the transactions it cannot match (`BankTransaction.Unmatched`),
 * the console lists them, and an assignment to an open invoice is the same action with a target —
 * one liquidation, after which the transaction leaves the list and a second assignment is refused.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#functions/local/cli.js';
import type { CommandContext } from '#functions/local/command.js';

const camt = new URL('../fixtures/bank/camt053-001-02.xml', import.meta.url);

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Unmatched {
  connection: string;
  id: string;
  reason: string;
  assignable: boolean;
  amount: number;
  currency: string;
}

describe('unmatched payments at the console', () => {
  let dataDir: string;
  let base: string;
  let token: string;
  const stop = new AbortController();
  let running: Promise<number>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-assign-'));
    const folder = join(dataDir, 'bank-statements', 'sandbox');
    await mkdir(folder, { recursive: true });
    await copyFile(camt, join(folder, 'statement.xml'));
    let log = '';
    let consoleUrl: string | undefined;
    const write = (text: string) => {
      log += text;
      consoleUrl ??= /console: (http:\/\/\S+)/.exec(log)?.[1];
    };
    const ctx: CommandContext = {
      stdout: { write, isTTY: false },
      stderr: { write, isTTY: false },
      env: { ACCOUNTING_SERVICE_VARIANT: 'cz', SANDBOX_ACTIVITY: '0' },
      cwd: process.cwd(),
      signal: stop.signal,
    };
    running = runCli(
      [
        'run',
        '--data-dir',
        dataDir,
        '--interval',
        '1s',
        '--console-port',
        '0',
        '--collections',
        'IssuedInvoices',
      ],
      ctx,
    );
    running.catch(() => {});
    const url = await waitFor('the console URL', async () => consoleUrl);
    base = url.slice(0, url.indexOf('/?'));
    token = new URL(url).searchParams.get('token') ?? '';
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await running;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  const get = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${base}${path}`, { headers: { 'x-console-token': token } });
    expect(r.status, path).toBe(200);
    return (await r.json()) as T;
  };
  const assign = (body: unknown) =>
    fetch(`${base}/api/payments/assign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-console-token': token, origin: base },
      body: JSON.stringify(body),
    });

  it('lists the unmatched, and an assignment liquidates one invoice once', async () => {
    const unmatched = await waitFor('three unmatched transactions', async () => {
      const list = await get<Unmatched[]>('/api/payments/unmatched');
      return list.length === 3 ? list : undefined;
    });
    expect(unmatched.every((u) => u.connection === 'sandbox' && u.assignable && u.amount > 0)).toBe(true);
    const [first] = unmatched;
    if (!first) throw new Error('no unmatched transaction');

    // An invoice still to pay: the payment detector reports the overdue ones on its first run.
    const overdue = await waitFor('an overdue invoice', async () => {
      const events = await get<{ id: string }[]>('/api/events?type=IssuedInvoice.Overdue');
      return events[0];
    });
    const { event } = await get<{ event: { detail: { id: string; restToPay: number; currencyId: string } } }>(
      `/api/events/${overdue.id}`,
    );
    expect(event.detail.restToPay).toBeGreaterThan(0);

    // Bad input is refused with the field named, and changes nothing.
    const bad = await assign({
      connection: 'sandbox',
      id: first.id,
      target: { recordType: 'Invoice', id: 'x' },
    });
    expect(bad.status).toBe(400);
    // In the page's words: the form's field names, not the API's.
    const refusal = ((await bad.json()) as { error: string }).error;
    expect(refusal).toMatch(/^invoice kind: .*expected one of "IssuedInvoice"\|"IssuedAdvanceInvoice"$/m);
    expect(refusal).toMatch(/^invoice Id: expected a GUID/m);
    const unknown = await assign({
      connection: 'sandbox',
      id: '00000000-0000-4000-8000-000000000000',
      target: { recordType: 'IssuedInvoice', id: event.detail.id },
    });
    expect(unknown.status).toBe(404);

    const target = { recordType: 'IssuedInvoice', id: event.detail.id };
    const ok = await assign({ connection: 'sandbox', id: first.id, target });
    expect(ok.status).toBe(200);
    const recorded = await waitFor('the payment recorded', async () => {
      const events = await get<{ id: string }[]>('/api/events?type=IssuedInvoice.PaymentRecorded');
      return events[0];
    });
    const detail = (
      await get<{ event: { detail: { bankTransactionId: string; assigned: boolean; id: string } } }>(
        `/api/events/${recorded.id}`,
      )
    ).event.detail;
    expect(detail).toMatchObject({ bankTransactionId: first.id, assigned: true, id: event.detail.id });

    // Settled: it leaves the list, and assigning it again is refused.
    const left = await get<Unmatched[]>('/api/payments/unmatched');
    expect(left.map((u) => u.id).sort()).toEqual(
      unmatched
        .slice(1)
        .map((u) => u.id)
        .sort(),
    );
    const again = await assign({ connection: 'sandbox', id: first.id, target });
    expect(again.status).toBe(404);
    const recordedAll = await get<unknown[]>('/api/events?type=IssuedInvoice.PaymentRecorded');
    expect(recordedAll).toHaveLength(1);
  }, 180_000);
});
