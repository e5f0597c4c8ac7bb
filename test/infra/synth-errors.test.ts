/** `cdk synth` with bad or missing settings: one line per problem and exit 2, never a stack trace. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInfraConfig } from '#infra/config/load.js';
import { TEST_BASE_URL } from './support.js';

// A child process compiling the app: seconds on a quiet machine, many times that on a loaded one.
const SYNTH_TIMEOUT_MS = 180_000;

function synth(env: Record<string, string>) {
  const outdir = mkdtempSync(join(tmpdir(), 'synth-errors-'));
  try {
    return spawnSync(
      process.execPath,
      [join('node_modules', 'tsx', 'dist', 'cli.mjs'), join('infra', 'app.ts')],
      {
        env: { PATH: process.env.PATH, CDK_OUTDIR: outdir, ...env },
        encoding: 'utf8',
      },
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('cdk synth errors', () => {
  it(
    'no settings: the missing one in one line, with how to give it',
    () => {
      const run = synth({});
      expect(run.status).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(
          /^error: accountingBaseUrl \(context 'accountingBaseUrl' or ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL\): /,
        ),
        'Settings are given as `-c name=value` or ACCOUNTING_EVENTS_<NAME> (docs/deploy.md#configuration).',
      ]);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'a bad stage and a bad rate: one line each, nothing else',
    () => {
      const run = synth({
        ACCOUNTING_EVENTS_STAGE: 'Prod!',
        ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES: '0',
        ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL: TEST_BASE_URL,
      });
      expect(run.status).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(
        /^error: stage \(context 'stage' or ACCOUNTING_EVENTS_STAGE\): expected lowercase/,
      );
      expect(lines[1]).toMatch(/^error: scheduleRateMinutes \(context 'scheduleRateMinutes' or /);
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe('the default stage', () => {
  it('is trial, with no Object Lock: prod only when named', () => {
    const load = (context: Record<string, unknown>) =>
      loadInfraConfig({ context: (key) => ({ accountingBaseUrl: TEST_BASE_URL, ...context })[key], env: {} });
    expect(load({})).toMatchObject({ stage: 'trial', archiveRetentionMode: 'OFF' });
    expect(load({ stage: 'prod' })).toMatchObject({ stage: 'prod', archiveRetentionMode: 'GOVERNANCE' });
  });
});
