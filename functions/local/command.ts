/**
 * A small subcommand framework over `node:util` `parseArgs`: every flag is declared once with its
 * help text, parsed strictly, then validated by a zod schema whose errors name the flag.
 */
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { UsageError } from './usage-error.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in help, e.g. `URL`, `5s`. */
  value?: string;
  description: string;
  /** Help text of the default (the schema applies it). */
  defaultHelp?: string;
  multiple?: boolean;
}

export type FlagSpecs = Record<string, FlagSpec>;

/** Where a command writes. `isTTY` decides between the live view and line logs. */
export interface Output {
  write(text: string): void;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface CommandContext {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted on SIGINT / SIGTERM; long-running commands stop cleanly and return 130. */
  signal: AbortSignal;
}

export interface Command<T = unknown> {
  name: string;
  summary: string;
  /** `<FILE>` etc., shown after the command name in the usage line. */
  positionalsHelp?: string;
  description?: string;
  flags: FlagSpecs;
  /** Receives `{ ...flags, positionals }` as parsed; returns the validated options. */
  schema: z.ZodType<T>;
  /** Hand the raw argv to the command instead of parsing it (a delegate such as `sandbox`). */
  passthrough?: boolean;
  /** Help of a passthrough command (its delegate's own), printed before the exit codes. */
  help?: () => Promise<string>;
  run(options: T, ctx: CommandContext, argv: readonly string[]): Promise<number>;
  /**
   * Problems of the settings (environment, `.env`) the command would read, judged from the raw
   * argv: reported together with bad flags, so every problem comes in one round.
   */
  settingsProblems?(argv: readonly string[], ctx: CommandContext): Promise<string[]>;
}

export function defineCommand<T>(command: Command<T>): Command<T> {
  return command;
}

const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', description: 'Show this help.' };

/** Help lines are wrapped to this many columns, so they read in an 80-column terminal. */
export const HELP_WIDTH = 79;

/**
 * `text` with every line longer than `HELP_WIDTH` wrapped at spaces. A continuation line is
 * indented by `hang` spaces; by default under the description of a `term  description` line, else
 * as deep as its line's own indentation. A single word longer than the room is not broken.
 */
export function wrapHelp(text: string, hang?: number): string {
  return text
    .split('\n')
    .map((line) => wrapLine(line, hang))
    .join('\n');
}

function wrapLine(line: string, hang?: number): string {
  if (line.length <= HELP_WIDTH) return line;
  const indent = line.length - line.trimStart().length;
  // A `term  description` line hangs under its description.
  const term = /^\s*\S+(?: \S+)*?\s{2,}/.exec(line)?.[0].length;
  const pad = ' '.repeat(hang ?? term ?? indent);
  const rows: string[] = [];
  let row = line.slice(0, indent);
  // Split on single spaces, so the padding between a flag and its description stays as it was.
  for (const word of line.slice(indent).split(' ')) {
    const empty = row.trim() === '';
    if (!empty && row.length + 1 + word.length > HELP_WIDTH) {
      rows.push(row.trimEnd());
      row = pad + word;
    } else row = empty ? row + word : `${row} ${word}`;
  }
  rows.push(row);
  return rows.join('\n');
}

/** Help text of one command. */
export function commandHelp(program: string, command: Command<unknown>): string {
  const flags: [string, FlagSpec][] = [...Object.entries(command.flags), ['help', HELP_FLAG]];
  const left = flags.map(([name, f]) => {
    const short = f.short ? `-${f.short}, ` : '    ';
    return `${short}--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`;
  });
  const width = Math.max(...left.map((l) => l.length)) + 2;
  const lines = flags.map(([, f], i) => {
    const def = f.defaultHelp ? ` (default: ${f.defaultHelp})` : '';
    return wrapHelp(`  ${left[i]!.padEnd(width)}${f.description}${def}`, width + 2);
  });
  const usage = `Usage: ${program} ${command.name}${command.positionalsHelp ? ` ${command.positionalsHelp}` : ''} [options]`;
  return [
    wrapHelp(usage, 'Usage: '.length),
    '',
    wrapHelp(command.summary),
    ...(command.description ? ['', wrapHelp(command.description)] : []),
    '',
    'Options:',
    ...lines,
    '',
    EXIT_CODES_HELP,
    '',
  ].join('\n');
}

/** Parses and validates argv for `command`; throws `UsageError` naming the flag on any problem. */
export function parseCommandArgs<T>(
  command: Command<T>,
  argv: readonly string[],
): { help: true } | { help: false; options: T } {
  if (command.passthrough) {
    if (argv.includes('--help') || argv.includes('-h')) return { help: true };
    const result = command.schema.safeParse({ positionals: [...argv] });
    if (!result.success) throw new UsageError(formatZodError(result.error), command.name);
    return { help: false, options: result.data };
  }
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, f] of Object.entries(command.flags)) {
    options[name] = {
      type: f.type,
      ...(f.short ? { short: f.short } : {}),
      ...(f.multiple ? { multiple: true } : {}),
    };
  }
  const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  const flagProblems = flagTokenProblems(parsed.tokens, options);
  const positionals = positionalsOf(parsed.tokens, options);
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    const spec = options[name];
    if (!spec || name === 'help') continue;
    // A problem was reported for this flag already (a missing or an unexpected value).
    if (flagProblems.some((p) => p.flag === name)) continue;
    values[name] = value;
  }
  if (parsed.values.help === true && flagProblems.length === 0) return { help: true };
  const result = command.schema.safeParse({ ...values, positionals });
  const messages = flagProblems.map((p) => p.message);
  if (!result.success) {
    // A flag already reported (no value given) is not reported again as "required".
    const issues = result.error.issues.filter(
      (i) => !flagProblems.some((p) => p.flag !== undefined && i.path[0] === p.flag),
    );
    if (issues.length > 0) messages.push(formatZodError(new z.ZodError(issues)));
  }
  if (messages.length > 0 || !result.success) throw new UsageError(messages.join('\n'), command.name);
  return { help: false, options: result.data };
}

