/** What the commands that start the runtime share: settings from env/.env, the view, the logger, errors. */
import { resolve } from 'node:path';
import type { CollectionName } from '#functions/accounting/collections.js';
import type { DeliveryTarget } from '#functions/core/delivery/delivery-targets.js';
import type { Logger } from '#functions/core/ports.js';
import { ConfigError } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { createLogger } from '#functions/shared/logger.js';
import type { SandboxOptions } from '#sandbox/index.js';
import type { CommandContext } from '../command.js';
import { captureConsole } from '../console-capture.js';
import { loadDotEnv } from '../environment.js';
import { createView, fitLogLine, plainWidth, type View } from '../live-view.js';
import { LocalRuntimeConfigError, type Runtime, type RuntimeOptions, startRuntime } from '../runtime.js';
import { checkRuntimeSettings } from '../runtime-settings.js';
import type { RuntimeUpdate } from '../runtime-update.js';
import { UsageError } from '../usage-error.js';
import { recordWarnings, type WarningsFile } from '../warnings-file.js';
import type { ConnectionOptions } from './shared-flags.js';

/** Actions per second of the sandbox's activity generator under `run` (orders, edits, invoicing). */
export const ACTIVITY_PER_SECOND = 0.5;

export interface RuntimeCommandInput {
  command: string;
  connection: ConnectionOptions;
  collections?: readonly string[];
  intervalMs: number;
  /** `--interval` was given (it wins over a registry entry's poll interval). */
  intervalFromFlag?: boolean;
  /** `run --companies N`: the sandbox's companies, each its own connection. */
  companies?: number;
  /** `run --connections FILE`: the connections of a registry file. */
  connectionsFile?: string;
  actions: boolean;
  eventsOut?: string;
  startFrom?: string;
  backfillProgress?: boolean;
  deliverTo?: readonly DeliveryTarget[];
  /** Run the sandbox's activity generator (default true; one-shot commands turn it off). */
  activity?: boolean;
  /** Serve the e-shop order intake on this port (`run --intake-port`). */
  intake?: { port: number };
  /** Sees every update the view sees (the console's feed). */
  observe?: (update: RuntimeUpdate) => void;
  /**
   * How long one poll starts new pages (default: short slices, so a backfill shows progress).
   * `sync --once` reads each collection to its end in one poll: how many polls a time budget
   * would cut it into depends on the machine's speed, and so would every count summed over them.
   */
  pollBudgetMs?: number;
}

export interface StartedRuntime {
  runtime: Runtime;
  view: View;
  logger: Logger;
  /** The run's warnings, whole, in the data directory. */
  warnings: WarningsFile;
}

/**
 * The sandbox's settings: its SANDBOX_* variables (docs/sandbox.md) apply, except that the port is
 * ephemeral unless SANDBOX_PORT says otherwise, the variant follows ACCOUNTING_SERVICE_VARIANT
 * unless SANDBOX_VARIANT says otherwise (the client and its twin speak the same variant), and the
 * activity generator runs for `run` (at SANDBOX_ACTIVITY per second if set, else
 * ACTIVITY_PER_SECOND) and is off for one-shot commands.
 */
export async function sandboxOptions(
  input: RuntimeCommandInput,
  ctx: CommandContext,
): Promise<Partial<SandboxOptions>> {
  const { parseSandboxArgs, SandboxCliError, sandboxFlags } = await import('#sandbox/main.js');
  let parsed: SandboxOptions | 'help';
  try {
    parsed = parseSandboxArgs([], ctx.env);
  } catch (error) {
    if (error instanceof SandboxCliError) {
      // Only the environment was parsed: name its variables, not the sandbox's own flags.
      const message = error.message.replace(/--([a-z-]+)/g, (flag, name: string) => {
        return sandboxFlags[name]?.env ?? flag;
      });
      throw new UsageError(`sandbox settings: ${message}`, input.command, { cause: error });
    }
    throw error;
  }
  if (parsed === 'help') return {};
  // SANDBOX_ACTIVITY as the sandbox parsed it (0 = off) when set; else on at ACTIVITY_PER_SECOND.
  const fromEnv = ctx.env[ENV.sandboxActivity] !== undefined;
  const serviceVariant = ctx.env[ENV.serviceVariant]?.trim().toLowerCase();
  const followService =
    ctx.env[ENV.sandboxVariant] === undefined && (serviceVariant === 'sk' || serviceVariant === 'cz');
  return {
    ...parsed,
    ...(followService ? { variant: serviceVariant } : {}),
    port: ctx.env[ENV.sandboxPort] !== undefined ? (parsed.port ?? 0) : 0,
    activity: {
      ...parsed.activity,
      ...(fromEnv ? {} : { ratePerSecond: ACTIVITY_PER_SECOND }),
      enabled: input.activity !== false && (!fromEnv || parsed.activity?.enabled === true),
    },
  };
}

