/** Exit codes of the `accounting-events` CLI (documented in docs/local.md and every `--help`). */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** A runtime failure: the service, a store or an action failed in a way that stopped the command. */
  failure: 1,
  /** A usage or configuration error: unknown flag, malformed value, missing credentials. Nothing was changed. */
  usage: 2,
  /** Stopped by SIGINT / SIGTERM (Ctrl-C) after a clean shutdown. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0    ok
  1    runtime failure (service, store or action error)
  2    usage or configuration error (nothing was changed)
  130  interrupted (SIGINT/SIGTERM), stopped cleanly`;