type ParsedTokens = ReturnType<
  typeof parseArgs<{ tokens: true; strict: false; allowPositionals: true }>
>['tokens'];

/** Every unknown flag, every flag missing its value and every switch given a value, one message each. */
function flagTokenProblems(
  tokens: ParsedTokens,
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>,
): { flag?: string; message: string }[] {
  const problems: { flag?: string; message: string }[] = [];
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (!spec) {
      const near = nearestFlag(token.name, Object.keys(options));
      const hint = near ? ` (did you mean --${near}?)` : '';
      problems.push({ message: `Unknown option '${token.rawName}'${hint}.` });
      continue;
    }
    if (
      spec.type === 'string' &&
      (token.value === undefined || (!token.inlineValue && token.value.startsWith('--')))
    ) {
      const got = token.value === undefined ? '' : `, got the flag ${token.value}`;
      problems.push({ flag: token.name, message: `--${token.name}: expected a value${got}.` });
    } else if (spec.type === 'boolean' && token.value !== undefined) {
      problems.push({ flag: token.name, message: `--${token.name}: takes no value (got "${token.value}").` });
    }
  }
  return problems;
}

/**
 * The positionals, less the word right after an unknown flag: that word is the flag's value
 * (`--intervl 5s`), reported with the flag, not again as an argument.
 */
function positionalsOf(tokens: ParsedTokens, options: Record<string, unknown>): string[] {
  const out: string[] = [];
  let previous: NonNullable<ParsedTokens>[number] | undefined;
  for (const token of tokens ?? []) {
    const valueOfUnknown =
      previous?.kind === 'option' && !options[previous.name] && previous.inlineValue === undefined;
    if (token.kind === 'positional' && !valueOfUnknown) out.push(token.value);
    previous = token;
  }
  return out;
}

/** The known flag within two edits of `name` (a typo), if exactly one is nearest. */
export function nearestFlag(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  let tie = false;
  for (const candidate of known) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost);
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** `--interval: expected a duration such as 5s, 500ms or 2m, got "soon"` — one line per issue. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const [head, ...rest] = issue.path;
      if (head === undefined) return issue.message;
      const name = head === 'positionals' ? 'argument' : `--${String(head)}`;
      const suffix = rest.length ? `[${rest.join('.')}]` : '';
      return `${name}${suffix}: ${issue.message}`;
    })
    .join('\n');
}

// ---------- reusable zod pieces for flags ----------

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `500ms`, `5s`, `2m`, `1h`, or a bare number of seconds, to milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']!);
}

/** A duration flag → milliseconds, within [minMs, maxMs]. */
export function durationFlag(minMs = 1, maxMs = 7 * 24 * 3_600_000) {
  return z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected a duration such as 5s, 500ms or 2m, got "${text}"` });
      return z.NEVER;
    }
    if (ms < minMs || ms > maxMs) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration between ${formatMs(minMs)} and ${formatMs(maxMs)}, got "${text}"`,
      });
      return z.NEVER;
    }
    return ms;
  });
}

export function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** `http(s)://…` URL flag, trailing slash removed. */
export const urlFlag = z
  .string()
  .refine(
    (text) => {
      try {
        const url = new URL(text);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'expected an http:// or https:// URL' },
  )
  .transform((text) => text.replace(/\/+$/, ''));

/** An ISO 8601 date-time with an offset (`2026-01-31T00:00:00Z`) or a date (`2026-01-31`, taken as UTC midnight). */
export const dateTimeFlag = z.string().transform((text, ctx) => {
  const trimmed = text.trim();
  const ok =
    /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ||
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(trimmed);
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed);
  if (!ok || Number.isNaN(date.getTime())) {
    ctx.addIssue({
      code: 'custom',
      message: `expected an ISO date-time with offset such as 2026-01-31T00:00:00Z (or a date), got "${text}"`,
    });
    return z.NEVER;
  }
  return date.toISOString();
});

/** `A,B,C` → trimmed, non-empty, deduplicated items checked by `resolve` (which returns the canonical name). */
export function listFlag(
  what: string,
  resolve: (item: string) => string | undefined,
  known?: readonly string[],
) {
  return z.string().transform((text, ctx) => {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) {
      ctx.addIssue({ code: 'custom', message: `expected a comma-separated list of ${what}` });
      return z.NEVER;
    }
    const out: string[] = [];
    const unknown: string[] = [];
    for (const item of items) {
      const name = resolve(item);
      if (!name) unknown.push(item);
      else if (!out.includes(name)) out.push(name);
    }
    if (unknown.length > 0) {
      const hint = known ? ` (known: ${known.join(', ')})` : '';
      const names = unknown.map((u) => `"${u}"`).join(', ');
      ctx.addIssue({
        code: 'custom',
        message: `unknown ${what}${unknown.length > 1 ? 's' : ''} ${names}${hint}`,
      });
      return z.NEVER;
    }
    return out;
  });
}

/** No positional arguments allowed. */
export const noPositionals = z.array(z.string()).max(0, { message: 'this command takes no arguments' });
