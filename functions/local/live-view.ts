/**
 * What the local runtime shows while it runs. Two renderers of the same updates:
 * - the live view: plain ANSI, redrawn in place a few times a second (a TTY, without --json);
 * - line logs: one line per update (pretty when not a TTY, JSON with --json).
 * Nothing secret reaches either: updates carry event fields, counts and durations only.
 */
import { ACTION_FAILED } from '../core/events/action-events.js';
import type { Output } from './command.js';
import { createLiveView } from './live-frame.js';
import { intakeText, isOutcomeType, type RuntimeUpdate, type View } from './runtime-update.js';

export { fitLine, progressBar, renderFrame } from './live-frame.js';
export {
  type EventUpdate,
  isOutcomeType,
  outcomeNote,
  type RuntimeUpdate,
  type View,
} from './runtime-update.js';

export function createView(out: Output, options: { json: boolean; now?: () => Date }): View {
  if (options.json) return createJsonLines(out);
  if (out.isTTY) return createLiveView(out, options.now ?? (() => new Date()));
  return createPlainLines(out);
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
      return `connection ${update.connection}: ${update.state}${update.reason ? ` (${update.reason})` : ''}`;
    case 'console':
      return `console: ${update.url}`;
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