/**
 * The sandbox's settings (with --no-sandbox: none) after checking every setting of every section:
 * one usage error names all the bad ones (SANDBOX_*, accounting, poller, actions).
 */
export async function checkedSettings(
  input: RuntimeCommandInput,
  ctx: CommandContext,
): Promise<Partial<SandboxOptions>> {
  const { problems, sandbox } = await settingsOf(input, ctx);
  if (problems.length > 0) {
    throw new UsageError(`invalid settings:\n  ${problems.join('\n  ')}`, input.command);
  }
  return sandbox;
}

/** The value of `--name VALUE` or `--name=VALUE` in a raw argv. */
function rawFlag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0 && argv[i + 1] !== undefined && !argv[i + 1]?.startsWith('--')) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/**
 * `settingsProblems` of a command that starts the runtime: its settings checked as the flags in the
 * raw argv most likely meant (they failed to parse), with `actions` the command's default.
 */
export function runtimeSettingsProblems(command: string, actionsByDefault: boolean) {
  return async (argv: readonly string[], ctx: CommandContext): Promise<string[]> => {
    const env = { ...ctx.env };
    loadDotEnv(env, ctx.cwd);
    const baseUrl = rawFlag(argv, 'base-url');
    const authUrl = rawFlag(argv, 'auth-url');
    const input: RuntimeCommandInput = {
      command,
      connection: {
        sandbox: !argv.includes('--no-sandbox') && baseUrl === undefined,
        ...(baseUrl !== undefined ? { baseUrl } : {}),
        ...(authUrl !== undefined ? { authUrl } : {}),
      } as ConnectionOptions,
      intervalMs: 0,
      actions: actionsByDefault ? !argv.includes('--no-actions') : argv.includes('--actions'),
      ...(argv.some((a) => a.startsWith('--intake-port')) ? { intake: { port: 0 } } : {}),
    };
    return (await settingsOf(input, { ...ctx, env })).problems;
  };
}

