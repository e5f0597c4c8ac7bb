/**
 * One connection of the local runtime: its client (opened on first use from its plan, again after
 * its credentials could not be had or its entry changed) and its polls, each through the core's
 * `pollConnection` — the Lambda poller's own path — under its name: checkpoints
 * `<connection>#<collection>`, event source `accounting.<connection>`, its health
 * (`Connection.Unhealthy` once when it fails as a whole, `Connection.Recovered` once when it
 * answers again). Only the adapters are local: the stores, the bus, the limiter, the plan's
 * credentials. Nothing here touches another connection's state.
 */
import type { AccountingApi } from '../accounting/api.js';
import { apiThrough } from '../accounting/api-through.js';
import { type AccountingClient, createAccountingClient } from '../accounting/client.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import { ConnectionSecretError } from '../core/connections/connection-secret.js';
import type { HealthReport, HealthState } from '../core/connections/health.js';
import { type ConnectionPollResult, pollConnection } from '../core/connections/poll-connection.js';
import { requestLimiterFor } from '../core/connections/request-limiter.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { Clock, Logger } from '../core/ports.js';
import { type PollOptions, pollOptionsSchema } from '../core/sync/poll-options.js';
import type { PollerSettings } from '../handlers/poller-config.js';
import { ConfigError } from '../shared/config.js';
import type { ConnectionPlan } from './connection-plans.js';
import { localEntry } from './local-entry.js';
import { LOCAL_RESOURCES, type LocalStores } from './local-stores.js';
import type { PollStatusWriter } from './poll-status.js';
import { type PollSummary, type RequestCounts, summarizePoll } from './poll-summary.js';
import type { RuntimeUpdate } from './runtime-update.js';

export interface ConnectionPollerDeps {
  stores: LocalStores;
  /** The bus (bound late: it is built after the pollers, whose clients the actions use). */
  bus: () => LocalBus;
  clock: Clock;
  logger: Logger;
  emit: (update: RuntimeUpdate) => void;
  pollStatus: PollStatusWriter;
  /** Aborted when the runtime stops: the poll in flight starts no new page and aborts its requests. */
  halt: AbortSignal;
  /** How long one poll starts new pages (a backfill is read in slices). */
  budgetMs: number;
  settings: PollerSettings;
  /** Overrides of the change detector's options (`backfill --since`, tests' lookback). */
  poll: Partial<PollOptions>;
  limiter?: RateLimiter | undefined;
  /**
   * Many connections: each publishes as `accounting.<connection>`, and the view hears of each one's
   * health and names it in the updates (one connection's health is recorded all the same).
   */
  many: boolean;
}

