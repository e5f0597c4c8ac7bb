/**
 * Statements on the command line and in the watched folder, on the sandbox: `bank import` publishes
 * the statement's credits and runs the payment action (a payment it cannot match is reported, and a
 * second import of the file reports nothing new); a file that cannot be read changes nothing; a
 * file dropped into `<data dir>/bank-statements/<connection>/` is imported by `run` and moved aside.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun, until } from '#bench/payments-run.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { cli } from './cli-harness.js';

const camt = new URL('../fixtures/bank/camt053-001-02.xml', import.meta.url);
const env = { ACCOUNTING_SERVICE_VARIANT: 'cz' };
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-bank-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('bank import', () => {
  it('reports payments it cannot match, once however often the file is imported', async () => {
    const data = join(dir, 'data');
    const first = await cli(['bank', 'import', camt.pathname, '--data-dir', data], { cwd: dir, env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(EXIT.ok);
    expect(first.stdout).toContain(
      'camt053 statement of CZ6508000000192000145399: 3 credit transactions (3 other entries)',
    );
    expect(first.stdout).toContain('BankTransaction.Unmatched 3');
    const again = await cli(['bank', 'import', camt.pathname, '--data-dir', data], { cwd: dir, env });
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain('BankTransaction.Unmatched 0');
  }, 120_000);

  it('refuses a file it cannot read, naming the problem, and starts nothing', async () => {
    const bad = join(dir, 'bad.gpc');
    await writeFile(bad, '074 not a statement\n099 what\n');
    const data = join(dir, 'bad-data');
    const run = await cli(['bank', 'import', bad, '--data-dir', data], { cwd: dir, env });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('074: own account (positions 4-19) is empty');
    expect(existsSync(data)).toBe(false);
  });
});

describe('run watches <data dir>/bank-statements/<connection>/', () => {
  it('imports a dropped statement and moves it to imported/ (the sandbox connection is `sandbox`)', async () => {
    const data = join(dir, 'watched');
    const folder = join(data, 'bank-statements', 'sandbox');
    await mkdir(folder, { recursive: true });
    await copyFile(camt, join(folder, 'statement.xml'));
    const run = startRun(
      ['--data-dir', data, '--no-console', '--json', '--collections', 'IssuedInvoices'],
      env,
      dir,
    );
    try {
      // Each of the statement's three credits is reported unmatched by the payment action.
      const unmatched = () =>
        run.updates.filter((u) => u.kind === 'action' && u.detailType === 'BankTransaction.Unmatched');
      await until(
        'three unmatched transactions',
        run,
        () => (unmatched().length >= 3 ? true : undefined),
        100_000,
      );
      expect(await readdir(folder)).toEqual(['imported']);
      expect(await readdir(join(folder, 'imported'))).toEqual(['statement.xml']);
      expect(unmatched()).toHaveLength(3);
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  }, 120_000);
});
