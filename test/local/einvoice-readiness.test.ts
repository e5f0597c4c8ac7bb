/**
 * `einvoice readiness` against a sandbox: its counts equal a count made from the sandbox's ground
 * truth (the network's own verdict on every issued invoice), its text fits 80 columns, and it
 * exits 0 whenever it produces the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadinessReport } from '#functions/core/einvoicing/readiness.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { cli } from './cli-harness.js';

interface Truth {
  id: string;
  issueDate: string;
  b2b: boolean;
  verdict: null | { reason: 'SV' | 'BV'; ruleIds?: string[] };
}

let sandbox: Sandbox;
const today = new Date();
const anchor = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1));

beforeAll(async () => {
  sandbox = await startSandbox({
    seedAnchor: anchor.toISOString(),
    sizes: { documents: 1200, partners: 40, perCollection: {} },
  });
});
afterAll(async () => {
  await sandbox.close();
});

const env = () => ({ ACCOUNTING_API_KEY: sandbox.credentials.apiKey, ACCOUNTING_CONNECTION: 'acme' });

describe('einvoice readiness', () => {
  it('--json: counts equal the sandbox ground truth, blocked invoices listed with their rule ids', async () => {
    const run = await cli(
      ['einvoice', 'readiness', '--since', '365d', '--json', '--base-url', sandbox.baseUrl],
      {
        env: env(),
      },
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReadinessReport;
    const truth: Truth[] = (
      (await (await fetch(`${sandbox.baseUrl}/_sandbox/einvoicing`)).json()) as { invoices: Truth[] }
    ).invoices;
    const from = report.period.from.slice(0, 10);
    const inPeriod = truth.filter((t) => t.issueDate.slice(0, 10) >= from);
    const einvoiced = inPeriod.filter((t) => t.b2b);
    // The pre-flight sees what the business rules see (BV); text the XML cannot carry (SV) only the network.
    const blocked = einvoiced.filter((t) => t.verdict?.reason === 'BV');
    expect(report.connection).toBe('acme');
    expect(report.policy).toBe('mandate-sk');
    expect(report.counts.invoices).toBe(inPeriod.length);
    expect(report.counts.einvoice).toBe(einvoiced.length);
    expect(report.counts.blocked).toBe(blocked.length);
    expect(report.counts.ready).toBe(einvoiced.length - blocked.length);
    expect(report.counts.none).toBe(inPeriod.length - einvoiced.length);
    expect(blocked.length).toBeGreaterThan(3);
    const byRule = new Map<string, number>();
    for (const t of blocked)
      for (const r of t.verdict?.ruleIds ?? []) byRule.set(r, (byRule.get(r) ?? 0) + 1);
    expect(Object.fromEntries(report.rules.map((r) => [r.rule, r.invoices]))).toEqual(
      Object.fromEntries(byRule),
    );
    expect(report.blocked.map((b) => [b.id, [...b.rules].sort()]).sort()).toEqual(
      blocked.map((t) => [t.id, [...(t.verdict?.ruleIds ?? [])].sort()]).sort(),
    );
    expect(report.partnersToFix.reduce((n, p) => n + p.invoices, 0)).toBe(blocked.length);
    expect(report.partnersWithoutDic.every((p) => p.channel === 'none')).toBe(true);
  });

  it('text: fits 80 columns, names the rules and the partners to fix', async () => {
    const run = await cli(['einvoice', 'readiness', '--since', '365d', '--base-url', sandbox.baseUrl], {
      env: env(),
    });
    expect(run.code).toBe(0);
    for (const line of run.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(run.stdout).toContain('E-invoicing readiness: acme, policy mandate-sk');
    expect(run.stdout).toContain('Blocked by rule');
    expect(run.stdout).toContain('Partners to fix first');
    expect(run.stdout).toContain('Partners without a DIČ');
  });

  it('refuses a period it cannot read, naming the flag', async () => {
    const run = await cli(['einvoice', 'readiness', '--since', 'soon', '--base-url', sandbox.baseUrl], {
      env: env(),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--since');
  });
});
