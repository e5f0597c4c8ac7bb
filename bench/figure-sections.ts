/**
 * The figure sections of README.md and docs/*.md, each rendered from one committed result file:
 * `bench/results/latest.json` (the benchmark), `console.json` (the console's cost), `intake.json`
 * (the intake). What a section says besides its figures is fixed text; the figures come from the file.
 */
import type { BenchResults } from './results.js';

const int = (n: number) => n.toLocaleString('en-US');
const fixed = (n: number, digits: number) => n.toFixed(digits);
const range = (values: number[], digits = 0) =>
  `${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)}`;
const metOr = (met: boolean, otherwise = 'NO') => (met ? 'met' : otherwise);

type Connections = NonNullable<BenchResults['connections']>;
interface ConnectionDetails {
  collectionsPerConnection: number;
  idleRequestsPerConnectionPerCycle: number;
  detection?: { p50Ms: number; p95Ms: number };
  cost: Array<{ item: string; usd: number }>;
  cycleMs?: number[];
  seconds?: number;
  loadAverage?: { start: number[]; end: number[] };
}

function connectionsRow(c: Connections, paymentLists: number): string {
  const d = c.details as unknown as ConnectionDetails;
  const polled = d.collectionsPerConnection + paymentLists;
  const top = [...d.cost].sort((a, b) => b.usd - a.usd).slice(0, 2);
  const how = [
    d.loadAverage
      ? `load average ${d.loadAverage.start[0]} at the start, ${d.loadAverage.end[0]} at the end`
      : '',
    d.seconds ? `${fixed(d.seconds / 60, 1)} min` : '',
  ].filter(Boolean);
  const measured = [
    `${Math.round(c.requestsPerConnectionPerCycle)} requests per connection per cycle (${d.collectionsPerConnection} collections + ${paymentLists} payment lists)`,
    d.cycleMs
      ? `the longest invocation ${range(
          d.cycleMs.map((ms) => ms / 1000),
          1,
        )} s billed`
      : '',
    d.detection ? `change → bus p95 ${fixed(d.detection.p95Ms / 1000, 1)} s` : '',
    `$${c.costPerConnectionMonthUsd} per connection-month — ${top.map((t) => `${t.item} $${fixed(t.usd, 3)}`).join(' and ')} first ([deploy.md](deploy.md#many-connections) has every item)`,
  ].filter(Boolean);
  const targets = [
    `idle requests = polled collections + payment lists (${polled}) — ${metOr(d.idleRequestsPerConnectionPerCycle <= polled)}`,
    d.detection ? `change → bus p95 ≤ 75 s — ${metOr(d.detection.p95Ms <= 75_000)}` : '',
    `cost ≤ $0.03 — ${metOr(c.costPerConnectionMonthUsd <= 0.03, 'not met')}`,
  ].filter(Boolean);
  return `| ${int(c.count)} connections (\`connections\`, measured apart by \`bench/connections-child.ts --count ${c.count}\`${how.length ? `: ${how.join(', ')}` : ''}) | ${measured.join(', ')} | ${targets.join('; ')} |`;
}

function bundlesRow(r: BenchResults): string {
  const largest = [...r.bundles].sort((a, b) => b.bytes - a.bytes)[0];
  const within = r.bundles.filter((b) => b.bytes <= 1_500_000).length;
  const cold = r.bundles.map((b) => b.coldImportMs);
  const coldMet = cold.every((ms) => ms <= 200);
  return `| bundles | ${r.bundles.length} entries, whole assets (the table below) | ≤ 1,500,000 bytes — ${within === r.bundles.length ? `met by all ${within}` : `NO: ${r.bundles.length - within} over`}${largest ? ` (largest: ${largest.name} ${int(largest.bytes)})` : ''}; cold import ≤ 200 ms — ${coldMet ? 'met' : `not met here (${range(cold)} ms on 2 shared cores: compare quiet runs only)`} |`;
}

