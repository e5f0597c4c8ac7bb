/**
 * One source for each figure of the docs: every generated section of README.md and docs/*.md holds
 * what `bench/doc-figures.ts` renders from the committed result files now, and no doc quotes a cost,
 * a percentile, a median or a bundle size outside them unless the allow-list below names the line
 * and its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIGURE_SECTIONS, readResultFiles, sectionText } from '#bench/doc-figures.js';
import { type AllowedFigures, scanFigures, unusedAllowances } from '#bench/figure-scan.js';
import { PRICES } from '#bench/prices.js';
import { BUNDLE_LIMIT_BYTES } from '#scripts/bundle-function.mjs';

const ROOT = new URL('../../', import.meta.url);
const DOCS = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].map((file) => ({ file, text: readFileSync(new URL(file, ROOT), 'utf8') }));

const usd2 = (n: number) => `$${n.toFixed(2)}`;
const LIMIT_MB = `${BUNDLE_LIMIT_BYTES / 1_000_000} MB`;
const LIMIT_BYTES = BUNDLE_LIMIT_BYTES.toLocaleString('en-US');
const THE_LIMIT = `the asset limit of every function (BUNDLE_LIMIT_BYTES of scripts/bundle-function.mjs), not a measurement`;

/** What may be quoted outside the generated sections, and why. Prices are computed from bench/prices.ts. */
/** A line of docs/deploy.md that quotes an AWS price of bench/prices.ts. */
const priceOn = (line: string, figure: string, what: string): AllowedFigures => ({
  file: 'docs/deploy.md',
  line,
  figures: [figure],
  reason: `${what}, from bench/prices.ts`,
});

const ALLOWED: readonly AllowedFigures[] = [
  { file: 'docs/deploy.md', line: LIMIT_MB, figures: [LIMIT_MB], reason: THE_LIMIT },
  { file: 'docs/deploy.md', line: LIMIT_BYTES, figures: [LIMIT_BYTES], reason: THE_LIMIT },
  { file: 'docs/local.md', line: `≤ ${LIMIT_BYTES}`, figures: [LIMIT_BYTES], reason: THE_LIMIT },
  {
    file: 'docs/deploy.md',
    line: 'Before: the archive',
    reason: 'history: the sizes before the bundle changes that brought every asset under the limit',
  },
  {
    file: 'docs/local.md',
    line: 'Before (same handlers',
    reason: 'history: the sizes before the bundle changes that brought every asset under the limit',
  },
  priceOn('| `dashboard` |', `$${PRICES.cloudWatchDashboardMonth}`, 'the AWS price of a dashboard'),
  priceOn('| `customerManagedKey` |', `$${PRICES.kmsKeyMonth}`, 'the AWS price of a customer managed key'),
  priceOn(
    'ConnectionCollectionsFailed`;',
    usd2(4 * PRICES.customMetricMonth),
    'four custom metrics at the AWS price of one',
  ),
  priceOn('full ARN (', usd2(PRICES.secretsManagerSecretMonth), 'the AWS price of a secret'),
  priceOn(
    '`alias/accounting-events-<stage>/sealing-keys`, $',
    `$${PRICES.kmsKeyMonth}`,
    'the AWS price of a customer managed key (the sealing key)',
  ),
  priceOn(
    "the sealing key's $",
    `$${PRICES.kmsKeyMonth}`,
    'the AWS price of a customer managed key (the sealing key)',
  ),
  priceOn(
    'then ask Cost Explorer (each request',
    `$${PRICES.costExplorerRequest}`,
    'the AWS price of a Cost Explorer request',
  ),
  {
    file: 'docs/deploy.md',
    section: '## Monthly cost, estimated on paper',
    reason:
      'a paper estimate of an assumed workload, not a measurement: its rows must add up to its total (tested below) and no other doc quotes it',
  },
];

describe('the generated figure sections', () => {
  it('hold what bench/doc-figures.ts renders from the committed results now', async () => {
    const results = await readResultFiles(ROOT);
    for (const section of FIGURE_SECTIONS) {
      const doc = DOCS.find((d) => d.file === section.file)?.text ?? '';
      const held = sectionText(doc, section);
      expect(held, `${section.file} has no markers of ${section.name}`).toBeDefined();
      expect(
        held === section.render(results),
        `${section.file}: the figures section ${section.name} differs from ${section.source}; run: npx tsx bench/doc-figures.ts`,
      ).toBe(true);
    }
  });
});

