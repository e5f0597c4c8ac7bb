/** The benchmark's SVG charts: well-formed, one per figure, drawn from the results as they are. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { CHARTS, writeCharts } from '#bench/charts.js';
import { benchResultsSchema } from '#bench/results.js';
import { renderBarChart } from '#bench/svg-chart.js';

const results = benchResultsSchema.parse(
  JSON.parse(await readFile(new URL('../../bench/results/latest.json', import.meta.url), 'utf8')),
);

describe('bench charts', () => {
  it('writes one well-formed SVG per chart next to the results file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-charts-'));
    try {
      const written = await writeCharts(results, join(dir, 'run.json'));
      expect((await readdir(dir)).sort()).toEqual(
        Object.keys(CHARTS)
          .map((n) => `run-${n}.svg`)
          .sort(),
      );
      for (const path of written) {
        const svg = await readFile(path, 'utf8');
        expect(XMLValidator.validate(svg), path).toBe(true);
        expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('labels each bar with the measured figure', () => {
    const svg = renderBarChart(CHARTS['backfill-requests']!(results)!);
    for (const b of results.backfill) expect(svg).toContain(`${b.requests.toLocaleString('en-US')} requests`);
    expect(renderBarChart(CHARTS['naive-vs-ours']!(results)!)).toContain(
      `${results.baseline.requestsPerCycle.toLocaleString('en-US')} requests`,
    );
  });

  it('bars are proportional within a group and escape their text', () => {
    const svg = renderBarChart({
      title: 'a <b> & "c"',
      unit: 'x',
      groups: [
        {
          title: 'g',
          bars: [
            { label: 'half', value: 50 },
            { label: 'full', value: 100 },
          ],
        },
      ],
    });
    const widths = [...svg.matchAll(/<rect x="\d+" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths[1]! / widths[0]!).toBeCloseTo(2, 1);
    expect(svg).toContain('a &#60;b&#62; &#38; &#34;c&#34;');
    expect(XMLValidator.validate(svg)).toBe(true);
  });

  it('the committed charts are those of the committed results', async () => {
    for (const [name, chart] of Object.entries(CHARTS)) {
      const committed = await readFile(
        new URL(`../../bench/results/latest-${name}.svg`, import.meta.url),
        'utf8',
      );
      expect(committed, name).toBe(renderBarChart(chart(results)!));
    }
  });
});
