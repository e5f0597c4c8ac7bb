/**
 * The daily readiness report against a sandbox: the same report as `einvoice readiness` (its counts
 * equal the sandbox's ground truth for the last 90 days), written under its day's key, announced
 * with its counts; a second run of the day writes the same key and announces it with the same
 * idempotency key.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import type { ReadinessReport } from '#functions/core/einvoicing/readiness.js';
import { createManualClock } from '#functions/shared/clock.js';
import {
  recordingLogger,
  recordingPublisher,
  type SandboxClient,
  startSandboxClient,
} from '#test/actions/support.js';
import { loadActionsConfig } from '../actions-config.js';
import { readinessReportedSchema } from './events.js';
import { reportReadiness } from './report-readiness.js';

interface Truth {
  id: string;
  issueDate: string;
  b2b: boolean;
  verdict: null | { reason: 'SV' | 'BV'; ruleIds?: string[] };
}

const now = new Date();
const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
const DAY = new Date(today).toISOString().slice(0, 10);
let sb: SandboxClient;

beforeAll(async () => {
  sb = await startSandboxClient({
    seedAnchor: new Date(today + 86_400_000).toISOString(),
    sizes: { documents: 600, partners: 30, perCollection: {} },
  });
});
afterAll(async () => {
  await sb?.close();
});

async function text(body: Readable | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body ?? Readable.from([])) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

describe('the daily e-invoicing readiness report', () => {
  it('writes the report of the last 90 days under its day and announces its counts, once per day', async () => {
    const reports = createMemoryObjectStore();
    const publisher = recordingPublisher();
    const clock = createManualClock({ start: new Date(today + 12 * 3_600_000).toISOString() });
    const config = loadActionsConfig({ ACCOUNTING_CONNECTION: 'acme' });
    const deps = { api: sb.client, reports, publisher, clock, logger: recordingLogger(), config };

    const { key } = await reportReadiness(deps);
    expect(key).toBe(`reports/einvoicing/acme/${DAY}.json`);
    expect(reports.keys()).toEqual([key]);
    const report = JSON.parse(await text(await reports.get(key))) as ReadinessReport;

    const truth = (
      (await (await fetch(`${sb.sandbox.baseUrl}/_sandbox/einvoicing`)).json()) as { invoices: Truth[] }
    ).invoices;
    const from = new Date(today - 89 * 86_400_000).toISOString().slice(0, 10);
    expect(report.period.from.slice(0, 10)).toBe(from);
    const inPeriod = truth.filter((t) => t.issueDate.slice(0, 10) >= from && t.issueDate.slice(0, 10) <= DAY);
    const einvoiced = inPeriod.filter((t) => t.b2b);
    const blocked = einvoiced.filter((t) => t.verdict?.reason === 'BV');
    expect(report.policy).toBe('mandate-sk');
    expect(report.counts).toMatchObject({
      invoices: inPeriod.length,
      einvoice: einvoiced.length,
      blocked: blocked.length,
      ready: einvoiced.length - blocked.length,
    });
    expect(inPeriod.length).toBeGreaterThan(0);

    const [event] = publisher.ofType('EInvoicing.ReadinessReported');
    const detail = readinessReportedSchema.parse(event?.detail);
    expect(event?.source).toBe('accounting.acme');
    expect(detail).toMatchObject({
      connection: 'acme',
      id: DAY,
      reportKey: key,
      counts: report.counts,
      rules: report.rules,
      partnersToFix: report.partnersToFix.length,
      partnersWithoutDic: report.partnersWithoutDic.length,
    });

    // Run again the same day: the same key, the same idempotency key.
    clock.advance(3_600_000);
    await reportReadiness(deps);
    expect(reports.keys()).toEqual([key]);
    const events = publisher.ofType('EInvoicing.ReadinessReported');
    expect(events).toHaveLength(2);
    expect(new Set(events.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey)).size).toBe(1);
  }, 120_000);
});
