/**
 * For the docs-run test: the commands of the docs' code blocks, a project directory to run them
 * in, and children run as a terminal would run them (their own process group, Ctrl-C = SIGINT to
 * the group), with their output collected.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import stringWidth from 'string-width';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One command line of a docs code block (`#` comment apart, `a && b` as two). */
export interface DocCommand {
  where: string;
  command: string;
  comment: string;
}

/** A command of a code block: anything run through npm or npx (the CLI, its scripts, cdk, npm itself). */
const COMMAND = /^(npx|npm) \S/;

/** The comment of a shell line: from the first `#` after a space, outside quotes. */
function splitComment(line: string): [string, string] {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1] as string)))
      return [line.slice(0, i).trim(), line.slice(i + 1).trim()];
  }
  return [line.trim(), ''];
}

/**
 * Every `npx …` and `npm …` command of the file's sh blocks (`npx accounting-events`, `npm start`,
 * `npm run`, …); a line ending in `\` continues on the next, as in a shell.
 */
export function docCommands(file: string, text: string): DocCommand[] {
  const out: DocCommand[] = [];
  let fence: string | undefined;
  let continued: { at: number; code: string } | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^```(\S*)/.exec(line);
    if (open) {
      fence = fence === undefined ? open[1] : undefined;
      return;
    }
    if (fence !== 'sh' && fence !== 'bash') return;
    const [piece, comment] = splitComment(line);
    if (piece.endsWith('\\')) {
      continued = { at: continued?.at ?? i, code: `${continued?.code ?? ''}${piece.slice(0, -1).trim()} ` };
      return;
    }
    const at = continued?.at ?? i;
    const code = `${continued?.code ?? ''}${piece}`;
    continued = undefined;
    for (const part of code.split('&&').map((p) => p.trim())) {
      if (COMMAND.test(part)) out.push({ where: `${file}:${at + 1}`, command: part, comment });
    }
  });
  return out;
}

/** The blocks without a language (what a terminal shows), with where each starts. */
export function outputBlocks(file: string, text: string): { where: string; lines: string[] }[] {
  const out: { where: string; lines: string[] }[] = [];
  let current: { where: string; lines: string[] } | undefined;
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) {
      if (!fenced && line === '```') current = { where: `${file}:${i + 1}`, lines: [] };
      else if (current) {
        out.push(current);
        current = undefined;
      }
      fenced = !fenced;
    } else if (current) current.lines.push(line);
  });
  return out;
}

/**
 * A checkout-like directory whose `.local`, `.env` and files are the test's own: `package.json`
 * copied (npm reads its scripts), the sources linked, `node_modules/.bin` with `tsx` (what the
 * scripts call).
 */
export async function projectDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'accounting-events-docs-run-'));
  await copyFile(join(ROOT, 'package.json'), join(dir, 'package.json'));
  for (const name of ['functions', 'sandbox', 'bin', 'tsconfig.json'])
    await symlink(join(ROOT, name), join(dir, name));
  await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
  await symlink(join(ROOT, 'node_modules', '.bin', 'tsx'), join(dir, 'node_modules', '.bin', 'tsx'));
  return dir;
}

/** A port nobody listens on right now (for a command that takes its port from the line). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` matches the unwrapped stdout; rejects if the child ends first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Ctrl-C: SIGINT to the child's process group; resolves to its exit code. */
  interrupt(): Promise<number | null>;
}

/** Runs `command` through `sh -c` in `cwd`, in an 80×24 environment without a terminal. */
export function start(command: string, cwd: string, env: Record<string, string>): Child {
  // `exec`: the command itself leads the process group and answers the signal, not the shell.
  const child = spawn('sh', ['-c', `exec ${command}`], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? cwd,
      COLUMNS: '80',
      LINES: '24',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  // A process a signal ended reports as a shell does: 128 + the signal's number (SIGINT: 130).
  let closed = false;
  const exited = new Promise<number | null>((resolve) =>
    // `close`: once every process of the command has closed the output (npm's child outlives npm).
    child.on('close', (code, signal) => {
      closed = true;
      resolve(code ?? (signal ? 128 + constants.signals[signal] : null));
    }),
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    process: child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(unwrap(stdout))) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        void exited.then((code) => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`${command}: exited ${code} before printing ${pattern}\n${stdout}\n${stderr}`));
        });
      }),
    interrupt: async () => {
      if (child.pid !== undefined && !closed) {
        try {
          process.kill(-child.pid, 'SIGINT');
        } catch (error) {
          // The group ended between the check and the signal.
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      }
      return exited;
    },
  };
}

/** Plain lines as updates: a line without a time (`HH:MM:SS.mmm `) continues the one before it. */
export function unwrap(text: string): string {
  return text.replace(/\n(?!\d\d:\d\d:\d\d\.\d{3} |> |$)\s*/gm, ' ');
}

/** What differs between runs, masked: numbers (ports, counts, times, ids' digits) and tokens. */
export function mask(text: string): string {
  return text
    .replace(/token=\S+/g, 'token=…')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d+/g, 'N');
}

/** Output lines wider than 80 display columns. */
export function tooWide(text: string): string[] {
  return text.split('\n').filter((line) => stringWidth(line) > 80);
}

/**
 * The docs' commands neither run nor listed (`unknown`, with where the docs show them), and the
 * listed ones the docs no longer show (`gone`).
 */
export function commandCoverage(
  commands: readonly DocCommand[],
  known: ReadonlySet<string>,
): { unknown: string[]; gone: string[] } {
  const shown = new Set(commands.map((c) => c.command));
  return {
    unknown: commands.filter((c) => !known.has(c.command)).map((c) => `${c.where}: ${c.command}`),
    gone: [...known].filter((c) => !shown.has(c)),
  };
}
