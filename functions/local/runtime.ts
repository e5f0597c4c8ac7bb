/**
 * The local runtime: everything `npm start` runs, wired in one process.
 *
 *   sandbox (optional, with its activity generator)
 *   embedded dynalite + s3rver (data under `.local/`, surviving restarts)
 *   the local bus with the routing table of functions/core/routes.ts, journaled under `<data-dir>/bus/`
 *   the poller (core change detector) on an interval
 *   every action, delivered by the bus to the same entry code the Lambda handlers run
 *
 * `stop()` stops cleanly: no new poll, the running one finishes (its checkpoints are saved after
 * the bus journaled its events on disk), the bus drains (deliveries and the outcomes they publish),
 * then the stores and servers close. A restart — after a clean stop or a kill -9 — resumes from the
 * checkpoints and delivers what the journal holds and a subscriber had not handled; the actions'
 * idempotency records (in dynalite) keep effects from repeating.
 */

import { join } from 'node:path';
import type { Sandbox, SandboxOptions } from '../../sandbox/index.js';
import { type AccountingClient, createAccountingClient } from '../accounting/client.js';
import { type CollectionName, isCollectionOf } from '../accounting/collections.js';
import { type AccountingConfig, parseAccountingConfig } from '../accounting/config.js';
import { openFileJournal } from '../adapters/local/bus-journal.js';
import { openFileDeadLetterStore } from '../adapters/local/dead-letter-store.js';
import { createLocalBus, type EventBridgeEvent, type LocalBus } from '../adapters/local/local-bus.js';
import type { DeliveryPolicy, DeliveryTarget } from '../core/delivery/delivery-targets.js';
import { IntakeConfigError } from '../core/intake/intake-config.js';
import type { Clock, Logger } from '../core/ports.js';
import { checkpointKey, emptyCheckpoint } from '../core/sync/checkpoint-state.js';
import { type PollOptions, pollOptionsSchema } from '../core/sync/poll-options.js';
import { createHandler as createPollHandler, type PollChangesSummary } from '../handlers/poll-changes.js';
import { loadPollerSettings, type PollerSettings } from '../handlers/poller-config.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import { httpDeliverySubscribers } from './delivery-subscriber.js';
import { accountingInputFromEnv, cliFieldName } from './environment.js';
import { type EventsOut, openEventsOut } from './events-out.js';
import type { HttpDelivery } from './http-delivery.js';
import type { RuntimeUpdate } from './live-view.js';
import { outcomeNote } from './live-view.js';
import { type LocalActions, startLocalActions } from './local-actions.js';
import { type LocalIntake, startLocalIntake } from './local-intake.js';
import { LOCAL_RESOURCES, type LocalStores, startLocalStores } from './local-stores.js';
import { createPollStatusWriter } from './poll-status.js';
import { checkRuntimeSettings, connectionOfUrl, LocalRuntimeConfigError } from './runtime-settings.js';

export { LocalRuntimeConfigError } from './runtime-settings.js';

export interface RuntimeOptions {
  /**
   * `false`: talk to the service configured by `baseUrl`/env. `true` or options: start the sandbox
   * in-process. `{ instance }`: use a sandbox someone else started (tests restart the runtime on it).
   */
  sandbox: boolean | { options?: Partial<SandboxOptions>; instance?: Sandbox };
  baseUrl?: string;
  authUrl?: string;
  /** Environment: credentials, client and action settings (names in shared/env-names.ts). */
  env: Record<string, string | undefined>;
  dataDir: string;
  /** The command running the runtime, recorded in the data directory's lock (e.g. `run`). */
  command?: string;
  collections?: readonly CollectionName[];
  intervalMs: number;
  actions: boolean;
  eventsOut?: string;
  /** Where a first run starts (`backfill --since`); absent = everything. */
  startFrom?: string;
  /** Overrides of the change detector's options (tests shorten the lookback). */
  poll?: Partial<PollOptions>;
  /**
   * How long one poll starts new pages (default 2 s): a backfill is read in slices, so its progress
   * moves and a stop waits for at most the pages in flight. The next slice follows at once.
   */
  pollBudgetMs?: number;
  /** Count the records once before a first run to show the backfill's progress (default true). */
  backfillProgress?: boolean;
  /** HTTP consumers the events are POSTed to, signed (`run --deliver-to`). */
  deliverTo?: readonly DeliveryTarget[];
  /** Retries and timeouts of those deliveries (tests shorten the backoff). */
  deliveryPolicy?: Partial<DeliveryPolicy>;
  /** How often the e-invoice status tracker runs locally; default: the poll interval. */
  trackerIntervalMs?: number;
  /** Serve the e-shop order intake (`POST /intake/<source>`) on this port (0 = ephemeral). */
  intake?: { port: number; host?: string };
  onUpdate?: (update: RuntimeUpdate) => void;
  logger?: Logger;
  clock?: Clock;
}

