/**
 * What the local runtime shows while it runs. Two renderers of the same updates:
 * - the live view: plain ANSI, redrawn in place a few times a second (a TTY, without --json);
 * - line logs: one line per update (pretty when not a TTY, JSON with --json).
 * Nothing secret reaches either: updates carry event fields, counts and durations only.
 */
import { ACTION_FAILED } from '../core/events/action-events.js';
import type { Output } from './command.js';
import { displayWidth, fitMiddle } from './display-width.js';
import { createLiveView } from './live-frame.js';
import {
  type EventUpdate,
  intakeText,
  isOutcomeType,
  type RuntimeUpdate,
  type View,
} from './runtime-update.js';
import { wrapText } from './wrap-text.js';

export { fitLine, progressBar, renderFrame } from './live-frame.js';
export {
  type EventUpdate,
  isOutcomeType,
  outcomeNote,
  type RuntimeUpdate,
  type View,
} from './runtime-update.js';

/**
 * The width plain lines wrap at: `COLUMNS` when the environment hands a terminal's width down
 * (at least 40), else none (one line per update, as logs and CI want them).
 */
export function plainWidth(env: Record<string, string | undefined>): number | undefined {
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns >= 40 ? columns : undefined;
}

export function createView(
  out: Output,
  options: { json: boolean; now?: () => Date; plainWidth?: number | undefined },
): View {
  if (options.json) return createJsonLines(out);
  if (out.isTTY) return createLiveView(out, options.now ?? (() => new Date()));
  return createPlainLines(out, options.plainWidth);
}

function createJsonLines(out: Output): View {
  return {
    update(update) {
      if (update.kind === 'event' && isOutcomeType(update.detailType)) {
        // An action's outcome is an action line, like a failed delivery: kind "action", ok or not.
        const { kind: _kind, ...data } = update;
        out.write(
          `${JSON.stringify({ time: new Date().toISOString(), kind: 'action', ok: update.detailType !== ACTION_FAILED, ...data })}\n`,
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
      return `started: service ${update.service}${update.sandbox ? ' (sandbox)' : ''}, data ${update.dataDir}, every ${update.intervalMs} ms, ${update.collections.length} collections, actions: ${update.actions.join(', ') || 'none'}${update.connections && update.connections.length > 1 ? `, ${update.connections.length} connections` : ''}${update.intake ? `, ${intakeText(update.intake)}` : ''}`;
    case 'event':
      return `event ${update.connection ? `${update.connection} ` : ''}${update.detailType} ${update.documentNumber ?? '-'} ${update.id}${update.note ? ` ${update.note}` : ''}`;
    case 'poll':
      return update.events > 0
        ? `poll${update.connection ? ` ${update.connection}` : ''}: ${update.events} events in ${update.durationMs} ms`
        : undefined;
    case 'connection':
      if (update.message) return `connection ${update.connection}: ${update.state}: ${update.message}`;
      return `connection ${update.connection}: ${update.state}${update.reason ? ` (${update.reason})` : ''}`;
    case 'console':
      return `console: ${update.url}`;
    case 'backfill':
      if (update.state === 'done') return `backfill: done, ${update.total} records`;
      if (update.state === 'interrupted')
        return `backfill: interrupted at ${update.done}/${update.total}; the next run goes on`;
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

/** Where a wrapped plain line goes on: under its text, past the time (`HH:MM:SS.mmm `). */
const PLAIN_INDENT = 13;

/**
 * A plain line in `width` columns: wrapped at spaces under its text; a word wider than a whole
 * line (an S3 key) cut in its middle, as the live view cuts it (`--json` has it whole).
 */
function fitPlain(text: string, width: number): string {
  return wrapText(text, width, PLAIN_INDENT)
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= width) return line;
      const indent = line.length - line.trimStart().length;
      return `${line.slice(0, indent)}${fitMiddle(line.slice(indent), width - indent)}`;
    })
    .join('\n');
}

/**
 * A component's log line (stderr, without a terminal) in `width` columns when one is handed down:
 * wrapped under its text, and a word wider than a line (its JSON data) broken into pieces under
 * it, so nothing of it is lost.
 */
export function fitLogLine(line: string, width: number | undefined): string {
  if (!width) return line;
  const room = width - PLAIN_INDENT;
  return wrapText(line, width, PLAIN_INDENT)
    .split('\n')
    .flatMap((wrapped) => {
      if (wrapped.length <= width) return [wrapped];
      const word = wrapped.trimStart();
      const pieces: string[] = [];
      for (let i = 0; i < word.length; i += room)
        pieces.push(`${' '.repeat(PLAIN_INDENT)}${word.slice(i, i + room)}`);
      return pieces;
    })
    .join('\n');
}

/**
 * An event in one line of `width` columns, as the live view shows it: its type (cut in its middle
 * to 30 columns only when the line needs the room) and document number, then what it says (an
 * outcome's note, else the record's id), cut in its middle to what is left.
 */
function fittedEvent(update: EventUpdate, width: number): string | undefined {
  const said = isOutcomeType(update.detailType) && update.note ? update.note : update.id;
  const line = (type: string) => {
    const head = `${update.connection ? `${update.connection} ` : ''}${type} ${update.documentNumber ?? '-'}`;
    const room = width - PLAIN_INDENT - displayWidth(head) - 1;
    return { room, text: `${head} ${fitMiddle(said, Math.max(room, 0))}`, fits: displayWidth(said) <= room };
  };
  const whole = line(update.detailType);
  if (whole.fits) return whole.text;
  const cut = line(fitMiddle(update.detailType, 30));
  return cut.room >= 10 ? cut.text : undefined;
}

function createPlainLines(out: Output, width: number | undefined): View {
  let lastBackfill: number | string = -1;
  return {
    update(update) {
      if (update.kind === 'backfill') {
        // One line per 10 %: enough to follow, not a flood.
        const step = update.state ?? (update.total > 0 ? Math.floor((update.done / update.total) * 10) : 10);
        if (step === lastBackfill) return;
        lastBackfill = step;
      }
      const time = new Date().toISOString().slice(11, 23);
      const event = width && update.kind === 'event' ? fittedEvent(update, width) : undefined;
      const line = event ?? plainLine(update);
      if (!line) return;
      const text = `${time} ${line}`;
      out.write(`${width && !event ? fitPlain(text, width) : text}\n`);
    },
    close() {},
  };
}