async function settingsOf(
  input: RuntimeCommandInput,
  ctx: CommandContext,
): Promise<{ problems: string[]; sandbox: Partial<SandboxOptions> }> {
  const problems: string[] = [];
  let sandbox: Partial<SandboxOptions> = {};
  if (input.connection.sandbox) {
    try {
      sandbox = await sandboxOptions(input, ctx);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(error.message);
    }
  }
  try {
    checkRuntimeSettings({
      env: ctx.env,
      sandbox: input.connection.sandbox,
      connections: input.connectionsFile !== undefined,
      baseUrl: input.connection.baseUrl,
      authUrl: input.connection.authUrl,
      actions: input.actions,
      intake: input.intake !== undefined,
      startFrom: input.startFrom,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  return { problems, sandbox };
}

/** Starts the runtime for a command; configuration problems become `UsageError` (exit 2). */
export async function startRuntimeForCommand(
  input: RuntimeCommandInput,
  ctx: CommandContext,
): Promise<StartedRuntime> {
  loadDotEnv(ctx.env, ctx.cwd);
  const sandbox = await checkedSettings(input, ctx);
  const dataDir = resolve(ctx.cwd, input.connection.dataDir);
  // Every warning whole in the data directory: the live view shows the last few, cut to the width.
  const warnings = recordWarnings(
    createView(ctx.stdout, { json: input.connection.json, plainWidth: plainWidth(ctx.env) }),
    dataDir,
  );
  const live = !input.connection.json && ctx.stdout.isTTY === true;
  const view = live ? withConsoleCaptured(warnings.view) : warnings.view;
  // Warnings and errors of the components: into the live view, else to stderr. Redacted by the logger.
  const logger = createLogger({
    level: 'warn',
    format: input.connection.json ? 'json' : 'pretty',
    service: 'accounting-events',
    sink: live
      ? (line) => view.update({ kind: 'warning', message: line.slice(13) })
      : (line) =>
          ctx.stderr.write(`${input.connection.json ? line : fitLogLine(line, plainWidth(ctx.env))}\n`),
  });
  if (input.connection.sandbox && ctx.env[ENV.baseUrl]) {
    view.update({
      kind: 'warning',
      message: `${ENV.baseUrl} is set but the sandbox is used: pass --no-sandbox to talk to the service at it`,
    });
  }
  const options: RuntimeOptions = {
    sandbox: input.connection.sandbox ? { options: sandbox } : false,
    ...(input.connection.baseUrl ? { baseUrl: input.connection.baseUrl } : {}),
    ...(input.connection.authUrl ? { authUrl: input.connection.authUrl } : {}),
    env: ctx.env,
    dataDir,
    command: input.command,
    ...(input.collections ? { collections: input.collections as CollectionName[] } : {}),
    intervalMs: input.intervalMs,
    ...(input.intervalFromFlag ? { intervalFromFlag: true } : {}),
    ...(input.companies !== undefined ? { companies: input.companies } : {}),
    ...(input.connectionsFile !== undefined
      ? { connectionsFile: resolve(ctx.cwd, input.connectionsFile) }
      : {}),
    actions: input.actions,
    ...(input.eventsOut ? { eventsOut: resolve(ctx.cwd, input.eventsOut) } : {}),
    ...(input.startFrom ? { startFrom: input.startFrom } : {}),
    ...(input.backfillProgress === false ? { backfillProgress: false } : {}),
    ...(input.pollBudgetMs !== undefined ? { pollBudgetMs: input.pollBudgetMs } : {}),
    ...(input.deliverTo ? { deliverTo: input.deliverTo } : {}),
    ...(input.intake ? { intake: input.intake } : {}),
    onUpdate: (u) => {
      view.update(u);
      input.observe?.(u);
    },
    logger,
  };
  try {
    const runtime = await startRuntime(options);
    warnings.open();
    return { runtime, view, logger, warnings };
  } catch (error) {
    view.close();
    if (error instanceof LocalRuntimeConfigError || error instanceof ConfigError) {
      throw new UsageError(error.message, input.command, { cause: error });
    }
    throw error;
  }
}

/** The live view with `console` output turned into its warnings until it closes. */
function withConsoleCaptured(view: View): View {
  const restore = captureConsole((text) => view.update({ kind: 'warning', message: text }));
  return {
    update: (update) => view.update(update),
    close() {
      restore();
      view.close();
    },
  };
}

/** Runs `work` on the started runtime, then always stops the runtime and closes the view. */
export async function withRuntime<T>(
  started: StartedRuntime,
  work: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  try {
    return await work(started.runtime);
  } finally {
    await started.runtime.stop();
    started.view.close();
  }
}

export interface CaughtUpTotals {
  published: number;
  requests: number;
  /** Collections (of every connection) whose last poll failed, or ended in a checkpoint conflict. */
  failed: number;
  /** Their names, sorted (a name once per connection it failed on). */
  failedCollections: string[];
}

/**
 * Polls until every collection is caught up (or the signal aborts), then lets the bus drain. A
 * collection that fails on every poll counts once: each poll reads the same collections in the
 * same order, so a collection is known by its place in that order (its name alone is not enough
 * with several connections).
 */
export async function pollUntilCaughtUp(runtime: Runtime, signal: AbortSignal): Promise<CaughtUpTotals> {
  let published = 0;
  let requests = 0;
  const failed = new Map<number, string>();
  for (;;) {
    const summary = await runtime.pollOnce();
    published += summary.published;
    requests += summary.requests;
    summary.collections.forEach((c, place) => {
      if (c.status === 'failed' || c.status === 'conflict') failed.set(place, c.collection);
      else failed.delete(place);
    });
    if (!summary.more || signal.aborted) break;
  }
  await runtime.drain();
  const failedCollections = [...failed.values()].sort();
  return { published, requests, failed: failedCollections.length, failedCollections };
}