export interface Runtime {
  readonly bus: LocalBus;
  readonly stores: LocalStores;
  readonly api: AccountingClient;
  readonly sandbox: Sandbox | undefined;
  readonly connection: string;
  readonly collections: readonly CollectionName[];
  /** The HTTP delivery to `deliverTo` (its bus subscribers), when there are targets. */
  readonly deliveries: HttpDelivery | undefined;
  /** The e-shop order intake, when `intake` was given. */
  readonly intake: LocalIntake | undefined;
  /** Events published so far, per detail-type (record events and action outcomes). */
  counts(): ReadonlyMap<string, number>;
  /** One poll of every collection; events are on the bus when it resolves. */
  pollOnce(): Promise<PollChangesSummary>;
  /** Polls on the interval until `signal` aborts or `durationMs` passes, then stops cleanly. */
  run(options?: { signal?: AbortSignal; durationMs?: number }): Promise<void>;
  /** Waits until every delivery (and what it published) has finished. */
  drain(): Promise<void>;
  stop(reason?: string): Promise<void>;
}

/** How long one local poll starts new pages before it hands back (and the next slice starts). */
export const DEFAULT_POLL_BUDGET_MS = 2_000;

/** Pause of the local bus between receives of a failed delivery (unless the error says how long). */
const RETRY_DELAY_MS = 1000;

/** The bus journal's directory inside the data directory. */
export const BUS_DIR = 'bus';
/** The dead letters' file inside the bus directory. */
export const DEAD_LETTERS_FILE = 'dead-letters.jsonl';

