/**
 * One connection of the local runtime: its client (opened on first use from its plan, again after
 * its credentials could not be had or its entry changed), the poller Lambda's own handler under
 * its name — checkpoints `<connection>#<collection>`, event source `accounting.<connection>` — and,
 * with many connections, its health: `Connection.Unhealthy` once when it fails as a whole (its
 * credentials refused, missing or malformed, its service not answering), `Connection.Recovered`
 * once when it answers again. Nothing here touches another connection's state.
 */
import type { AccountingApi } from '../accounting/api.js';
import { type AccountingClient, createAccountingClient } from '../accounting/client.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import { classifyConnectionFailure, type HealthReport, recordHealth } from '../core/connections/health.js';
import { healthOf, sourceOf } from '../core/connections/poll-connection.js';
import { requestLimiterFor } from '../core/connections/request-limiter.js';
import type { RateLimiter } from '../core/connections/token-bucket.js';
import type { Clock, Logger } from '../core/ports.js';
import { type PollOptions, pollOptionsSchema } from '../core/sync/poll-options.js';
import { createHandler as createPollHandler, type PollChangesSummary } from '../handlers/poll-changes.js';
import type { PollerSettings } from '../handlers/poller-config.js';
import type { ConnectionPlan } from './connection-plans.js';
import { lazyApi } from './lazy-api.js';
import { LOCAL_RESOURCES, type LocalStores } from './local-stores.js';
import type { PollStatusWriter } from './poll-status.js';
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
  /** Many connections: record each one's health and name it in the updates. */
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
  poll(): Promise<PollChangesSummary>;
  close(): Promise<void>;
}

const noPoll = (failed: number): PollChangesSummary => ({
  published: 0,
  requests: 0,
  rateLimited: 0,
  failed,
  conflicts: 0,
  unavailable: 0,
  more: false,
  collections: [],
});

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
 * Records how a poll of the connection went (many connections only): the stored state and its
 * event change once per change; the view hears of a change once too.
 */
function healthRecorder(name: string, deps: ConnectionPollerDeps) {
  let announced: string | undefined;
  return async (report: HealthReport | undefined) => {
    if (!report || !deps.many) return;
    const { checkpoints } = deps.stores;
    await recordHealth(
      {
        checkpoints,
        publisher: deps.bus(),
        clock: deps.clock,
        logger: deps.logger,
        source: sourceOf({ name }),
      },
      name,
      report,
    );
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
  let failure: HealthReport | undefined;
  const client = clientOf(() => plan, deps);
  const api = lazyApi(client.open, client.opened, (error) => {
    failure ??= classifyConnectionFailure(error);
  });
  const handler = () => {
    const options = pollOptionsSchema.parse({
      ...deps.settings.options,
      ...(deps.many ? { source: sourceOf({ name }) } : {}),
      connection: name,
      variant: plan.variant,
      claimBucket: LOCAL_RESOURCES.archiveBucket,
      ...deps.poll,
    });
    const poll = createPollHandler({
      api,
      checkpoints: deps.stores.checkpoints,
      publisher: deps.bus(),
      objectStore: deps.stores.archive,
      clock: deps.clock,
      logger: deps.logger,
      settings: { options, collections: [...plan.collections], concurrency: deps.settings.concurrency },
    });
    return { options, poll };
  };
  let current: ReturnType<typeof handler> | undefined;
  const health = healthRecorder(name, deps);
  return {
    name,
    plan: () => plan,
    update(next) {
      if (next.revision === plan.revision) return;
      plan = next;
      void client.reset().catch(() => {});
      current = undefined;
    },
    api,
    open: client.open,
    async poll() {
      failure = undefined;
      if (deps.many) {
        try {
          await client.open();
        } catch (error) {
          if (!(error instanceof CredentialsUnavailableError)) throw error;
          const cause = error.cause instanceof Error ? error.cause.name : 'Error';
          await health({ ok: false, reason: 'credentials', error: { name: cause } });
          return noPoll(plan.collections.length);
        }
      }
      current ??= handler();
      const summary = await pollSlice(name, current, deps);
      await health(healthOf(summary, failure));
      return summary;
    },
    close: client.reset,
  };
}

/** One slice: the handler with a time budget, then the status file and the view's updates. */
async function pollSlice(
  name: string,
  handler: { options: PollOptions; poll: ReturnType<typeof createPollHandler> },
  deps: ConnectionPollerDeps,
): Promise<PollChangesSummary> {
  const { clock, halt } = deps;
  const started = clock.now();
  const endsAt = started.getTime() + deps.budgetMs;
  const summary = await handler.poll(
    {},
    {
      // The poller stops starting pages when less than minRemainingMs is left: past the budget.
      getRemainingTimeInMillis: () =>
        halt.aborted ? -1 : handler.options.minRemainingMs + endsAt - clock.now().getTime(),
      abortSignal: halt,
    },
  );
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
  return summary;
}
