/**
 * What the local runtime shows while it runs. Two renderers of the same updates:
 * - the live view: plain ANSI, redrawn in place a few times a second (a TTY, without --json);
 * - line logs: one line per update (pretty when not a TTY, JSON with --json).
 * Nothing secret reaches either: updates carry event fields, counts and durations only.
 */
import type { Output } from './command.js';

export interface EventUpdate {
  kind: 'event';
  detailType: string;
  id: string;
  documentNumber?: string | undefined;
  /** Extra text for action outcomes: S3 key, e-invoice status, target document. */
  note?: string | undefined;
  /** When the record changed at the service (`modifiedDate`), for change-to-event latency. */
  modifiedDate?: string | undefined;
  at: Date;
}

export type RuntimeUpdate =
  | {
      kind: 'started';
      service: string;
      sandbox: boolean;
      dataDir: string;
      collections: readonly string[];
      intervalMs: number;
      actions: readonly string[];
      s3Endpoint?: string;
    }
  | EventUpdate
  | { kind: 'poll'; at: Date; durationMs: number; events: number; requests?: number }
  | { kind: 'backfill'; done: number; total: number }
  | { kind: 'action'; route: string; ok: boolean; detailType: string; id: string; message?: string }
  | { kind: 'warning'; message: string; data?: Record<string, unknown> }
  | { kind: 'stopping'; reason: string }
  | { kind: 'stopped'; published: number };

export interface View {
  update(update: RuntimeUpdate): void;
  /** Stops redrawing and leaves the last frame (or a summary line) on screen. */
  close(): void;
}

/** Short text describing an action outcome event, for both renderers. */
export function outcomeNote(detailType: string, detail: Record<string, unknown>): string | undefined {
  if (detailType.endsWith('.Transferred')) {
    const target = detail.target as { recordType?: string; documentNumber?: string | null } | undefined;
    return target ? `→ ${target.recordType ?? ''} ${target.documentNumber ?? ''}`.trim() : undefined;
  }
  if (detailType.endsWith('.IsdocArchived')) {
    const archive = detail.archive as { key?: string } | undefined;
    return archive?.key ? `s3 ${archive.key}` : undefined;
  }
  if (detailType.endsWith('.EInvoiceStatusChanged')) {
    const code = detail.responseCode ? ` (${String(detail.responseCode)})` : '';
    return `e-invoice ${String(detail.status ?? '?')}${code}${detail.final ? ' final' : ''}`;
  }
  if (detailType === 'Action.Failed') {
    const problem = detail.problem as { kind?: string; message?: string } | undefined;
    return problem ? `${problem.kind ?? 'failed'}: ${problem.message ?? ''}` : undefined;
  }
  return undefined;
}

export function createView(out: Output, options: { json: boolean; now?: () => Date }): View {
  if (options.json) return createJsonLines(out);
  if (out.isTTY) return createLiveView(out, options.now ?? (() => new Date()));
  return createPlainLines(out);
}

/** Detail-types the actions publish about what they did (outcomes), as against record events. */
export function isOutcomeType(detailType: string): boolean {
  return /\.(Transferred|IsdocArchived|EInvoiceStatusChanged|EmailSent)$|^Action\.Failed$/.test(detailType);
}

function createJsonLines(out: Output): View {
  return {
    update(update) {
      if (update.kind === 'event' && isOutcomeType(update.detailType)) {
        // An action's outcome is an action line, like a failed delivery: kind "action", ok or not.
        const { kind: _kind, ...data } = update;
        out.write(
          `${JSON.stringify({ time: new Date().toISOString(), kind: 'action', ok: update.detailType !== 'Action.Failed', ...data })}\n`,
        );
        return;
      }
      const { kind, ...data } = update;
      out.write(`${JSON.stringify({ time: new Date().toISOString(), kind, ...data })}\n`);
    },
    close() {},
  };
}

