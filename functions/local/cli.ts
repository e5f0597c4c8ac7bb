/**
 * `accounting-events` — the command line of the local runtime.
 *
 *   npm start                 → `run` (everything on embedded defaults)
 *   npm run cli -- <command>  → any subcommand; `--help` on each
 *   npx accounting-events …   → the same, through bin/accounting-events.js
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DataDirUnusableError } from '../adapters/local/data-dir.js';
import { DataDirLockedError } from '../adapters/local/data-dir-lock.js';
import { type Command, type CommandContext, commandHelp, parseCommandArgs, wrapHelp } from './command.js';
import { commands } from './commands/index.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { ServiceUnreachableError } from './service-probe.js';
import { UsageError } from './usage-error.js';
import { wrapText } from './wrap-text.js';

export const PROGRAM = 'accounting-events';

export function programHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return wrapHelp(
    [
      `Usage: ${PROGRAM} <command> [options]`,
      '',
      'Turns the accounting service into an event source and runs the actions on its events, locally.',
      '',
      'Commands:',
      ...commands.map((c) => wrapHelp(`  ${c.name.padEnd(width)}${c.summary}`, width + 2)),
      '',
      `Run '${PROGRAM} <command> --help' for the options of a command.`,
      'Credentials come only from the environment or a .env file in the working directory:',
      '  ACCOUNTING_API_KEY, or ACCOUNTING_CLIENT_ID + ACCOUNTING_CLIENT_SECRET (+ ACCOUNTING_SCOPE).',
      '',
      EXIT_CODES_HELP,
      '',
    ].join('\n'),
  );
}

/** Runs one command line (without `node` and the script); resolves to the exit code. Never calls `process.exit`. */
export async function runCli(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const target = name === 'help' ? rest[0] : undefined;
    const command = target ? commands.find((c) => c.name === target) : undefined;
    ctx.stdout.write(command ? await helpOf(command) : programHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = commands.find((c) => c.name === name) as Command<unknown> | undefined;
  if (!command) {
    ctx.stderr.write(`error: unknown command "${name}"\n\n${programHelp()}`);
    return EXIT.usage;
  }
  try {
    const parsed = await parseWithSettings(command, rest, ctx);
    if (parsed.help) {
      ctx.stdout.write(await helpOf(command));
      return EXIT.ok;
    }
    return await command.run(parsed.options, ctx, rest);
  } catch (error) {
    if (error instanceof DataDirUnusableError) {
      ctx.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof UsageError) {
      ctx.stderr.write(`error: ${error.message}\nRun '${PROGRAM} ${command.name} --help' for usage.\n`);
      return EXIT.usage;
    }
    if (ctx.signal.aborted) return EXIT.interrupted;
    if (error instanceof DataDirLockedError || error instanceof ServiceUnreachableError) {
      ctx.stderr.write(`error: ${error.message}\n`);
      return EXIT.failure;
    }
    ctx.stderr.write(`error: ${describeError(error)}\n`);
    return EXIT.failure;
  }
}

/** Parses the flags; when they are bad, the bad settings are named in the same error. */
async function parseWithSettings(command: Command<unknown>, argv: readonly string[], ctx: CommandContext) {
  try {
    return parseCommandArgs(command, argv);
  } catch (error) {
    if (!(error instanceof UsageError) || !command.settingsProblems) throw error;
    const settings = await command.settingsProblems(argv, ctx).catch(() => []);
    if (settings.length === 0) throw error;
    throw new UsageError(`${error.message}\ninvalid settings:\n  ${settings.join('\n  ')}`, command.name, {
      cause: error,
    });
  }
}

/** A command's help: its delegate's own (with the exit codes) for a passthrough command, else from its flags. */
async function helpOf(command: Command<unknown>): Promise<string> {
  const text = command.help
    ? `${await command.help()}\n\n${EXIT_CODES_HELP}\n`
    : commandHelp(PROGRAM, command);
  return wrapText(text);
}

/** One line for an unexpected error: its name and message, and its cause's; never a stack or a request body. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.name}: ${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/**
 * One Ctrl-C can arrive more than once: the terminal signals the whole process group, and a parent
 * such as `npm start` relays the signal to its child as well. A second signal this soon after the
 * first is that same Ctrl-C; a later one forces the stop.
 */
export const SAME_CTRL_C_MS = 2_000;

/** The process-level context: real stdout/stderr, the environment, and a signal aborted on SIGINT/SIGTERM. */
export function processContext(): { ctx: CommandContext; dispose(): void } {
  // The AWS SDK's Node-20 notice is noise for a local tool (the embedded stores use the SDK).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const controller = new AbortController();
  let firstSignalAt: number | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === undefined) {
      firstSignalAt = now;
      process.stderr.write(`\n${sig}: stopping cleanly (press Ctrl-C again to force)\n`);
      controller.abort(new Error(`received ${sig}`));
    } else if (now - firstSignalAt >= SAME_CTRL_C_MS) {
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader went away (`… | head`): what is left to print has no reader, so stop without a word.
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    process.stderr.write(`error: stdout: ${error.message}\n`);
    process.exit(EXIT.failure);
  };
  process.stdout.on('error', onStdoutError);
  const ctx: CommandContext = {
    stdout: {
      write: (t) => void process.stdout.write(t),
      get isTTY() {
        return process.stdout.isTTY === true;
      },
      get columns() {
        return process.stdout.columns;
      },
      get rows() {
        return process.stdout.rows;
      },
    },
    stderr: { write: (t) => void process.stderr.write(t), isTTY: process.stderr.isTTY === true },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  return {
    ctx,
    dispose() {
      // After a Ctrl-C the handlers stay: its second delivery may land while the process exits,
      // and would otherwise end it by the signal instead of with the clean stop's exit code.
      if (firstSignalAt !== undefined) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // Stays on: the rest of the output may still be flushing after the command returned.
    },
  };
}

/** Entry point for the bin launcher and `tsx functions/local/cli.ts`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const { ctx, dispose } = processContext();
  let finished = false;
  // An error nobody awaited: while the command runs it ends the process (exit 1, one line, no
  // stack); once the command has stopped its stores, it is a late callback of a closed store
  // (e.g. dynalite's `Database is closed`) and only a warning.
  const onLateError = (error: unknown) => {
    if (finished) {
      process.stderr.write(`warning: ignored an error after the stop: ${describeError(error)}\n`);
      return;
    }
    process.stderr.write(`error: ${describeError(error)}\n`);
    process.exit(EXIT.failure);
  };
  process.on('unhandledRejection', onLateError);
  process.on('uncaughtException', onLateError);
  try {
    const code = await runCli(argv, ctx);
    return ctx.signal.aborted && code === EXIT.ok ? EXIT.interrupted : code;
  } finally {
    finished = true;
    dispose();
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().then(
    (code) => {
      process.exitCode = code;
      // Servers and timers are closed by the commands; do not wait on stray handles of dependencies.
      setTimeout(() => process.exit(code), 1000).unref();
    },
    (error: unknown) => {
      process.stderr.write(`error: ${describeError(error)}\n`);
      process.exit(EXIT.failure);
    },
  );
}
