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
 * with its own client, rate limit, checkpoints, event source and health (`connection-loops.ts`).
 *
 * `stop()` stops cleanly: no new poll, the running ones finish (their checkpoints are saved after
 * the bus journaled their events on disk), the deliveries in flight finish (queued ones stay
 * journaled), then the stores and servers close. A restart — after a clean stop or a kill -9 —
 * resumes from the checkpoints and delivers what the journal holds and a subscriber had not
 * handled; the actions' idempotency records (in dynalite) keep effects from repeating.
 */
import { setMaxListeners } from 'node:events';
import type { Sandbox } from '../../sandbox/index.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import { createMemoryRateLimiter } from '../adapters/local/memory-rate-limiter.js';
import { sourceOf } from '../core/connections/poll-connection.js';
import type { Logger } from '../core/ports.js';
import { checkpointKey, emptyCheckpoint } from '../core/sync/checkpoint-state.js';
import type { PollerSettings } from '../handlers/poller-config.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import { type ConnectionActions, startConnectionActions } from './connection-actions.js';
import type { ConnectionPlan } from './connection-plans.js';
import {
  type ConnectionPoller,
  CredentialsUnavailableError,
  createConnectionPoller,
} from './connection-poller.js';
import type { LocalIntake } from './local-intake.js';
import type { LocalStores } from './local-stores.js';
import { createPollStatusWriter } from './poll-status.js';
import { runtimeOf, withBackfillProgress } from './runtime-control.js';
import { DEFAULT_POLL_BUDGET_MS, type Runtime, type RuntimeOptions } from './runtime-options.js';
import {
  type Connections,
  openBus,
  openIntake,
  openStores,
  planConnections,
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
  if (options.intake)
    problems.push('--intake-port serves one connection: run it without --companies or --connections');
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
    const connections = await planConnections(options, sandbox, settings, ctx.clock);
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
  connections: Connections;
  closeAll: () => Promise<void>;
}

/** The pollers (one per connection, made when it is first polled), their actions, the bus, the intake. */
async function assemble(options: RuntimeOptions, ctx: RuntimeContext, a: Assembly): Promise<Runtime> {
  const { many } = a.connections;
  const halt = new AbortController();
  // Every request in flight of every connection listens to it: no leak, however many there are.
  setMaxListeners(0, halt.signal);
  let bus: LocalBus | undefined;
  const limiter = many ? createMemoryRateLimiter({ clock: ctx.clock }) : undefined;
  const pollStatus = createPollStatusWriter(a.stores.dataDir);
  const pollers = new Map<string, ConnectionPoller>();
  let actions: ConnectionActions | undefined;
  const make = (plan: ConnectionPlan) => {
    if (plan.rateLimit) limiter?.setLimit(plan.name, plan.rateLimit);
    const poller = createConnectionPoller(plan, {
      ...ctx,
      stores: a.stores,
      bus: () => bus as LocalBus,
      pollStatus,
      halt: halt.signal,
      budgetMs: options.pollBudgetMs ?? DEFAULT_POLL_BUDGET_MS,
      settings: a.settings,
      poll: { ...(options.startFrom ? { startFrom: options.startFrom } : {}), ...(options.poll ?? {}) },
      limiter,
      many,
    });
    pollers.set(plan.name, poller);
    return poller;
  };
  for (const plan of a.connections.initial) if (!plan.paused) make(plan);
  ctx.onClose(async () => {
    await Promise.all([...pollers.values()].map((p) => p.close().catch(() => {})));
  });
  const primary = pollers.values().next().value as ConnectionPoller | undefined;
  // One connection: its client now, so a bad setting stops the start (exit code 2), as always.
  const client = !many && primary ? await openOrConfigError(primary) : undefined;
  if (options.actions && pollers.size > 0)
    actions = await startConnectionActions([...pollers.values()], { ...ctx, stores: a.stores });
  const eventSource = primary
    ? sourceOf({ name: primary.name, source: a.settings.options.source })
    : 'accounting.local';
  const parts = await openBus(options, ctx, a.stores, actions, many ? 'accounting.local' : eventSource, many);
  bus = parts.bus;
  const intake =
    primary && client
      ? await openIntake(options, ctx, {
          api: client,
          stores: a.stores,
          bus,
          connection: primary.plan(),
          eventSource,
        })
      : undefined;
  announceStart(options, ctx, a, { primary, actions, intake, connections: [...pollers.keys()] });
  // `pollerFor` of the loops: a connection that appears later gets its poller and actions then.
  const pollerFor = async (plan: ConnectionPlan) => {
    const known = pollers.get(plan.name);
    if (known) return known;
    const poller = make(plan);
    await actions?.add(poller);
    return poller;
  };
  if (!many && primary)
    pollers.set(primary.name, await withBackfillProgress(primary, options, ctx, a.stores));
  return runtimeOf(options, ctx, {
    ...a,
    halt,
    haltLimiter: limiter?.halt,
    bus,
    pollers,
    pollerFor,
    actions,
    intake,
    deliveries: parts.deliveries,
    deadLetterStore: parts.deadLetterStore,
    primary,
  });
}

function announceStart(
  options: RuntimeOptions,
  ctx: RuntimeContext,
  a: Assembly,
  parts: {
    primary: ConnectionPoller | undefined;
    actions: ConnectionActions | undefined;
    intake: LocalIntake | undefined;
    connections: string[];
  },
): void {
  const { primary, actions, intake } = parts;
  ctx.emit({
    kind: 'started',
    service: a.connections.service,
    sandbox: a.sandbox !== undefined,
    dataDir: a.stores.dataDir,
    collections: primary?.plan().collections ?? [],
    intervalMs: options.intervalMs,
    actions: actions?.routes.map((r) => r.id) ?? [],
    connections: parts.connections,
    s3Endpoint: a.stores.servers.s3Endpoint,
    ...(intake ? { intake: { url: intake.url, sources: intake.sources } } : {}),
  });
}

async function openOrConfigError(poller: ConnectionPoller) {
  try {
    return await poller.open();
  } catch (error) {
    if (!(error instanceof CredentialsUnavailableError)) throw error;
    const cause = error.cause instanceof Error ? error.cause : error;
    throw new LocalRuntimeConfigError(cause.message, { cause });
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