describe('figures outside the generated sections', () => {
  it('are none in README.md and docs/*.md but the allowed ones', () => {
    const found = DOCS.flatMap((d) => scanFigures(d.file, d.text, ALLOWED)).map(
      (f) => `${f.file}:${f.line}: ${f.kind} ${f.figure}`,
    );
    expect(found, 'generate the figure (bench/doc-figures.ts) or point to the generated table').toEqual([]);
  });

  it('the allow-list has no stale entry', () => {
    expect(unusedAllowances(DOCS, ALLOWED)).toEqual([]);
  });

  it('the paper estimate adds up to its total', () => {
    const deploy = DOCS.find((d) => d.file === 'docs/deploy.md')?.text ?? '';
    const start = deploy.indexOf('## Monthly cost, estimated on paper');
    const lines = deploy.slice(start).split('\n');
    const end = lines.findIndex((l, i) => i > 0 && l.startsWith('## '));
    const rows = lines.slice(0, end).filter((l) => /^\| .* \| \*{0,2}≈? ?\$[\d.]+\*{0,2} \|$/.test(l));
    const amount = (row: string) => Number(/\$([\d.]+)\**\s*\|$/.exec(row)?.[1]);
    const total = rows.find((r) => r.startsWith('| **total**'));
    expect(total, 'the paper table has a total row').toBeDefined();
    const items = rows.filter((r) => r !== total);
    expect(items.length).toBeGreaterThan(10);
    const sum = items.reduce((s, r) => s + amount(r), 0);
    expect(Math.abs(sum - amount(total ?? '')), `rows add up to $${sum.toFixed(2)}`).toBeLessThan(0.005);
  });
});

describe('scanFigures', () => {
  // The disagreements of issue 38, as the docs then read.
  const README = [
    'polled collection), cycle p95 4.5 s (its longest invocation), and **$0.0411 per',
    'connection-month** — item by item in [docs/deploy.md](docs/deploy.md#many-connections).',
    'a default single-company deployment comes to about $4.34 a month on paper). Configuration:',
  ].join('\n');
  const LOCAL =
    '| 1,000 connections (`connections`, 4.6 min of the run) | 12 requests per connection per cycle, cycle p95 40.6 s (28–41 s), $2.17 per connection-month | met |';
  const DEPLOY = ['| item | arithmetic | per month |', '|---|---|---|', '| **total** | | **≈ $4.31** |'].join(
    '\n',
  );

  it("finds the issue's examples: $0.0411 and p95 4.5 s against $2.17 and 40.6 s, $4.34 against $4.31", () => {
    const figures = [
      ...scanFigures('README.md', README),
      ...scanFigures('docs/local.md', LOCAL),
      ...scanFigures('docs/deploy.md', DEPLOY),
    ].map((f) => `${f.file}:${f.line} ${f.kind} ${f.figure}`);
    expect(figures).toEqual([
      'README.md:1 cost $0.0411',
      'README.md:1 percentile p95 4.5 s',
      'README.md:3 cost $4.34',
      'docs/local.md:1 cost $2.17',
      'docs/local.md:1 percentile p95 40.6 s',
      'docs/deploy.md:3 cost $4.31',
    ]);
  });

  it('finds medians in ms and bundle sizes, not other sizes or counts', () => {
    const text = [
      'The schema compiles once (then a median of 0.2 ms per invoice).',
      '',
      'Each bundle grows by about 120 KB; poll-connections 974,814 bytes.',
      '',
      'A DynamoDB item holds 400 KB; 1,000 connections; 10,000 ids.',
    ].join('\n');
    expect(scanFigures('docs/x.md', text).map((f) => `${f.line} ${f.kind} ${f.figure}`)).toEqual([
      '1 median median of 0.2 ms',
      '3 bundle size 120 KB',
      '3 bundle size 974,814',
    ]);
  });

  it('skips generated sections, and allows only the figures an entry names', () => {
    const text = [
      '<!-- figures:bench generated by bench/doc-figures.ts from bench/results/latest.json -->',
      '| cost | $0.2256 |',
      '<!-- figures:bench end -->',
      'A dashboard costs $3 a month, and this one $9.99.',
    ].join('\n');
    const allow = [{ file: 'docs/x.md', line: 'A dashboard', figures: ['$3'], reason: 'a price' }];
    expect(scanFigures('docs/x.md', text, allow).map((f) => f.figure)).toEqual(['$9.99']);
    expect(unusedAllowances([{ file: 'docs/x.md', text: 'no figure here' }], allow)).toEqual(allow);
  });

  it('refuses a generated section without its end marker', () => {
    expect(() =>
      scanFigures('docs/x.md', '<!-- figures:bench generated by bench/doc-figures.ts from x -->\n$1'),
    ).toThrow(/no end marker/);
  });
});
