/**
 * A wrong API key against a service (the sandbox answers it 401): the run says so in one line,
 * naming the setting to check, once however many polls there are; the connection is shown
 * unhealthy in the live view; no backfill is reported done; and a run that never read anything
 * ends with exit code 1 at its `--duration`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT_CREDENTIALS } from '#functions/core/connections/connection-entry.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { applyUpdate, emptyFrameState, renderFrame } from '#functions/local/live-frame.js';
import { credentialsSettingOf } from '#functions/local/refused-credentials.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { cli } from './cli-harness.js';

let dir: string;
let sandbox: Sandbox;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'refused-credentials-'));
  sandbox = await startSandbox({ sizes: { documents: 10, partners: 3, perCollection: {} } });
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('refused credentials', () => {
  it('one line naming the setting, once over several polls; exit 1 at --duration', {
    timeout: 120_000,
  }, async () => {
    const run = await cli(
      [
        'run',
        '--no-sandbox',
        '--base-url',
        sandbox.baseUrl,
        '--interval',
        '500ms',
        '--duration',
        '4s',
        '--no-console',
        '--data-dir',
        join(dir, 'data'),
      ],
      { cwd: dir, env: { ACCOUNTING_API_KEY: 'not-the-key', ACCOUNTING_CONNECTION: 'acme' } },
    );
    const output = `${run.stdout}${run.stderr}`;
    // Several polls happened (a poll every 500 ms for 4 s), yet the refusal is said once.
    expect(output.match(/credentials refused/g)).toHaveLength(2);
    expect(run.stdout).toMatch(
      /connection acme: unhealthy: credentials refused \(401\): check ACCOUNTING_API_KEY\n/,
    );
    expect(run.stderr).toContain('error: nothing was read: credentials refused (acme)\n');
    // No per-collection repeats, no backfill "done", no count failures.
    expect(output).not.toMatch(/poll of \w+ failed/);
    expect(output).not.toContain('collection poll failed');
    expect(output).not.toContain('backfill count failed');
    expect(output).not.toMatch(/backfill: 0\/0|done: 0 records/);
    expect(output).not.toContain('not-the-key');
    expect(run.code).toBe(EXIT.failure);
    expect(output.split('\n').length).toBeLessThan(12);
  });

  it('the right key: the same run exits 0 and says nothing of credentials', {
    timeout: 120_000,
  }, async () => {
    const run = await cli(
      [
        'run',
        '--no-sandbox',
        '--base-url',
        sandbox.baseUrl,
        '--no-actions',
        '--duration',
        '2s',
        '--no-console',
        '--data-dir',
        join(dir, 'good'),
      ],
      { cwd: dir, env: { ACCOUNTING_API_KEY: sandbox.credentials.apiKey, ACCOUNTING_CONNECTION: 'acme' } },
    );
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(`${run.stdout}${run.stderr}`).not.toContain('credentials refused');
  });

  it('the live view shows the one connection unhealthy with the setting to check, not as done', () => {
    const state = emptyFrameState();
    applyUpdate(state, {
      kind: 'connection',
      connection: 'acme',
      state: 'unhealthy',
      reason: 'authentication',
      message: 'credentials refused (401): check ACCOUNTING_API_KEY',
    });
    const frame = renderFrame(state, { columns: 80, rows: 24 }, new Date()).join('\n');
    expect(frame).toContain('unhealthy: credentials refused (401): check ACCOUNTING_API_KEY');
    expect(frame).not.toContain('backfill');
    expect(state.warnings).toEqual([]);
  });

  it('the setting named: the environment’s for the configured connection, the entry’s secret otherwise', () => {
    const entry = (credentialsSecret: string) =>
      ({ name: 'acme', credentialsSecret }) as Parameters<typeof credentialsSettingOf>[0];
    expect(credentialsSettingOf(entry(DEPLOYMENT_CREDENTIALS), { ACCOUNTING_API_KEY: 'k' })).toBe(
      'ACCOUNTING_API_KEY',
    );
    expect(credentialsSettingOf(entry(DEPLOYMENT_CREDENTIALS), { ACCOUNTING_CLIENT_ID: 'c' })).toBe(
      'ACCOUNTING_CLIENT_ID, ACCOUNTING_CLIENT_SECRET, ACCOUNTING_SCOPE',
    );
    expect(credentialsSettingOf(entry('env:ACME_CREDENTIALS'), {})).toBe('ACME_CREDENTIALS');
    expect(credentialsSettingOf(entry('ssm:/ae/connections/acme'), {})).toBe('ssm:/ae/connections/acme');
  });
});