const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export function accountingConfigFor(options: RuntimeOptions, sandbox: Sandbox | undefined): AccountingConfig {
  const fromEnv = accountingInputFromEnv(options.env);
  if (sandbox) {
    // The sandbox's own demo key; credentials in the environment are for the real service.
    return parseAccountingConfig(
      {
        ...fromEnv,
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        apiKey: sandbox.credentials.apiKey,
        clientId: undefined,
        clientSecret: undefined,
      },
      cliFieldName,
    );
  }
  return parseAccountingConfig(
    {
      ...fromEnv,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.authUrl ? { authUrl: options.authUrl } : {}),
    },
    cliFieldName,
  );
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const emit = options.onUpdate ?? (() => {});
  const logger = options.logger ?? quietLogger;
  const clock = options.clock ?? systemClock;
  const cleanup: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    cleanup.length = 0;
  };

  // Every setting of every section, before anything is started or created.
  checkRuntimeSettings({
    env: options.env,
    sandbox: options.sandbox !== false,
    baseUrl: options.baseUrl,
    authUrl: options.authUrl,
    actions: options.actions,
    startFrom: options.startFrom,
  });
  try {
    // 1. The service: the sandbox in-process, or the configured one.
    let sandbox: Sandbox | undefined;
    if (options.sandbox !== false) {
      const given = typeof options.sandbox === 'object' ? options.sandbox : {};
      if (given.instance) sandbox = given.instance;
      else {
        const { startSandbox } = await import('../../sandbox/index.js');
        sandbox = await startSandbox({
          activity: { enabled: true, ratePerSecond: 0.5 },
          ...(given.options ?? {}),
        });
        const started = sandbox;
        cleanup.push(() => started.close());
      }
    }
    let config: AccountingConfig;
    try {
      config = accountingConfigFor(options, sandbox);
    } catch (error) {
      throw new LocalRuntimeConfigError(error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    const api = createAccountingClient(config, { logger, clock });
    cleanup.push(() => api.close());

    // 2. Embedded stores, data under the data directory.
    const stores = await startLocalStores(options.dataDir, options.command);
    cleanup.push(() => stores.close());
    if (stores.recoveredLock) {
      const { pid, since } = stores.recoveredLock;
      emit({
        kind: 'warning',
        message: `recovered a stale lock on ${stores.dataDir} (process ${pid}, since ${since}, is not running: it did not stop cleanly); resuming from the saved state`,
      });
    }
    if (stores.tornObjects.length > 0) {
      emit({
        kind: 'warning',
        message: `removed ${stores.tornObjects.length} object(s) the stopped process left half written (${stores.tornObjects.join(', ')}); their actions write them again`,
      });
    }

    // The poller's settings from the environment (POLLER_*), as on AWS; flags and the sandbox win.
    let settings: PollerSettings;
    try {
      settings = loadPollerSettings(options.env);
    } catch (error) {
      throw new LocalRuntimeConfigError(error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    const connection =
      options.env[ENV.connection]?.trim() || (sandbox ? 'sandbox' : connectionOfUrl(config.baseUrl));
    const collections = options.collections ?? settings.collections;
    let pollOptions: PollOptions;
    try {
      pollOptions = pollOptionsSchema.parse({
        ...settings.options,
        connection,
        claimBucket: LOCAL_RESOURCES.archiveBucket,
        ...(options.startFrom ? { startFrom: options.startFrom } : {}),
        ...(options.poll ?? {}),
      });
    } catch (error) {
      throw new LocalRuntimeConfigError(`invalid poll settings: ${String(error)}`, { cause: error });
    }
    const foreign = collections.filter((c) => !isCollectionOf(pollOptions.variant, c));
    if (foreign.length > 0) {
      throw new LocalRuntimeConfigError(
        `collections ${foreign.join(', ')} are not in service variant ${pollOptions.variant} (${ENV.serviceVariant})`,
      );
    }

    // 3. Events out, actions, the bus and its journal (under the data directory).
    let eventsOut: EventsOut | undefined;
    if (options.eventsOut) {
      eventsOut = await openEventsOut(options.eventsOut);
      const out = eventsOut;
      cleanup.push(() => out.close());
    }
    let actions: LocalActions | undefined;
    if (options.actions) {
      actions = await startLocalActions({
        api,
        stores,
        env: options.env,
        connection,
        sandbox,
        logger,
        clock,
      });
    }
    // HTTP consumers (`--deliver-to`): one bus subscriber each, with its own journal offset.
    const deliveries = options.deliverTo?.length
      ? await httpDeliverySubscribers({
          targets: options.deliverTo,
          env: options.env,
          dataDir: stores.dataDir,
          ...(options.deliveryPolicy ? { policy: options.deliveryPolicy } : {}),
          emit,
        })
      : undefined;
    const journal = await openFileJournal(join(stores.dataDir, BUS_DIR));
    cleanup.push(() => journal.close());
    const bus = createLocalBus({
      routes: actions?.routes ?? [],
      deliver: (route, event) => (actions ? actions.deliver(route, event) : Promise.resolve()),
      subscribers: [...(eventsOut ? [eventsOut] : []), ...(deliveries?.subscribers ?? [])],
      journal,
      deadLetterStore: openFileDeadLetterStore(join(stores.dataDir, BUS_DIR, DEAD_LETTERS_FILE)),
      logger,
      clock,
      // Like a queue's visibility timeout, shortened: a transient failure gets a moment to pass.
      retryDelayMs: RETRY_DELAY_MS,
      source: pollOptions.source ?? `accounting.${connection}`,
    });
    cleanup.push(() => bus.close());
    actions?.bindPublisher(bus);
    let intake: LocalIntake | undefined;
    if (options.intake) {
      try {
        intake = await startLocalIntake({
          ...options.intake,
          api,
          idempotency: { client: stores.servers.dynamoDb, tableName: LOCAL_RESOURCES.idempotencyTable },
          publisher: bus,
          env: options.env,
          connection,
          eventSource: pollOptions.source ?? `accounting.${connection}`,
          clock,
          logger,
        });
      } catch (error) {
        if (!(error instanceof IntakeConfigError)) throw error;
        throw new LocalRuntimeConfigError(error.message, { cause: error });
      }
      const started = intake;
      cleanup.push(() => started.close());
    }
    bus.onEvent((event: EventBridgeEvent) => {
      const detail = (event.detail ?? {}) as Record<string, unknown>;
      const record = detail.record as Record<string, unknown> | undefined;
      const number =
        (typeof record?.DocumentNumber === 'string' && record.DocumentNumber) ||
        (typeof detail.documentNumber === 'string' && detail.documentNumber) ||
        ((detail.source as { documentNumber?: unknown } | undefined)?.documentNumber as string | undefined) ||
        undefined;
      emit({
        kind: 'event',
        detailType: event['detail-type'],
        id: typeof detail.id === 'string' ? detail.id : event.id,
        documentNumber: number || undefined,
        note: outcomeNote(event['detail-type'], detail),
        modifiedDate: typeof detail.modifiedDate === 'string' ? detail.modifiedDate : undefined,
        at: clock.now(),
      });
    });
    bus.onDelivery((outcome) => {
      if (outcome.status === 'delivered') return;
      emit({
        kind: 'action',
        route: outcome.routeId,
        ok: false,
        detailType: outcome.status,
        id: outcome.eventId,
        message: outcome.error,
      });
    });

    // The poller Lambda's own handler, with local adapters.
    const pollHandler = createPollHandler({
      api,
      checkpoints: stores.checkpoints,
      publisher: bus,
      objectStore: stores.archive,
      clock,
      logger,
      settings: { options: pollOptions, collections: [...collections], concurrency: settings.concurrency },
    });
    const counts = new Map<string, number>();
    bus.onEvent((event) => {
      counts.set(event['detail-type'], (counts.get(event['detail-type']) ?? 0) + 1);
    });

    emit({
      kind: 'started',
      service: sandbox ? sandbox.baseUrl : config.baseUrl,
      sandbox: sandbox !== undefined,
      dataDir: stores.dataDir,
      collections,
      intervalMs: options.intervalMs,
      actions: actions?.routes.map((r) => r.id) ?? [],
      s3Endpoint: stores.servers.s3Endpoint,
      ...(intake ? { intake: { url: intake.url, sources: intake.sources } } : {}),
    });

    // The first backfill's progress: how many records there are, once, cheaply (one 1-item page each).
    let backfill: { done: number; total: number } | undefined;
    const firstRun =
      options.backfillProgress !== false && (await isFirstRun(stores, connection, collections));
    if (firstRun) {
      let total = 0;
      for (const c of collections) {
        try {
          for await (const page of api.listPages(c, {
            pageSize: 1,
            ...(options.startFrom ? { modifiedSince: options.startFrom } : {}),
          })) {
            total += page.totalItemCount;
            break;
          }
        } catch (error) {
          // Only the progress bar's total: a failing count leaves the collection out of it, the poll goes on.
          logger.warn('backfill count failed', {
            collection: c,
            error: error instanceof Error ? error.name : String(error),
          });
        }
      }
      backfill = { done: 0, total };
      emit({ kind: 'backfill', done: 0, total });
    }

    let polling: Promise<PollChangesSummary> | undefined;
    // Aborted when the runtime stops: the poll in flight starts no new page and aborts its requests.
    const halt = new AbortController();
    const budgetMs = options.pollBudgetMs ?? DEFAULT_POLL_BUDGET_MS;
    const pollStatus = createPollStatusWriter(stores.dataDir, connection);
    const pollOnce = async (): Promise<PollChangesSummary> => {
      const started = clock.now();
      const before = bus.publishedCount();
      const endsAt = started.getTime() + budgetMs;
      const summary = await pollHandler(
        {},
        {
          // The poller stops starting pages when less than minRemainingMs is left: past the budget.
          getRemainingTimeInMillis: () =>
            halt.signal.aborted ? -1 : pollOptions.minRemainingMs + endsAt - clock.now().getTime(),
          abortSignal: halt.signal,
        },
      );
      const events = bus.publishedCount() - before;
      if (backfill) {
        backfill.done = Math.min(backfill.total, backfill.done + summary.published);
        if (!summary.more) backfill.done = backfill.total;
        emit({ kind: 'backfill', ...backfill });
        if (!summary.more) backfill = undefined;
      }
      for (const c of summary.collections) {
        if (c.status !== 'ok')
          emit({
            kind: 'warning',
            message: `poll of ${c.collection} ${c.status}: ${c.error?.message ?? ''}`,
          });
      }
      await pollStatus.record(summary, started);
      emit({
        kind: 'poll',
        at: started,
        durationMs: clock.now().getTime() - started.getTime(),
        events,
        requests: summary.requests,
      });
      return summary;
    };
    const guardedPoll = () => {
      polling = pollOnce().finally(() => {
        polling = undefined;
      });
      return polling;
    };

    let stopped: Promise<void> | undefined;
    const stop = (reason = 'stopped') => {
      stopped ??= (async () => {
        emit({ kind: 'stopping', reason });
        halt.abort();
        actions?.stopTimers();
        await polling?.catch(() => {});
        await intake?.close();
        // Backoff waits end now: what is not delivered stays journaled for the next start.
        deliveries?.halt();
        await actions?.close();
        // Queued deliveries run (and what they publish is journaled); one waiting to retry is left
        // to the next start, which finds it in the journal.
        await bus.close();
        const published = bus.publishedCount();
        await closeAll();
        emit({ kind: 'stopped', published });
      })();
      return stopped;
    };

    const runtime: Runtime = {
      bus,
      stores,
      api,
      sandbox,
      connection,
      collections,
      deliveries,
      intake,
      counts: () => counts,
      pollOnce: guardedPoll,
      drain: async () => {
        await bus.drain();
      },
      stop,
      async run(runOptions = {}) {
        const { signal, durationMs } = runOptions;
        const deadline =
          durationMs === undefined ? Number.POSITIVE_INFINITY : clock.now().getTime() + durationMs;
        const stopper = new AbortController();
        const onAbort = () => {
          stopper.abort();
          // Stop the poll in flight now rather than at the end of its slice.
          halt.abort();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) stopper.abort();
        const timer = Number.isFinite(deadline)
          ? setTimeout(() => stopper.abort(), Math.max(0, deadline - clock.now().getTime()))
          : undefined;
        actions?.startTimers(options.trackerIntervalMs ?? options.intervalMs);
        try {
          while (!stopper.signal.aborted) {
            const cycleStart = clock.now().getTime();
            let summary: PollChangesSummary | undefined;
            try {
              summary = await guardedPoll();
            } catch (error) {
              emit({
                kind: 'warning',
                message: `poll failed: ${error instanceof Error ? error.message : String(error)}`,
              });
            }
            if (stopper.signal.aborted) break;
            // Work left (time budget, a backfill): go on at once; else wait for the next tick.
            if (summary?.more) continue;
            const wait = Math.max(0, cycleStart + options.intervalMs - clock.now().getTime());
            await clock.sleep(wait, stopper.signal).catch(() => {});
          }
        } finally {
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          await stop(signal?.aborted ? 'interrupted' : 'duration reached');
        }
      },
    };
    return runtime;
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function isFirstRun(
  stores: LocalStores,
  connection: string,
  collections: readonly string[],
): Promise<boolean> {
  for (const c of collections) {
    if (await stores.checkpoints.get(checkpointKey(connection, c))) return false;
  }
  return true;
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
