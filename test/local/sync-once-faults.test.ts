/**
 * `sync --once` against a service whose lists partly fail: the sandbox answers every request of
 * two collections with a 5xx (fault injection) and the others normally. Two runs on fresh data
 * directories print the same summary — the same collections counted as failed, named in the same
 * order, the same counts of events and requests — and exit 1; no count depends on how the polls
 * were scheduled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT } from '#functions/local/exit-codes.js';
import { cli } from './cli-harness.js';

const env = {
  SANDBOX_DOCUMENTS: '60',
  SANDBOX_FAULTS: JSON.stringify({
    random5xxRate: 1,
    statuses5xx: [500, 503],
    pathPattern: '^/v1/(IssuedInvoices|ReceivedOrders)(\\?|$)',
  }),
  ACCOUNTING_MAX_ATTEMPTS: '2',
  ACCOUNTING_RETRY_BASE_DELAY_MS: '10',
  ACCOUNTING_RETRY_MAX_DELAY_MS: '20',
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-sync-faults-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('prints the same summary on two runs against a partly failing service', { timeout: 240_000 }, async () => {
  const runs = [];
  for (const name of ['first', 'second']) {
    runs.push(await cli(['sync', '--once', '--data-dir', join(dir, name)], { cwd: dir, env }));
  }
  const summaries = runs.map((r) => r.stdout.trim().split('\n').slice(-2).join('\n'));
  for (const run of runs) expect(run.code, run.stderr).toBe(EXIT.failure);
  expect(summaries[0]).toMatch(
    /^\d+ events from \d+ collections in \d+ requests\n3 collections failed: IssuedInvoices, IssuedInvoices\/Unpaid, ReceivedOrders$/,
  );
  expect(summaries[1]).toBe(summaries[0]);
  // Without a terminal each update is a line with its time: the events, sorted, are the same,
  // and so is what follows them (the table of events per detail-type and the summary).
  const lines = (stdout: string) => stdout.trim().split('\n');
  const timed = /^\d\d:\d\d:\d\d\.\d{3} /;
  const events = (stdout: string) =>
    lines(stdout)
      .filter((l) => timed.test(l) && l.includes(' event '))
      .map((l) => l.replace(timed, ''))
      .sort();
  const report = (stdout: string) => lines(stdout).filter((l) => !timed.test(l));
  expect(events(runs[0]!.stdout).length).toBeGreaterThan(0);
  expect(events(runs[1]!.stdout)).toEqual(events(runs[0]!.stdout));
  expect(report(runs[0]!.stdout)[0]).toMatch(/^DETAIL-TYPE +EVENTS$/);
  expect(report(runs[1]!.stdout)).toEqual(report(runs[0]!.stdout));
});
