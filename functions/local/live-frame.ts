/**
 * The live view of a terminal: a frame of the runtime's state, redrawn in place a few times a
 * second. The frame always fits the terminal (at least 80×24 is assumed usable): every line is cut
 * to the width, and sections shrink to the height — lists keep their newest entries and say how
 * many more there are — so a redraw never scrolls.
 */
import { ACTION_FAILED } from '../core/events/action-events.js';
import type { Output } from './command.js';
import { displayWidth, fitLine, fitMiddle, padDisplay } from './display-width.js';
import { applyConnectionUpdate, type ConnectionRow, connectionLines } from './live-connections.js';
import {
  type EventUpdate,
  intakeText,
  isOutcomeType,
  type RuntimeUpdate,
  type View,
} from './runtime-update.js';

const ESC = '\u001b[';
const bold = (s: string) => `${ESC}1m${s}${ESC}22m`;
const dim = (s: string) => `${ESC}2m${s}${ESC}22m`;
const green = (s: string) => `${ESC}32m${s}${ESC}39m`;
const yellow = (s: string) => `${ESC}33m${s}${ESC}39m`;
const red = (s: string) => `${ESC}31m${s}${ESC}39m`;
const cyan = (s: string) => `${ESC}36m${s}${ESC}39m`;

/** Columns of `text` on a terminal (ANSI sequences and combining marks take none, CJK two). */
export const visibleWidth = displayWidth;
export { fitLine, fitMiddle };

/** An interval as people say it: `500 ms`, `5 s`, `1.5 s`, `2 min`. */
function interval(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000 || ms % 60_000 !== 0) return `${ms / 1000} s`;
  return `${ms / 60_000} min`;
}

