/**
 * The local runtime: everything `npm start` runs, wired in one process.
 *
 *   sandbox (optional, with its activity generator; `--companies N`: N companies)
 *   embedded dynalite + s3rver (data under `.local/`, surviving restarts)
 *   the local bus with the routing table of functions/core/routes.ts, journaled under `<data-dir>/bus/`
 *   the poller (core change detector) on an interval, per connection
 *   every action, delivered by the bus to the same entry code the Lambda handlers run
 *
 * One connection by default (as configured). With `companies` (the sandbox's, `sandbox-1` …
 * `sandbox-N`) or `connectionsFile` (a registry file) each connection is polled as its own loop
 * with its own client, rate limit, checkpoints, event source and health (`local-polling.ts`).
 *
 * `stop()` stops cleanly: no new poll, the running ones finish (their checkpoints are saved after
 * the bus journaled their events on disk), the deliveries in flight finish (queued ones stay
 * journaled), then the stores and servers close. A restart — after a clean stop or a kill -9 —
 * resumes from the checkpoints and delivers what the journal holds and a subscriber had not
 * handled; the actions' idempotency records (in dynalite) keep effects from repeating.
 */
import { setMaxListeners } from 'node:events';
import type { Sandbox } from '#sandbox/index.js';
import { connectionEventSource } from '../core/connection.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { ConnectionEntryError } from '../core/connections/connection-entry.js';
import { ConnectionSecretError } from '../core/connections/connection-secret.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import type { Logger } from '../core/ports.js';
import { checkpointKey, emptyCheckpoint } from '../core/sync/checkpoint-state.js';
import { systemClock } from '../shared/clock.js';
import { ConfigError } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import type { PollerSettings } from '../wiring/poller-config.js';
import { type LocalActions, startLocalActions } from './local-actions.js';
import type { LocalConnections } from './local-connections.js';
import type { LocalIntake } from './local-intake.js';
import { createLocalPolling } from './local-polling.js';
import type { LocalStores } from './local-stores.js';
import { createPollStatusWriter } from './poll-status.js';
import { credentialsSettingOf } from './refused-credentials.js';
import { backfillProgress, runtimeOf } from './runtime-control.js';
import {
  DEFAULT_MAX_CONCURRENT_POLLS,
  DEFAULT_POLL_BUDGET_MS,
  type Runtime,
  type RuntimeOptions,
} from './runtime-options.js';
import {
  openBus,
  openConnections,
  openIntake,
  openStores,
  pollerSettingsOf,
  type RuntimeContext,
  startService,
} from './runtime-parts.js';
import { checkRuntimeSettings, LocalRuntimeConfigError } from './runtime-settings.js';

export {
  accountingConfigFor,
  BUS_DIR,
  DEAD_LETTERS_FILE,
  DEFAULT_POLL_BUDGET_MS,
  type Runtime,
  type RuntimeOptions,
} from './runtime-options.js';
export { LocalRuntimeConfigError } from './runtime-settings.js';

const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What a run of many connections refuses (one error naming each). */
function checkManyConnections(options: RuntimeOptions): void {
  const problems: string[] = [];
  if (options.companies !== undefined && options.connectionsFile !== undefined)
    problems.push('--companies and --connections: choose one (the sandbox’s companies, or a registry file)');
  if (options.companies !== undefined && options.sandbox === false)
    problems.push('--companies polls the sandbox’s companies: it needs the sandbox (drop --no-sandbox)');
  if (options.env[ENV.eventSource]?.trim())
    problems.push(`${ENV.eventSource}: with many connections each publishes as accounting.<connection>`);
  if (problems.length > 0) throw new LocalRuntimeConfigError(`invalid settings:\n  ${problems.join('\n  ')}`);
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const cleanup: (() => Promise<void>)[] = [];
  const ctx: RuntimeContext = {
    emit: options.onUpdate ?? (() => {}),
    logger: options.logger ?? quietLogger,
    clock: options.clock ?? systemClock,
    onClose: (close) => cleanup.push(close),
  };
  const closeAll = async () => {
    for (const close of cleanup.reverse()) await close().catch(() => {});
    cleanup.length = 0;
  };
  // Every setting of every section, before anything is started or created.
  checkRuntimeSettings({
    env: options.env,
    sandbox: options.sandbox !== false,
    connections: options.connectionsFile !== undefined,
    baseUrl: options.baseUrl,
    authUrl: options.authUrl,
    actions: options.actions,
    intake: options.intake !== undefined,
    startFrom: options.startFrom,
  });
  if (options.companies !== undefined || options.connectionsFile !== undefined) checkManyConnections(options);
  try {
    const sandbox = await startService(options, ctx);
    const settings = pollerSettingsOf(options.env);
    // The connections before the stores: a registry that cannot be run creates no data directory.
    const connections = await openConnections(options, sandbox, settings, ctx);
    const stores = await openStores(options, ctx);
    return await assemble(options, ctx, { sandbox, stores, settings, connections, closeAll });
  } catch (error) {
    await closeAll();
    throw error;
  }
}

