/**
 * The console's E-invoicing page: `run` (the Slovak sandbox, e-invoicing under the mandate by
 * default) serves the readiness report of its connection — the same report as `einvoice readiness`
 * (one reader in core) — and the page has its tab. The daily report is not run by the local timer:
 * no `EInvoicing.ReadinessReported` is published locally.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadinessReport } from '#functions/core/einvoicing/readiness.js';
import { runCli } from '#functions/local/cli.js';
import type { CommandContext } from '#functions/local/command.js';

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('e-invoicing readiness at the console', () => {
  let dataDir: string;
  let base: string;
  let token: string;
  const stop = new AbortController();
  let running: Promise<number>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-readiness-'));
    let log = '';
    let consoleUrl: string | undefined;
    const write = (text: string) => {
      log += text;
      consoleUrl ??= /console: (http:\/\/\S+)/.exec(log)?.[1];
    };
    const ctx: CommandContext = {
      stdout: { write, isTTY: false },
      stderr: { write, isTTY: false },
      env: { ACCOUNTING_SERVICE_VARIANT: 'sk', SANDBOX_ACTIVITY: '0' },
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

  it('serves the readiness report of the connection, and the page has its tab', async () => {
    const reports = await get<ReadinessReport[]>('/api/einvoicing/readiness');
    expect(reports.map((r) => [r.connection, r.policy])).toEqual([['sandbox', 'mandate-sk']]);
    const [report] = reports as [ReadinessReport];
    const { counts } = report;
    expect(counts.einvoice).toBe(counts.ready + counts.blocked);
    expect(counts.invoices).toBe(counts.einvoice + counts.email + counts.none);
    expect(report.blocked).toHaveLength(counts.blocked);
    for (const b of report.blocked) expect(b.rules.length, b.id).toBeGreaterThan(0);
    expect(report.rules.reduce((n, r) => n + r.invoices, 0)).toBeGreaterThanOrEqual(counts.blocked);
    const from = new Date(report.period.from).getTime();
    expect(Date.now() - from).toBeGreaterThan(89 * 86_400_000);
    expect(Date.now() - from).toBeLessThan(91 * 86_400_000);

    const page = await (await fetch(`${base}/?token=${token}`)).text();
    expect(page).toContain('data-tab="einvoicing"');
    expect(page).toContain('/api/einvoicing/readiness');

    // Some ticks of the local timer (1 s): the daily report is the console's, not the timer's.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await get<unknown[]>('/api/events?type=EInvoicing.ReadinessReported')).toEqual([]);
  }, 120_000);
});