/** A connection's credentials could not be had (its secret is missing or malformed). */
export class CredentialsUnavailableError extends Error {
  override readonly name = 'CredentialsUnavailableError';
  constructor(
    readonly connection: string,
    cause: unknown,
  ) {
    super(
      `connection '${connection}': credentials unavailable: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

export interface ConnectionPoller {
  readonly name: string;
  /** The plan in force (the registry may change it between cycles). */
  plan(): ConnectionPlan;
  /** Replaces the plan; a changed one opens the client again on its next use. */
  update(plan: ConnectionPlan): void;
  /** Its service, for its actions and intake (the client opens on first use). */
  readonly api: AccountingApi;
  /** Opens the client now (throws `CredentialsUnavailableError`). */
  open(): Promise<AccountingClient>;
  /** One poll slice of its collections; the events are on the bus when it resolves. */
  poll(): Promise<PollSummary>;
  close(): Promise<void>;
}

/** The client of a plan, opened once and again after a failure; `reset` drops it. */
function clientOf(plan: () => ConnectionPlan, deps: ConnectionPollerDeps) {
  let opening: Promise<AccountingClient> | undefined;
  let opened: AccountingClient | undefined;
  const open = (): Promise<AccountingClient> => {
    const { name } = plan();
    opening ??= plan()
      .config()
      .then(
        (config) => {
          opened = createAccountingClient(config, {
            clock: deps.clock,
            logger: deps.logger,
            reloadCredentials: async () => (await plan().config()).credentials,
            ...(deps.limiter ? { limiter: requestLimiterFor(deps.limiter, name) } : {}),
          });
          return opened;
        },
        (error: unknown) => {
          opening = undefined; // read again on the next use
          throw new CredentialsUnavailableError(name, error);
        },
      );
    return opening;
  };
  const reset = async () => {
    const old = opened;
    opening = undefined;
    opened = undefined;
    await old?.close();
  };
  return { open, reset, opened: () => opened };
}

/**
 * The API of a client opened on first use, for the connection's actions and intake (its polls
 * take the open client itself, through `pollConnection`).
 */
function openedOnUse(open: () => Promise<AccountingApi>): AccountingApi {
  return apiThrough(open);
}

/** The open client for a poll; credentials that cannot be had are the core's credentials errors. */
async function clientForPoll(open: () => Promise<AccountingClient>): Promise<AccountingClient> {
  try {
    return await open();
  } catch (error) {
    if (!(error instanceof CredentialsUnavailableError)) throw error;
    const cause = error.cause;
    if (cause instanceof ConfigError || cause instanceof ConnectionSecretError) throw cause;
    throw new ConfigError([{ field: 'credentials', expected: error.message }], { cause: error });
  }
}

/** The view hears of a connection's health once per change (many connections only). */
function healthAnnouncer(name: string, deps: ConnectionPollerDeps) {
  let announced: string | undefined;
  return (report: HealthReport | undefined) => {
    if (!report || !deps.many) return;
    const state = report.ok ? 'healthy' : `unhealthy:${report.reason}`;
    if (state === announced) return;
    announced = state;
    deps.emit({
      kind: 'connection',
      connection: name,
      ...(report.ok ? { state: 'healthy' } : { state: 'unhealthy', reason: report.reason }),
    });
  };
}

export function createConnectionPoller(
  initial: ConnectionPlan,
  deps: ConnectionPollerDeps,
): ConnectionPoller {
  const { name } = initial;
  let plan = initial;
  const client = clientOf(() => plan, deps);
  const announce = healthAnnouncer(name, deps);
  /** Health states this poller announced (it owns its connection, as a shard's poller does). */
  const healthKnown = new Map<string, HealthState>();
  /** Collections that answered 404 in this run: reported once, then skipped. */
  const unavailable = new Set<string>();
  const options = (): PollOptions =>
    pollOptionsSchema.parse({
      ...deps.settings.options,
      connection: name,
      variant: plan.variant,
      claimBucket: LOCAL_RESOURCES.archiveBucket,
      ...deps.poll,
    });
  return {
    name,
    plan: () => plan,
    update(next) {
      if (next.revision === plan.revision) return;
      plan = next;
      void client.reset().catch(() => {});
    },
    api: openedOnUse(client.open),
    open: client.open,
    async poll() {
      const { clock, halt } = deps;
      const started = clock.now();
      const budgetLeft = sliceBudget(clock, deps.budgetMs);
      const pollOptions = options();
      const opened = client.opened();
      const before = opened?.stats();
      const result = await pollConnection(
        {
          apiFor: () => clientForPoll(client.open),
          checkpoints: deps.stores.checkpoints,
          publisher: deps.bus(),
          objectStore: deps.stores.archive,
          clock,
          logger: deps.logger,
          healthKnown,
          unavailable,
          // The poll starts no page once less than minRemainingMs is left: past the budget.
          remainingTimeMs: () => (halt.aborted ? -1 : pollOptions.minRemainingMs + budgetLeft()),
          signal: halt,
        },
        localEntry({
          name,
          variant: plan.variant,
          collections: plan.collections,
          // Many connections: each publishes as `accounting.<connection>`; one: as configured.
          source: deps.many ? undefined : deps.settings.options.source,
          intervalMs: plan.intervalMs,
          paused: plan.paused,
          rateLimit: plan.rateLimit,
        }),
        { options: pollOptions, concurrency: deps.settings.concurrency },
      );
      announce(result.health);
      const counted = countedBy(opened, before, client.opened());
      const summary = summarizePoll(result, plan.collections.length, clock.now().getTime(), counted);
      await reportPoll(name, started, result, summary, deps);
      return summary;
    },
    close: client.reset,
  };
}

/** The client's request counts over the poll, when one client served all of it (opened on the way, say). */
function countedBy(
  was: AccountingClient | undefined,
  before: RequestCounts | undefined,
  now: AccountingClient | undefined,
): { before: RequestCounts; after: RequestCounts } | undefined {
  if (!now || (was && was !== now)) return undefined;
  return { before: before ?? { requests: 0, rateLimited: 0 }, after: now.stats() };
}

/** The status file and the view's updates of one poll. */
async function reportPoll(
  name: string,
  started: Date,
  result: ConnectionPollResult,
  summary: PollSummary,
  deps: ConnectionPollerDeps,
): Promise<void> {
  const { clock } = deps;
  if (!result.polled && !deps.many) {
    deps.emit({ kind: 'warning', message: `poll of ${name} failed: credentials unavailable` });
  }
  for (const c of summary.collections) {
    if (c.status === 'ok' || deps.many) continue; // many: the connection's state says it
    deps.emit({ kind: 'warning', message: `poll of ${c.collection} ${c.status}: ${c.error?.message ?? ''}` });
  }
  await deps.pollStatus.record(name, summary, started);
  const lags = summary.collections.flatMap((c) => (c.lagMs !== undefined ? [c.lagMs] : []));
  deps.emit({
    kind: 'poll',
    at: started,
    durationMs: clock.now().getTime() - started.getTime(),
    events: summary.published,
    requests: summary.requests,
    ...(lags.length > 0 ? { lagMs: Math.max(...lags) } : {}),
    ...(deps.many ? { connection: name } : {}),
  });
}

/**
 * The time left of one poll slice. The budget starts when the poll first asks for it, just before
 * its first page: the setup before it (checkpoints, credentials) takes what it takes on a busy
 * machine, and counting it would let a slice end before it read a single page, so a backfill would
 * never move. The first ask gets the whole budget: every slice reads at least one page.
 */
function sliceBudget(clock: Clock, budgetMs: number): () => number {
  let endsAt: number | undefined;
  return () => {
    const now = clock.now().getTime();
    endsAt ??= now + budgetMs;
    return endsAt - now;
  };
}