export function progressBar(done: number, total: number, width = 30): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(ratio * 100)
    .toString()
    .padStart(3)}% ${done}/${total}`;
}

/** What the live view knows; `renderFrame` draws it. */
export interface FrameState {
  started?: Extract<RuntimeUpdate, { kind: 'started' }>;
  recent: EventUpdate[];
  outcomes: EventUpdate[];
  /** How many of each were seen (the lists keep the latest only). */
  recentSeen: number;
  outcomesSeen: number;
  counters: Map<string, number>;
  warnings: string[];
  lastPoll?: Extract<RuntimeUpdate, { kind: 'poll' }>;
  polls: number;
  backfill?: { done: number; total: number; state?: 'done' | 'interrupted' | undefined };
  status: string;
  stopping: boolean;
  published: number;
  /** Per connection, when the runtime polls more than one. */
  connections: Map<string, ConnectionRow>;
  /** The console's URL (`run`). */
  consoleUrl?: string;
}

export function emptyFrameState(): FrameState {
  return {
    recent: [],
    outcomes: [],
    recentSeen: 0,
    outcomesSeen: 0,
    counters: new Map(),
    warnings: [],
    polls: 0,
    status: 'running',
    stopping: false,
    published: 0,
    connections: new Map(),
  };
}

const KEEP = 50;

/** Applies one update to the state (bounded: the latest entries only). */
export function applyUpdate(state: FrameState, update: RuntimeUpdate): void {
  applyConnectionUpdate(state.connections, update);
  switch (update.kind) {
    case 'started':
      state.started = update;
      break;
    case 'event': {
      state.published += 1;
      state.counters.set(update.detailType, (state.counters.get(update.detailType) ?? 0) + 1);
      const outcome = isOutcomeType(update.detailType);
      if (outcome) state.outcomesSeen += 1;
      else state.recentSeen += 1;
      const list = outcome ? state.outcomes : state.recent;
      list.push(update);
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      break;
    }
    case 'poll':
      state.polls += 1;
      state.lastPoll = update;
      break;
    case 'console':
      state.consoleUrl = update.url;
      break;
    case 'backfill':
      state.backfill = { done: update.done, total: update.total, state: update.state };
      break;
    case 'action':
      if (!update.ok)
        state.warnings.push(`${update.route} failed on ${update.detailType}: ${update.message ?? ''}`);
      break;
    case 'warning':
      state.warnings.push(update.message);
      break;
    case 'connection':
      // With many connections, their lines show the state: what to do about it is a warning.
      if (update.message && state.connections.size > 1)
        state.warnings.push(`${update.connection}: ${update.message}`);
      break;
    case 'stopping':
      state.stopping = true;
      state.status = `stopping (${update.reason})`;
      break;
    case 'stopped':
      state.status = `stopped, ${update.published} events published`;
      break;
  }
  if (state.warnings.length > KEEP) state.warnings.splice(0, state.warnings.length - KEEP);
}

function headLines(state: FrameState, width: number, now: Date): string[] {
  const cut = (s: string) => fitLine(s, width);
  const { started, lastPoll, backfill } = state;
  const lines = [
    cut(bold('accounting-events') + dim(` — ${state.status}${state.stopping ? '' : ', Ctrl-C to stop'}`)),
  ];
  if (started) {
    // The data directory is what gets long: cut in its middle to what the line leaves it.
    const front = `${started.sandbox ? 'sandbox' : 'service'} ${started.service} · every ${interval(started.intervalMs)} · data `;
    lines.push(dim(cut(`${front}${fitMiddle(started.dataDir, Math.max(12, width - displayWidth(front)))}`)));
    if (started.intake) lines.push(cyan(cut(intakeText(started.intake))));
  }
  // The URL whole where it fits (it carries the run's token): without its label on a narrow terminal.
  const url = state.consoleUrl;
  if (url) lines.push(cyan(cut(displayWidth(url) + 8 <= width ? `console ${url}` : url)));
  const lag = lastPoll ? now.getTime() - lastPoll.at.getTime() : undefined;
  lines.push(
    cut(
      `polls ${state.polls} · last ${lag === undefined ? '-' : `${(lag / 1000).toFixed(1)} s ago`}${lastPoll ? ` (${lastPoll.durationMs} ms, ${lastPoll.events} events)` : ''} · published ${state.published}`,
    ),
  );
  // One connection, unhealthy: said under the polls, with what to do (refused credentials).
  const [only] = state.connections.size === 1 ? state.connections.values() : [];
  if (only?.state === 'unhealthy')
    lines.push(red(cut(`unhealthy: ${only.message ?? only.reason ?? 'the service fails'}`)));
  if (backfill?.state === 'done') lines.push(dim(cut(`first backfill done: ${backfill.total} records`)));
  else if (backfill?.state === 'interrupted')
    lines.push(
      yellow(cut(`first backfill interrupted at ${backfill.done}/${backfill.total}: the next run goes on`)),
    );
  else if (backfill) {
    const bar = progressBar(backfill.done, backfill.total, Math.max(10, Math.min(30, width - 40)));
    lines.push(cut(`first backfill ${cyan(bar)}`));
  }
  return lines;
}

function counterLines(state: FrameState, width: number, budget: number): string[] {
  const entries = [...state.counters.entries()].sort((a, b) => b[1] - a[1]);
  const perRow = width >= 79 ? 2 : 1;
  const column = Math.floor((width - (perRow - 1) * 2) / perRow);
  const cell = ([t, n]: [string, number]) => {
    const count = String(n);
    // Padded by visible width: a cut name ends in an ANSI reset that padEnd would count.
    const name = fitLine(t, column - count.length - 1);
    return `${name}${' '.repeat(Math.max(1, column - count.length - visibleWidth(name)))}${count}`;
  };
  const rows: string[] = [];
  for (let i = 0; i < entries.length; i += perRow)
    rows.push(
      entries
        .slice(i, i + perRow)
        .map(cell)
        .join('  '),
    );
  if (budget <= 0) return [];
  if (rows.length <= budget) return rows;
  return [...rows.slice(0, budget - 1), dim(`… ${entries.length - (budget - 1) * perRow} more types`)];
}

const OUTCOME_TYPE = 30;

/**
 * An action's outcome: its type, the document number whole, and the note (the target: an S3 key,
 * the new document, the e-invoice status) cut in its middle to what is left, so the start (where)
 * and the end (which document, the final status) both stay.
 */
function outcomeLine(o: EventUpdate, width: number): string {
  const colour =
    o.detailType === ACTION_FAILED ? red : o.detailType.endsWith('StatusChanged') ? yellow : green;
  const number = padDisplay(o.documentNumber ?? '-', 12);
  const rest = width - OUTCOME_TYPE - displayWidth(number) - 2;
  return fitLine(
    `${colour(padDisplay(fitMiddle(o.detailType, OUTCOME_TYPE), OUTCOME_TYPE))} ${number} ${fitMiddle(o.note ?? '', Math.max(8, rest))}`,
    width,
  );
}

function eventLine(e: EventUpdate, width: number): string {
  return fitLine(
    `${dim(e.at.toISOString().slice(11, 19))} ${padDisplay(fitLine(e.detailType, 33), 33)} ${padDisplay(e.documentNumber ?? '-', 13)} ${dim(e.note ?? e.id)}`,
    width,
  );
}

/** The newest `budget` entries, the first line saying how many older ones are not shown. */
function newest<T>(items: readonly T[], total: number, budget: number, line: (item: T) => string): string[] {
  if (budget <= 0) return [];
  if (total <= budget) return items.slice(-budget).map(line);
  return [dim(`… ${total - (budget - 1)} earlier`), ...items.slice(-(budget - 1)).map(line)];
}

/**
 * The frame for a terminal of `columns` × `rows`: at most `rows - 1` lines (the cursor rests on
 * the last row), none wider than `columns - 1` visible characters.
 */
export function renderFrame(state: FrameState, size: { columns: number; rows: number }, now: Date): string[] {
  const width = Math.max(20, size.columns - 1);
  const height = Math.max(6, size.rows - 1);
  const head = headLines(state, width, now);
  const warnings = state.warnings
    .slice(-(height >= 23 ? 3 : 1))
    .map((w) => yellow(fitLine(`warning: ${w}`, width)));
  // Three sections (four with many connections), each with a heading; blank separators only when
  // there is room for them.
  const { started } = state;
  const many = state.connections.size > 1;
  const sections = many ? 4 : 3;
  let free = height - head.length - warnings.length - sections;
  const gaps = free >= 12 ? sections : 0;
  free -= gaps;
  // Many connections: a line for each of the worst and most recent few.
  const connectionsBudget = many ? Math.min(state.connections.size, 5, Math.max(2, Math.floor(free / 2))) : 0;
  free -= connectionsBudget;
  const outcomesTotal = state.outcomes.length;
  const countersWanted = Math.ceil(state.counters.size / (width >= 79 ? 2 : 1));
  const countersBudget = Math.min(countersWanted, 4, Math.max(1, Math.floor(free / 3)));
  const actionsBudget = Math.min(
    Math.max(1, outcomesTotal),
    5,
    Math.max(1, Math.floor((free - countersBudget) / 2)),
  );
  const eventsBudget = Math.max(1, Math.min(10, free - countersBudget - actionsBudget));
  const gap = (): string[] => (gaps > 0 ? [''] : []);
  const lines = [
    ...head,
    ...(many
      ? [
          ...gap(),
          bold(`connections (${state.connections.size})`),
          ...connectionLines(state.connections, connectionsBudget, now).map((l) => fitLine(l, width)),
        ]
      : []),
    ...gap(),
    bold('counters'),
    ...(state.counters.size === 0 ? [dim('(none yet)')] : counterLines(state, width, countersBudget)),
    ...gap(),
    fitLine(bold('actions') + dim(started ? ` (${started.actions.join(', ') || 'none'})` : ''), width),
    ...(outcomesTotal === 0
      ? [dim('(none yet)')]
      : newest(state.outcomes, state.outcomesSeen, actionsBudget, (o) => outcomeLine(o, width))),
    ...gap(),
    bold('events'),
    ...newest(state.recent, state.recentSeen, eventsBudget, (e) => eventLine(e, width)),
    ...warnings,
  ];
  // Whatever the arithmetic above left over, the frame never outgrows the screen.
  return lines.slice(0, height);
}

/** The live view on a TTY: redraws the frame in place; clears the screen when the terminal's size changed. */
export function createLiveView(out: Output, now: () => Date): View {
  const state = emptyFrameState();
  let linesDrawn = 0;
  let lastSize = '';
  const draw = () => {
    const size = { columns: out.columns ?? 80, rows: out.rows ?? 24 };
    const lines = renderFrame(state, size, now());
    const key = `${size.columns}x${size.rows}`;
    // A resize may have re-wrapped the old frame: start again from the top of a clear screen.
    let frame =
      key !== lastSize && linesDrawn > 0 ? `${ESC}2J${ESC}H` : linesDrawn > 0 ? `\r${ESC}${linesDrawn}A` : '';
    // Each line overwrites the old one and clears its rest (ESC[K); below the frame, ESC[J clears
    // what a taller frame left. Never "clear to the end" from the top-left corner: tmux and others
    // take that for a clear screen and push the old frame into the scrollback on every redraw.
    frame += `${lines.map((line) => `${line}${ESC}K`).join('\n')}\n${ESC}J`;
    out.write(frame);
    linesDrawn = lines.length;
    lastSize = key;
  };
  out.write(`${ESC}?25l`); // hide the cursor while redrawing
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    update(update) {
      applyUpdate(state, update);
    },
    close() {
      clearInterval(timer);
      draw();
      out.write(`${ESC}?25h`);
    },
  };
}