function plainLine(update: RuntimeUpdate): string | undefined {
  switch (update.kind) {
    case 'started':
      return `started: service ${update.service}${update.sandbox ? ' (sandbox)' : ''}, data ${update.dataDir}, every ${update.intervalMs} ms, ${update.collections.length} collections, actions: ${update.actions.join(', ') || 'none'}`;
    case 'event':
      return `event ${update.detailType} ${update.documentNumber ?? '-'} ${update.id}${update.note ? ` ${update.note}` : ''}`;
    case 'poll':
      return update.events > 0 ? `poll: ${update.events} events in ${update.durationMs} ms` : undefined;
    case 'backfill':
      return `backfill: ${update.done}/${update.total}`;
    case 'action':
      return update.ok
        ? undefined
        : `action ${update.route} failed on ${update.detailType} ${update.id}: ${update.message ?? ''}`;
    case 'warning':
      return `warning: ${update.message}${update.data ? ` ${JSON.stringify(update.data)}` : ''}`;
    case 'stopping':
      return `stopping: ${update.reason}`;
    case 'stopped':
      return `stopped: ${update.published} events published`;
  }
}

function createPlainLines(out: Output): View {
  let lastBackfill = -1;
  return {
    update(update) {
      if (update.kind === 'backfill') {
        // One line per 10 %: enough to follow, not a flood.
        const step = update.total > 0 ? Math.floor((update.done / update.total) * 10) : 10;
        if (step === lastBackfill) return;
        lastBackfill = step;
      }
      const line = plainLine(update);
      if (line) out.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
    },
    close() {},
  };
}

const ESC = '\u001b[';
const bold = (s: string) => `${ESC}1m${s}${ESC}22m`;
const dim = (s: string) => `${ESC}2m${s}${ESC}22m`;
const green = (s: string) => `${ESC}32m${s}${ESC}39m`;
const yellow = (s: string) => `${ESC}33m${s}${ESC}39m`;
const red = (s: string) => `${ESC}31m${s}${ESC}39m`;
const cyan = (s: string) => `${ESC}36m${s}${ESC}39m`;

const ESC_CHAR = '\u001b';

/** Length of the ANSI CSI sequence starting at `i` (`ESC [ … letter`), or 0. */
function ansiLength(text: string, i: number): number {
  if (text[i] !== ESC_CHAR || text[i + 1] !== '[') return 0;
  let j = i + 2;
  while (j < text.length && !/[A-Za-z]/.test(text[j] as string)) j += 1;
  return j < text.length ? j - i + 1 : 0;
}

function visibleLength(text: string, from: number): number {
  let n = 0;
  for (let i = from; i < text.length; ) {
    const skip = ansiLength(text, i);
    if (skip) i += skip;
    else {
      n += 1;
      i += 1;
    }
  }
  return n;
}

/** `text` cut to `width` visible characters (ANSI sequences kept, not counted), with `…` when cut. */
export function fitLine(text: string, width: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < text.length; ) {
    const skip = ansiLength(text, i);
    if (skip) {
      out += text.slice(i, i + skip);
      i += skip;
      continue;
    }
    // One more visible character would leave no room for the ellipsis.
    if (visible === width - 1 && visibleLength(text, i) > 1) return `${out}…${ESC}0m`;
    out += text[i];
    visible += 1;
    i += 1;
  }
  return out;
}

