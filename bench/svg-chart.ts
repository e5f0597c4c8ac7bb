/**
 * A small SVG writer for the benchmark's charts: horizontal bars in groups, each bar labelled with
 * its value, on a linear scale from zero (so sizes compare honestly). Plain SVG 1.1, no script, no
 * external font or style: it renders the same in a browser, on GitHub and in an image viewer.
 */

export interface Bar {
  label: string;
  value: number;
  /** Text after the bar; default the value with the chart's unit. */
  text?: string;
  colour?: string;
}

export interface BarGroup {
  title: string;
  bars: Bar[];
}

export interface BarChart {
  title: string;
  subtitle?: string;
  unit: string;
  groups: BarGroup[];
  /** A vertical reference line (e.g. a target) with its label. */
  marker?: { value: number; label: string };
}

const WIDTH = 720;
const LABEL_WIDTH = 190;
const VALUE_WIDTH = 140;
const BAR_HEIGHT = 18;
const BAR_GAP = 6;
const GROUP_GAP = 16;
const TOP = 58;
export const PALETTE = ['#2f6db5', '#e08a1e', '#3a9a5b', '#b5433a', '#7a59b0'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function formatValue(value: number, unit: string): string {
  const rounded =
    Math.abs(value) >= 100
      ? Math.round(value).toLocaleString('en-US')
      : String(Math.round(value * 100) / 100);
  return unit ? `${rounded} ${unit}` : rounded;
}

/** The chart as an SVG document. */
export function renderBarChart(chart: BarChart): string {
  const plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 20;
  // Each group has its own scale (its bars share a unit); a marker shares the first group's.
  const scaleOf = (group: BarGroup) =>
    Math.max(1e-9, ...group.bars.map((b) => b.value), chart.marker?.value ?? 0);
  let max = 1;
  const x = (v: number) => LABEL_WIDTH + (Math.max(0, v) / max) * plot;
  const parts: string[] = [];
  const top = TOP + (chart.marker ? 14 : 0);
  let y = top;
  for (const group of chart.groups) {
    max = scaleOf(group);
    parts.push(`<text x="12" y="${y + 12}" font-weight="bold">${escapeXml(group.title)}</text>`);
    y += 20;
    group.bars.forEach((bar, i) => {
      const colour = bar.colour ?? PALETTE[i % PALETTE.length];
      const w = Math.max(1, x(bar.value) - LABEL_WIDTH);
      parts.push(
        `<text x="${LABEL_WIDTH - 8}" y="${y + 13}" text-anchor="end">${escapeXml(bar.label)}</text>`,
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR_HEIGHT}" fill="${colour}"><title>${escapeXml(`${bar.label}: ${formatValue(bar.value, chart.unit)}`)}</title></rect>`,
        `<text x="${(LABEL_WIDTH + w + 6).toFixed(1)}" y="${y + 13}">${escapeXml(bar.text ?? formatValue(bar.value, chart.unit))}</text>`,
      );
      y += BAR_HEIGHT + BAR_GAP;
    });
    y += GROUP_GAP;
  }
  if (chart.marker && chart.groups[0]) {
    max = scaleOf(chart.groups[0]);
    const mx = x(chart.marker.value).toFixed(1);
    parts.push(
      `<line x1="${mx}" y1="${top - 6}" x2="${mx}" y2="${y - GROUP_GAP}" stroke="#b5433a" stroke-dasharray="4 3"/>`,
      `<text x="${mx}" y="${top - 10}" text-anchor="end" fill="#b5433a">${escapeXml(chart.marker.label)}</text>`,
    );
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12" role="img" aria-label="${escapeXml(chart.title)}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
    chart.subtitle ? `<text x="12" y="40" fill="#555555">${escapeXml(chart.subtitle)}</text>` : '',
    ...parts,
    '</svg>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
