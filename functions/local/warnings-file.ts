/**
 * Every warning of a run, whole, in a file of the data directory (`warnings.log`, rewritten by
 * each run): the live view shows the last few cut to the terminal's width, so what the end of a run
 * points to ("the warnings in full: …") must be readable somewhere. One line per warning or failed
 * action: the time, then the text as the view got it (line breaks kept as `\n`, so one warning is
 * one line). Warnings that come before the data directory exists wait in memory until `open`.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuntimeUpdate, View } from './runtime-update.js';

export const WARNINGS_FILE = 'warnings.log';

/** The text of a warning update or of a failed action; nothing for the other updates. */
export function warningText(update: RuntimeUpdate): string | undefined {
  if (update.kind === 'warning') {
    return `${update.message}${update.data ? ` ${JSON.stringify(update.data)}` : ''}`;
  }
  if (update.kind === 'connection' && update.message)
    return `connection ${update.connection}: ${update.message}`;
  if (update.kind === 'action' && !update.ok) {
    return `action ${update.route} failed on ${update.detailType} ${update.id}: ${update.message ?? ''}`;
  }
  return undefined;
}

export interface WarningsFile {
  /** The view, passing every update on and writing the warnings down. */
  readonly view: View;
  /** The file's path. */
  readonly path: string;
  /** Warnings seen in this run. */
  readonly count: number;
  /** Why the file could not be written, when it could not (the run goes on without it). */
  readonly error: Error | undefined;
  /** The data directory exists: write what waited, and from now on each warning as it comes. */
  open(): void;
}

export function recordWarnings(
  view: View,
  dataDir: string,
  now: () => Date = () => new Date(),
): WarningsFile {
  const path = join(dataDir, WARNINGS_FILE);
  const pending: string[] = [];
  let count = 0;
  let opened = false;
  let created = false;
  let error: Error | undefined;
  const write = (line: string) => {
    if (error) return;
    try {
      if (created) appendFileSync(path, line);
      else writeFileSync(path, line, { mode: 0o600 });
      created = true;
    } catch (cause) {
      error = cause instanceof Error ? cause : new Error(String(cause));
    }
  };
  return {
    view: {
      update(update) {
        const text = warningText(update);
        if (text !== undefined) {
          count++;
          const line = `${now().toISOString()} ${text.replaceAll('\r', '').replaceAll('\n', '\\n')}\n`;
          if (opened) write(line);
          else pending.push(line);
        }
        view.update(update);
      },
      close() {
        view.close();
      },
    },
    path,
    get count() {
      return count;
    },
    get error() {
      return error;
    },
    open() {
      opened = true;
      for (const line of pending.splice(0)) write(line);
    },
  };
}

/**
 * The line that ends a run which had warnings: how many, and where they are in full. Wider than
 * `columns`, the file's path goes on a line of its own (whole, to be copied).
 */
export function warningsSummary(file: WarningsFile, dead: number, columns = 80): string | undefined {
  if (file.count === 0) return undefined;
  const warnings = `${file.count} warning${file.count === 1 ? '' : 's'}`;
  const head =
    dead > 0 ? `${dead} deliver${dead === 1 ? 'y was' : 'ies were'} dead-lettered; ${warnings}` : warnings;
  const line = file.error
    ? `${head} (not written to ${file.path}: ${file.error.message})`
    : `${head} in full in ${file.path}`;
  if ([...line].length <= columns || file.error) return line;
  return `${head} in full in\n  ${file.path}`;
}
