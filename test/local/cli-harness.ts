/** Runs the CLI in-process with captured output. */
import { runCli } from '#functions/local/cli.js';
import type { CommandContext } from '#functions/local/command.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(
  argv: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; signal?: AbortSignal } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const ctx: CommandContext = {
    stdout: {
      write: (t) => {
        stdout += t;
      },
      isTTY: false,
    },
    stderr: {
      write: (t) => {
        stderr += t;
      },
      isTTY: false,
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout, stderr };
}
