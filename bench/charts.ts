/**
 * The benchmark's charts, drawn from its results (`bench/results/*.json`): backfill requests
 * against the minimum, event throughput, change-to-event latency, the naive full scan against
 * ours, and what one of many connections costs a month. `npm run bench` writes them next to its JSON; `npm run bench:charts [-- FILE]` draws them
 * again from a results file without running anything.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { BenchResults } from './results.js';
import { benchResultsSchema } from './results.js';
import { type BarChart, PALETTE, renderBarChart } from './svg-chart.js';

const thousands = (n: number) => n.toLocaleString('en-US');

export function backfillRequestsChart(r: BenchResults): BarChart {
  return {
    title: 'Backfill: list requests against the minimum',
    subtitle: `minimum = Σ over polled collections of max(1, ceil(n / page size)); page size ${r.backfill[0]?.pageSize ?? '?'}`,
    unit: 'requests',
    groups: r.backfill.map((b) => ({
      title: `${thousands(b.documents)} documents (${b.seconds} s, peak RSS ${b.peakRssMb} MB)`,
      bars: [
        { label: 'ours', value: b.requests, colour: PALETTE[0] },
        { label: 'minimum', value: b.minimumRequests, colour: '#9aa5b1' },
      ],
    })),
  };
}

export function throughputChart(r: BenchResults): BarChart {
  return {
    title: 'Event throughput',
    subtitle:
      'backfill: events published per second; actions: outcomes per second at the routes’ concurrency',
    unit: '/s',
    groups: [
      {
        title: 'backfill (events/s)',
        bars: r.backfill.map((b, i) => ({
          label: `${thousands(b.documents)} documents`,
          value: b.eventsPerSecond,
          colour: PALETTE[i % PALETTE.length],
        })),
      },
      {
        title: 'actions',
        bars: [
          { label: 'ISDOC archives', value: r.actions.isdocArchivesPerSecond, colour: PALETTE[2] },
          { label: 'transfers', value: r.actions.transfersPerSecond, colour: PALETTE[3] },
        ],
      },
    ],
  };
}

export function latencyChart(r: BenchResults): BarChart {
  return {
    title: 'Change-to-event latency',
    subtitle: `publish time − the record’s ModifiedDate, polling every ${r.latency.intervalMs} ms under the activity generator`,
    unit: 'ms',
    groups: [
      {
        title: r.latency.distribution
          ? `percentiles of ${thousands(r.latency.distribution.samples)} changes`
          : 'percentiles',
        bars: r.latency.distribution
          ? Object.entries(r.latency.distribution.percentiles)
              .sort((a, b) => Number(a[0]) - Number(b[0]))
              .map(([p, ms]) => ({
                label: p === '100' ? 'max' : `p${p}`,
                value: ms,
                colour: Number(p) >= 95 ? PALETTE[1] : PALETTE[0],
              }))
          : [
              { label: 'p50', value: r.latency.p50Ms, colour: PALETTE[0] },
              { label: 'p95', value: r.latency.p95Ms, colour: PALETTE[1] },
            ],
      },
    ],
    marker: { value: r.latency.intervalMs + 2000, label: `target p95 ≤ ${r.latency.intervalMs + 2000} ms` },
  };
}

export function naiveChart(r: BenchResults): BarChart {
  const largest = r.backfill.at(-1);
  const ours =
    r.ratios.requestsPerCycle > 0 ? Math.round(r.baseline.requestsPerCycle / r.ratios.requestsPerCycle) : 0;
  return {
    title: 'Naive full scan against ours',
    subtitle: `${thousands(largest?.documents ?? 0)} documents; a cycle without changes costs the naive poller ${r.ratios.requestsPerCycle}× ours`,
    unit: '',
    groups: [
      {
        title: 'requests per cycle without changes',
        bars: [
          { label: 'ours', value: ours, text: `${ours} requests`, colour: PALETTE[0] },
          {
            label: 'naive',
            value: r.baseline.requestsPerCycle,
            text: `${thousands(r.baseline.requestsPerCycle)} requests`,
            colour: PALETTE[1],
          },
        ],
      },
      {
        title: 'first full read (seconds)',
        bars: [
          {
            label: 'ours (backfill)',
            value: largest?.seconds ?? 0,
            text: `${largest?.seconds ?? 0} s`,
            colour: PALETTE[0],
          },
          {
            label: 'naive (first scan)',
            value: r.baseline.seconds,
            text: `${r.baseline.seconds} s`,
            colour: PALETTE[1],
          },
        ],
      },
    ],
  };
}

/** What one connection costs a month, item by item (only when the run measured connections). */
export function connectionsCostChart(r: BenchResults): BarChart | undefined {
  const c = r.connections;
  if (!c) return undefined;
  return {
    title: `${thousands(c.count)} connections: cost per connection-month`,
    subtitle: `USD at ${typeof c.details.region === 'string' ? `${c.details.region} list prices (bench/prices.ts)` : 'us-east-1 list prices (an earlier price list)'}, from measured counts; total $${c.costPerConnectionMonthUsd}, ${c.requestsPerConnectionPerCycle} requests per connection per cycle`,
    unit: '$',
    groups: [
      {
        title: 'per item',
        bars: [...c.details.cost]
          .sort((a, b) => b.usd - a.usd)
          .map((l, i) => ({
            label: l.item,
            value: l.usd,
            text: `$${l.usd.toFixed(3)}`,
            colour: PALETTE[i % PALETTE.length],
          })),
      },
    ],
  };
}

export const CHARTS: Record<string, (r: BenchResults) => BarChart | undefined> = {
  'backfill-requests': backfillRequestsChart,
  throughput: throughputChart,
  latency: latencyChart,
  'naive-vs-ours': naiveChart,
  'connections-cost': connectionsCostChart,
};

/** Writes one SVG per chart next to `resultsFile` (`latest.json` → `latest-<chart>.svg`); returns their paths. */
export async function writeCharts(results: BenchResults, resultsFile: string): Promise<string[]> {
  const dir = dirname(resultsFile);
  const stem = basename(resultsFile).replace(/\.json$/, '');
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, chart] of Object.entries(CHARTS)) {
    const drawn = chart(results);
    if (!drawn) continue;
    const path = join(dir, `${stem}-${name}.svg`);
    await writeFile(path, renderBarChart(drawn));
    written.push(path);
  }
  return written;
}

/** `tsx bench/charts.ts [FILE]`: the charts of a results file (default bench/results/latest.json). */
async function main(): Promise<void> {
  const file = process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), 'results', 'latest.json');
  const results = benchResultsSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  for (const path of await writeCharts(results, file)) process.stdout.write(`wrote ${path}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) await main();