export function progressBar(done: number, total: number, width = 30): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(ratio * 100)
    .toString()
    .padStart(3)}% ${done}/${total}`;
}

function createLiveView(out: Output, now: () => Date): View {
  let started: Extract<RuntimeUpdate, { kind: 'started' }> | undefined;
  const recent: EventUpdate[] = [];
  const outcomes: EventUpdate[] = [];
  const counters = new Map<string, number>();
  const warnings: string[] = [];
  let lastPoll: Extract<RuntimeUpdate, { kind: 'poll' }> | undefined;
  let polls = 0;
  let backfill: { done: number; total: number } | undefined;
  let status = 'running';
  let stoppedOrStopping = false;
  let published = 0;
  let linesDrawn = 0;
  let dirty = true;

  const draw = () => {
    if (!dirty) return;
    dirty = false;
    const width = Math.max(40, (out.columns ?? 100) - 1);
    /** Cuts on visible characters (escape sequences do not count) so no line wraps and breaks the redraw. */
    const cut = (s: string) => fitLine(s, width);
    const lines: string[] = [];
    lines.push(bold('accounting-events') + dim(` — ${status}${stoppedOrStopping ? '' : ', Ctrl-C to stop'}`));
    if (started) {
      lines.push(
        dim(
          cut(
            `service ${started.service}${started.sandbox ? ' (sandbox)' : ''} · data ${started.dataDir} · every ${started.intervalMs} ms · actions: ${started.actions.join(', ') || 'none'}`,
          ),
        ),
      );
    }
    const lag = lastPoll ? now().getTime() - lastPoll.at.getTime() : undefined;
    lines.push(
      cut(
        `polls ${polls} · last poll ${lag === undefined ? '-' : `${(lag / 1000).toFixed(1)} s ago`}${lastPoll ? ` (took ${lastPoll.durationMs} ms, ${lastPoll.events} events)` : ''} · published ${published}`,
      ),
    );
    if (backfill && backfill.done < backfill.total)
      lines.push(
        `first backfill ${cyan(progressBar(backfill.done, backfill.total, Math.max(10, Math.min(30, width - 40))))}`,
      );
    else if (backfill) lines.push(dim(`first backfill done: ${backfill.total} records`));
    lines.push('');
    lines.push(bold('counters'));
    const entries = [...counters.entries()].sort((a, b) => b[1] - a[1]);
    const perRow = Math.max(1, Math.floor((width + 2) / 44));
    const maxRows = 4;
    for (let row = 0; row * perRow < entries.length; row += 1) {
      if (row === maxRows) {
        lines.push(dim(`… ${entries.length - maxRows * perRow} more types`));
        break;
      }
      lines.push(
        cut(
          entries
            .slice(row * perRow, (row + 1) * perRow)
            .map(([t, n]) => `${t.padEnd(36)}${String(n).padStart(6)}`)
            .join('  '),
        ),
      );
    }
    lines.push('');
    lines.push(bold('actions'));
    for (const o of outcomes.slice(-6)) {
      const colour =
        o.detailType === 'Action.Failed' ? red : o.detailType.endsWith('StatusChanged') ? yellow : green;
      lines.push(
        cut(`${colour(o.detailType.padEnd(36))} ${(o.documentNumber ?? '-').padEnd(14)} ${o.note ?? ''}`),
      );
    }
    if (outcomes.length === 0) lines.push(dim('(none yet)'));
    lines.push('');
    lines.push(bold('events'));
    for (const e of recent.slice(-10)) {
      lines.push(
        cut(
          `${dim(e.at.toISOString().slice(11, 19))} ${e.detailType.padEnd(36)} ${(e.documentNumber ?? '-').padEnd(14)} ${dim(e.id)}`,
        ),
      );
    }
    for (const w of warnings.slice(-3)) lines.push(yellow(cut(`warning: ${w}`)));
    // Move up over the previous frame, clear it, draw this one.
    let frame = linesDrawn > 0 ? `${ESC}${linesDrawn}F` : '';
    frame += `${ESC}0J${lines.join('\n')}\n`;
    out.write(frame);
    linesDrawn = lines.length;
  };

  out.write(`${ESC}?25l`); // hide the cursor while redrawing
  const timer = setInterval(() => {
    dirty = true;
    draw();
  }, 250);
  timer.unref();

  return {
    update(update) {
      dirty = true;
      switch (update.kind) {
        case 'started':
          started = update;
          break;
        case 'event': {
          published += 1;
          counters.set(update.detailType, (counters.get(update.detailType) ?? 0) + 1);
          (isOutcomeType(update.detailType) ? outcomes : recent).push(update);
          if (recent.length > 50) recent.splice(0, recent.length - 50);
          if (outcomes.length > 50) outcomes.splice(0, outcomes.length - 50);
          break;
        }
        case 'poll':
          polls += 1;
          lastPoll = update;
          break;
        case 'backfill':
          backfill = { done: update.done, total: update.total };
          break;
        case 'action':
          if (!update.ok)
            warnings.push(`${update.route} failed on ${update.detailType}: ${update.message ?? ''}`);
          break;
        case 'warning':
          warnings.push(update.message);
          break;
        case 'stopping':
          stoppedOrStopping = true;
          status = `stopping (${update.reason})`;
          break;
        case 'stopped':
          status = `stopped, ${update.published} events published`;
          break;
      }
    },
    close() {
      clearInterval(timer);
      dirty = true;
      draw();
      out.write(`${ESC}?25h`);
    },
  };
}
