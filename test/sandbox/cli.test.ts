import { describe, expect, it } from 'vitest';
import {
  parseSandboxArgs,
  runSandboxCli,
  SandboxCliError,
  sandboxFlags,
  sandboxHelp,
} from '#sandbox/main.js';

describe('sandbox CLI', () => {
  it('lists every option in --help', async () => {
    const lines: string[] = [];
    const result = await runSandboxCli(['--help'], { stdout: (t) => lines.push(t), env: {} });
    expect(result).toBeUndefined();
    for (const name of Object.keys(sandboxFlags)) expect(sandboxHelp()).toContain(`--${name}`);
    expect(lines.join('\n')).toContain('--max-page-size');
  });

  it('parses flags into options, flags winning over env', () => {
    const options = parseSandboxArgs(
      [
        '--port',
        '0',
        '--seed',
        '5',
        '--documents',
        '1000',
        '--max-page-size',
        '50',
        '--precision',
        's',
        '--rate-limit',
        '10:5',
        '--random-5xx',
        '0.1',
        '--late-visibility-ms',
        '2000',
        '--activity',
        '2',
      ],
      { SANDBOX_SEED: '9', SANDBOX_PARTNERS: '7', SANDBOX_FAULTS: '{"clockSkewMs":-500}' },
    );
    expect(options).toMatchObject({
      port: 0,
      seed: 5,
      sizes: { documents: 1000, partners: 7 },
      maxPageSize: 50,
      timestampPrecision: 's',
      activity: { enabled: true, ratePerSecond: 2 },
      faults: {
        rateLimit: { capacity: 10, refillPerSecond: 5 },
        random5xxRate: 0.1,
        lateVisibilityMs: 2000,
        clockSkewMs: -500,
      },
    });
  });

  it('names the bad flag and what was expected', () => {
    expect(() => parseSandboxArgs(['--precision', 'ns'])).toThrow(SandboxCliError);
    expect(() => parseSandboxArgs(['--precision', 'ns'])).toThrow(/--precision/);
    expect(() => parseSandboxArgs(['--rate-limit', 'lots'])).toThrow(
      /--rate-limit: expected <capacity>:<refill per second>/,
    );
    expect(() => parseSandboxArgs(['--faults', '{"random5xxRate":3}'])).toThrow(/--faults: random5xxRate/);
    expect(() => parseSandboxArgs(['--bogus'])).toThrow(/bogus/);
    expect(() => parseSandboxArgs(['--partners', '300000'])).toThrow(/--partners/);
  });

  it('prints a banner of many companies, with the Shoptet twin and activity, in 80 columns', async () => {
    const lines: string[] = [];
    const sandbox = await runSandboxCli(
      [
        '--port',
        '0',
        '--companies',
        '12',
        '--documents',
        '5',
        '--partners',
        '2',
        '--shoptet-port',
        '0',
        '--activity',
        '0.5',
      ],
      { stdout: (t) => lines.push(t), env: {} },
    );
    try {
      const out = lines.join('\n');
      expect(out).toContain('12 companies');
      expect(out).toContain('shoptet twin listening');
      for (const line of out.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    } finally {
      await sandbox?.close();
    }
  });

  it('starts the sandbox and prints base URL, auth URL and the demo credentials', async () => {
    const lines: string[] = [];
    const sandbox = await runSandboxCli(['--port', '0', '--documents', '20', '--partners', '3'], {
      stdout: (t) => lines.push(t),
      env: {},
    });
    try {
      const out = lines.join('\n');
      expect(out).toContain(sandbox?.baseUrl);
      expect(out).toContain(`${sandbox?.authUrl}/connect/token`);
      expect(out).toContain('sandbox-api-key');
      expect(out).toContain('sandbox-client');
      // The banner fits an 80-column terminal (a five-digit port included).
      for (const line of out.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
      const res = await fetch(`${sandbox?.baseUrl}/v1/Banks?PageSize=1&PageNumber=1`, {
        headers: { 'Api-Key': 'sandbox-api-key' },
      });
      expect(res.status).toBe(200);
    } finally {
      await sandbox?.close();
    }
  });
});