/** The figure table of docs/local.md, from `bench/results/latest.json`. */
export function renderBenchTable(r: BenchResults): string {
  const rows = ['| figure | measured | target |', '|---|---|---|'];
  rows.push(
    `| idle requests per collection per cycle | ${fixed(r.idle.requestsPerCollectionPerCycle, 1)} | 1.0 — ${metOr(r.idle.requestsPerCollectionPerCycle <= 1)} |`,
  );
  const p = r.idle.payments;
  if (p) {
    const slow = p.slowerCadence;
    rows.push(
      `| idle requests per payment list per cycle (payments on; \`--only idle\`) | ${fixed(p.requestsPerPaymentListPerCycle, 1)} (${p.requestsPerCycle} per cycle in all for ${p.requestsPerCycle - p.paymentLists * p.requestsPerPaymentListPerCycle} collections); checked every ${slow.paymentIntervalSeconds} s at a ${slow.pollIntervalSeconds} s poll: ${slow.requestsPerPaymentListPerCycle} | 1.0 — ${metOr(p.requestsPerPaymentListPerCycle <= 1)}; fewer on the slower cadence — ${metOr(slow.requestsPerPaymentListPerCycle < 1)} |`,
    );
  }
  const backfills = [...r.backfill].sort((a, b) => a.documents - b.documents);
  for (const b of backfills) {
    const ratio = b.requests / b.minimumRequests;
    rows.push(
      `| backfill ${b.documents / 1000}k: requests / minimum | ${b.requests} / ${b.minimumRequests} = ${fixed(ratio, 2).replace(/0$/, '')} (${b.seconds} s, ${int(b.eventsPerSecond)} events/s, peak RSS ${b.peakRssMb} MB) | ≤ 1.02 — ${metOr(ratio <= 1.02)} |`,
    );
  }
  const [small, large] = [backfills[0], backfills[backfills.length - 1]];
  if (small && large && small !== large) {
    const ratio = large.peakRssMb / small.peakRssMb;
    rows.push(
      `| peak RSS ${large.documents / 1000}k / ${small.documents / 1000}k | ${fixed(ratio, 2)} (it varies between runs: see below) | ≤ 1.2 — ${ratio <= 1.2 ? 'met in this run, not in every run' : 'NO'} |`,
    );
  }
  const l = r.latency;
  rows.push(
    `| change-to-event latency | p50 ${l.p50Ms} ms, p95 ${l.p95Ms} ms at a ${l.intervalMs / 1000} s interval | p95 ≤ ${(l.intervalMs + 2000) / 1000} s — ${metOr(l.p95Ms <= l.intervalMs + 2000)} |`,
  );
  const largest = large?.documents ?? 0;
  rows.push(
    `| naive full scan, ${largest / 1000}k | ${r.baseline.requestsPerCycle} requests per cycle, first scan ${r.baseline.seconds} s | |`,
  );
  const ours = Math.round(r.baseline.requestsPerCycle / r.ratios.requestsPerCycle);
  const pageSize = large?.pageSize ?? 100;
  rows.push(
    `| naive / ours per cycle | ${r.baseline.requestsPerCycle} / ${ours} = ${r.ratios.requestsPerCycle} (ours once the lookback has passed after the backfill) | ≥ 100 — ${r.ratios.requestsPerCycle >= 100 ? 'met' : `not met, and not reachable here: with ${ours} polled collections at ${pageSize} per page, ours costs at least ${ours} and the naive scan ${r.baseline.requestsPerCycle}, so the ceiling is ${r.ratios.requestsPerCycle} at ${largest / 1000}k documents (≥ 100 needs about ${(100 * ours * pageSize) / 1000}k)`} |`,
  );
  rows.push(
    `| actions | ${r.actions.isdocArchivesPerSecond} ISDOC archives/s, ${r.actions.transfersPerSecond} transfers/s | |`,
  );
  rows.push(bundlesRow(r));
  if (r.connections) rows.push(connectionsRow(r.connections, p?.paymentLists ?? 0));
  return rows.join('\n');
}