interface Assembly {
  sandbox: Sandbox | undefined;
  stores: LocalStores;
  settings: PollerSettings;
  connections: LocalConnections;
  closeAll: () => Promise<void>;
}

/** The actions, the bus, the polling (the core's shard cycle on a timer), the intake. */
async function assemble(options: RuntimeOptions, ctx: RuntimeContext, a: Assembly): Promise<Runtime> {
  const { connections } = a;
  const halt = new AbortController();
  // Every request in flight of every connection listens to it: no leak, however many there are.
  setMaxListeners(0, halt.signal);
  const initial = (await connections.registry.scan()).entries;
  const primary = initial.find((e) => !e.paused);
  // The configured connection: its client now, so a bad setting stops the start (exit code 2).
  if (connections.configured && primary) await openOrConfigError(connections, primary);
  const actions =
    options.actions && primary
      ? await startLocalActions({ connections, stores: a.stores, logger: ctx.logger, clock: ctx.clock })
      : undefined;
  const eventSource = primary ? connectionEventSource(primary) : 'accounting.local';
  const named = () => connections.size() > 1;
  const parts = await openBus(
    options,
    ctx,
    a.stores,
    actions,
    initial.length === 1 ? eventSource : 'accounting.local',
    named,
  );
  const { bus } = parts;
  const intake = primary
    ? await openIntake(options, ctx, {
        connections,
        stores: a.stores,
        bus,
        primary,
        named: initial.length > 1,
      })
    : undefined;
  announceStart(options, ctx, a, { primary, actions, intake, initial });
  const progress =
    initial.length === 1 && primary
      ? await backfillProgress(connections, primary, options, ctx, a.stores, bus)
      : undefined;
  const polling = createLocalPolling({
    connections,
    checkpoints: a.stores.checkpoints,
    publisher: bus,
    objectStore: a.stores.archive,
    clock: ctx.clock,
    logger: ctx.logger,
    emit: ctx.emit,
    pollStatus: createPollStatusWriter(a.stores.dataDir),
    halt: halt.signal,
    settings: a.settings,
    poll: { ...(options.startFrom ? { startFrom: options.startFrom } : {}), ...(options.poll ?? {}) },
    budgetMs: options.pollBudgetMs ?? DEFAULT_POLL_BUDGET_MS,
    maxConcurrent: options.maxConcurrentPolls ?? DEFAULT_MAX_CONCURRENT_POLLS,
    ...(progress ? { onSummary: progress } : {}),
    credentialsSetting: (entry) => credentialsSettingOf(entry, options.env),
  });
  return runtimeOf(options, ctx, {
    ...a,
    halt,
    bus,
    polling,
    actions,
    intake,
    deliveries: parts.deliveries,
    deadLetterStore: parts.deadLetterStore,
    primary,
    initial: initial.filter((e) => !e.paused).map((e) => e.name),
  });
}

function announceStart(
  options: RuntimeOptions,
  ctx: RuntimeContext,
  a: Assembly,
  parts: {
    primary: ConnectionEntry | undefined;
    actions: LocalActions | undefined;
    intake: LocalIntake | undefined;
    initial: readonly ConnectionEntry[];
  },
): void {
  const { primary, actions, intake } = parts;
  ctx.emit({
    kind: 'started',
    service: a.connections.service,
    sandbox: a.sandbox !== undefined,
    dataDir: a.stores.dataDir,
    collections: primary ? collectionsOf(primary) : [],
    intervalMs: options.intervalMs,
    actions: actions?.routes.map((r) => r.id) ?? [],
    connections: parts.initial.filter((e) => !e.paused).map((e) => e.name),
    s3Endpoint: a.stores.servers.s3Endpoint,
    ...(intake ? { intake: { url: intake.url, sources: intake.sources, named: intake.named } } : {}),
  });
}

/** The configured connection's client, or the runtime's configuration error (exit code 2). */
async function openOrConfigError(connections: LocalConnections, entry: ConnectionEntry) {
  try {
    return await connections.apiFor(entry);
  } catch (error) {
    const setting =
      error instanceof ConfigError ||
      error instanceof ConnectionSecretError ||
      error instanceof ConnectionEntryError;
    if (!setting) throw error;
    throw new LocalRuntimeConfigError(error.message, { cause: error });
  }
}

/**
 * Puts the checkpoints of `collections` back to empty (versioned writes through the port), so the
 * next poll reads from `startFrom` again: what `backfill --since` does before it polls.
 */
export async function resetCheckpoints(
  stores: LocalStores,
  connection: string,
  collections: readonly string[],
): Promise<number> {
  let reset = 0;
  for (const c of collections) {
    const key = checkpointKey(connection, c);
    const stored = await stores.checkpoints.get(key);
    if (!stored) continue;
    await stores.checkpoints.put(key, emptyCheckpoint(), stored.version);
    reset += 1;
  }
  return reset;
}
