/** The e-invoicing readiness report as text of at most 80 columns. */
import type { ReadinessReport } from '../core/einvoicing/readiness.js';

const WIDTH = 80;
const TOP = 10;

const clip = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);
const pad = (text: string, width: number) => clip(text, width).padEnd(width);
const percent = (part: number, whole: number) =>
  whole === 0 ? '0 %' : `${Math.round((part * 100) / whole)} %`;

/** Words of `text` filled into lines of `width`, each after `indent`. */
function fill(text: string, indent: string, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
    }
    line += line.length > indent.length ? ` ${word}` : word;
  }
  if (line.length > indent.length) lines.push(line);
  return lines.map((l) => clip(l, width));
}

export function formatReadiness(r: ReadinessReport): string {
  const c = r.counts;
  const out: string[] = [
    clip(`E-invoicing readiness: ${r.connection}, policy ${r.policy}`, WIDTH),
    clip(
      `Invoices issued ${r.period.from.slice(0, 10)} to ${r.period.to.slice(0, 10)}: ${c.invoices}`,
      WIDTH,
    ),
    `  e-invoice      ${String(c.einvoice).padStart(6)}`,
    `    ready        ${String(c.ready).padStart(6)}  ${percent(c.ready, c.einvoice)}`,
    `    blocked      ${String(c.blocked).padStart(6)}  ${percent(c.blocked, c.einvoice)}`,
    `  e-mail         ${String(c.email).padStart(6)}`,
    `  not sent       ${String(c.none).padStart(6)}`,
  ];
  if (r.rules.length > 0) {
    out.push('', 'Blocked by rule                                   invoices');
    for (const { rule, invoices } of r.rules) out.push(`  ${pad(rule, 48)}${String(invoices).padStart(8)}`);
  }
  if (r.partnersToFix.length > 0) {
    out.push('', 'Partners to fix first                             invoices');
    for (const p of r.partnersToFix.slice(0, TOP)) {
      out.push(`  ${pad(p.name ?? p.id ?? '(no name)', 48)}${String(p.invoices).padStart(8)}`);
      out.push(...fill(`${p.rules.join(', ')}: ${p.fields.join(', ')}`, '    '));
    }
    if (r.partnersToFix.length > TOP) out.push(`  … ${r.partnersToFix.length - TOP} more (--json lists all)`);
  }
  if (r.partnersWithoutDic.length > 0) {
    out.push('', 'Partners without a DIČ (not e-invoiced)           invoices  channel');
    for (const p of r.partnersWithoutDic.slice(0, TOP)) {
      out.push(
        `  ${pad(p.name ?? p.id ?? '(no name)', 48)}${String(p.invoices).padStart(8)}  ${p.channel === 'email' ? 'e-mail' : 'none'}`,
      );
    }
    if (r.partnersWithoutDic.length > TOP)
      out.push(`  … ${r.partnersWithoutDic.length - TOP} more (--json lists all)`);
  }
  if (r.notChecked.length > 0) {
    out.push(
      '',
      ...fill(
        `Checked by the network, not here (the seller is the service's set-up): ${r.notChecked.join(', ')}`,
        '',
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