/** The bundle table of docs/local.md, largest first; an entry no longer built is said to be. */
export function renderBundleTable(r: BenchResults, entries: readonly string[]): string {
  const exists = (name: string) => entries.includes(name);
  const unmeasured = entries.filter((name) => !r.bundles.some((b) => b.name === name));
  const rows = [
    'Lambda assets, every file counted (key `bundles`; `npm run bench -- --only bundles` measures them again):',
    '',
    '| entry | asset bytes | index.mjs | beside it | cold import |',
    '|---|---|---|---|---|',
  ];
  for (const b of [...r.bundles].sort((a, b) => b.bytes - a.bytes)) {
    const files = b.files ?? { 'index.mjs': b.bytes };
    const beside = Object.entries(files).filter(([name]) => name !== 'index.mjs');
    const name = exists(b.name) ? b.name : `${b.name} (no longer built)`;
    rows.push(
      `| ${name} | ${int(b.bytes)} | ${files['index.mjs'] === undefined ? '—' : int(files['index.mjs'])} | ${beside.length ? beside.map(([f, n]) => `\`${f}\` ${int(n)}`).join(', ') : '—'} | ${b.coldImportMs} ms |`,
    );
  }
  if (unmeasured.length)
    rows.push(
      '',
      `Built today but not in this run (measured by the next \`--only bundles\`): ${unmeasured.map((n) => `\`${n}\``).join(', ')}.`,
    );
  return rows.join('\n');
}

export interface ConsoleFigures {
  measuredAt: string;
  documents: number;
  rounds: number;
  eventsPerSecond: { withoutConsole: number; withConsoleOpen: number };
  changePercent: number;
  runs: Array<{ console: boolean; events: number; perSecond: number }>;
}

/** README.md's console cost, from `bench/results/console.json`. */
export function renderConsoleCost(c: ConsoleFigures): string {
  const perSecond = (open: boolean) => c.runs.filter((r) => r.console === open).map((r) => r.perSecond);
  const sign = c.changePercent < 0 ? '−' : '+';
  return `Measured ${c.measuredAt.slice(0, 10)}, ${c.documents.toLocaleString('en-US')} documents, ${c.rounds} rounds: median **${c.eventsPerSecond.withoutConsole} events/s without the console, ${c.eventsPerSecond.withConsoleOpen} with it open (${sign}${Math.abs(c.changePercent)} %)**, single runs ${range(perSecond(false))} and ${range(perSecond(true))} events/s.`;
}

export interface IntakeFigures {
  orders: number;
  endpointAlone202: { p50Ms: number; p95Ms: number; p99Ms: number };
  withImports202: { p50Ms: number; p95Ms: number; p99Ms: number };
  sequential202: { p50Ms: number; p95Ms: number };
  concurrent8x202: { p50Ms: number; p95Ms: number };
  importsPerSecond: number;
  importedOrders: number;
  createdReceivedOrders: number;
}

/** docs/intake.md's figure table, from `bench/results/intake.json`. */
export function renderIntakeTable(i: IntakeFigures): string {
  return [
    `| figure (${i.orders} signed Shopify orders) | last run |`,
    '|---|---|',
    `| 202 answer, endpoint alone (imports held back): p50 / p95 / p99 | ${i.endpointAlone202.p50Ms} / ${i.endpointAlone202.p95Ms} / ${i.endpointAlone202.p99Ms} ms |`,
    `| 202 answer while the imports run in the same process: p50 / p95 / p99 | ${i.withImports202.p50Ms} / ${i.withImports202.p95Ms} / ${i.withImports202.p99Ms} ms |`,
    `| … sequential: p50 / p95 · 8 in flight: p50 / p95 | ${i.sequential202.p50Ms} / ${i.sequential202.p95Ms} ms · ${i.concurrent8x202.p50Ms} / ${i.concurrent8x202.p95Ms} ms |`,
    `| imports into the sandbox (2 at a time, through the client, intake records in dynalite) | ${i.importsPerSecond} orders/s |`,
    `| accepted orders → received orders | ${i.importedOrders} → ${i.createdReceivedOrders} |`,
  ].join('\n');
}
