/**
 * The local runtime's polling: the core's shard cycle (`runShardCycle`), the Lambda poller's own,
 * run on a timer over the local registry (one shard: the data directory's lock is the runtime's
 * lease). Each connection is polled when its interval has passed since its last poll started, at
 * once again while a backfill has work left, and never twice at a time: a cycle picks the idle,
 * due, unpaused connections — at most the free share of `maxConcurrent` — and the next tick does
 * not wait for a slow connection to end. A poll of each reads for at most `budgetMs` (a backfill
 * goes on in the next cycle). The registry is read on every cycle: a new connection is polled, a
 * paused or removed one is not (its poll in flight finishes), a resumed one again.
 *
 * `sync --once` is one cycle of every unpaused connection (`once`), its budget the command's; the
 * dry run is a cycle over stores in memory (`dry-run.ts`). What each poll did goes to the status
 * file and the view as soon as it is known.
 */
import type { CollectionName } from '../accounting/collections.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import type { HealthState } from '../core/connections/health.js';
import type { ConnectionPollResult } from '../core/connections/poll-connection.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import type { ConnectionOutcome } from '../core/connections/poll-shard.js';
import { ONE_SHARD, type ShardLease } from '../core/connections/shard.js';
import {
  type ConnectionClientSource,
  type CountedApi,
  runShardCycle,
  type ShardCycleDeps,
} from '../core/connections/shard-cycle.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { type PollOptions, pollOptionsSchema } from '../core/sync/poll-options.js';
import type { PollerSettings } from '../wiring/poller-config.js';
import type { LocalConnections } from './local-connections.js';
import { LOCAL_RESOURCES } from './local-stores.js';
import type { PollStatusWriter } from './poll-status.js';
import { emptyPollSummary, type PollSummary, type RequestCounts, summarizePoll } from './poll-summary.js';
import { refusedCredentialsText, refusedStatusOf, withoutRefusals } from './refused-credentials.js';
import type { RuntimeUpdate } from './runtime-update.js';

export interface LocalPollingDeps {
  connections: Pick<LocalConnections, 'registry' | 'apiFor' | 'intervalMsOf'>;
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  objectStore: ObjectStore;
  clock: Clock;
  logger: Logger;
  emit: (update: RuntimeUpdate) => void;
  /** The status file (none: a dry run). */
  pollStatus?: PollStatusWriter;
  /** Aborted when the runtime stops: the polls in flight start no new page and abort their requests. */
  halt: AbortSignal;
  settings: PollerSettings;
  /** Overrides of the change detector's options (`backfill --since`, tests' lookback). */
  poll?: Partial<PollOptions>;
  /** How long one poll of a connection starts new pages. */
  budgetMs: number;
  /** Polls running at once at most. */
  maxConcurrent: number;
  /** Hears each poll's summary (the first backfill's progress). */
  onSummary?(connection: string, summary: PollSummary): void;
  /**
   * The setting holding a connection's credentials, named when the service refuses them. Given, a
   * refusal is said once (the connection's update) and its per-collection log entries are left out.
   */
  credentialsSetting?(entry: ConnectionEntry): string;
}

export interface LocalPolling {
  /** One cycle of every unpaused connection; the events are on the bus when it resolves. */
  once(): Promise<PollSummary>;
  /** Cycles on the timer until `signal` aborts; resolves once the polls in flight have finished. */
  run(signal: AbortSignal): Promise<void>;
  /** The connections polled so far (or being polled). */
  polled(): string[];
  /** Whether any poll of any connection was answered (some collection read or not served). */
  answered(): boolean;
  /** The connections whose credentials the service refuses now. */
  refused(): string[];
}

/** The local runtime owns its data directory (its lock): every cycle holds the one shard. */
const localLease: ShardLease = {
  acquire: async (_shard, _now, _until, holder) => ({ token: 'local', previousHolder: holder }),
  release: async () => {},
};

/** The summaries of several connections' polls as one. */
export function sumSummaries(summaries: readonly PollSummary[]): PollSummary {
  const total = (key: 'published' | 'requests' | 'rateLimited' | 'failed' | 'conflicts' | 'unavailable') =>
    summaries.reduce((n, s) => n + s[key], 0);
  return {
    published: total('published'),
    requests: total('requests'),
    rateLimited: total('rateLimited'),
    failed: total('failed'),
    conflicts: total('conflicts'),
    unavailable: total('unavailable'),
    more: summaries.some((s) => s.more),
    collections: summaries.flatMap((s) => s.collections),
  };
}

/** Each client's request counts over one poll (detail reads and retries included). */
function countingClients(apiFor: LocalPollingDeps['connections']['apiFor']) {
  const before = new Map<string, { client: CountedApi; counts: RequestCounts | undefined }>();
  const source: ConnectionClientSource = {
    async apiFor(entry) {
      const client = await apiFor(entry);
      before.set(entry.name, { client, counts: client.stats?.() });
      return client;
    },
  };
  const counted = (name: string): { before: RequestCounts; after: RequestCounts } | undefined => {
    const held = before.get(name);
    before.delete(name);
    const after = held?.client.stats?.();
    return held && after ? { before: held.counts ?? { requests: 0, rateLimited: 0 }, after } : undefined;
  };
  return { source, counted };
}

export function createLocalPolling(deps: LocalPollingDeps): LocalPolling {
  const { clock } = deps;
  const options = pollOptionsSchema.parse({
    ...deps.settings.options,
    claimBucket: LOCAL_RESOURCES.archiveBucket,
    ...(deps.poll ?? {}),
  });
  /** Health states announced (this runtime owns its connections, as a shard's poller does). */
  const healthKnown = new Map<string, HealthState>();
  /** Per connection, the collections that answered 404 in this run: reported once, then skipped. */
  const unavailableKnown = new Map<string, Set<string>>();
  const inFlight = new Set<string>();
  const lastStart = new Map<string, number>();
  const workLeft = new Set<string>();
  const polled = new Set<string>();
  const announcedHealth = new Map<string, string>();
  /** Connections whose credentials were refused (said once, until a poll is answered again). */
  const refusedNow = new Set<string>();
  let answered = false;
  const entryByName = new Map<string, ConnectionEntry>();
  const logger = deps.credentialsSetting ? withoutRefusals(deps.logger) : deps.logger;
  const idle = new Map<string, 'paused' | 'removed'>();
  const clients = countingClients((entry) => deps.connections.apiFor(entry));
  const collectionsByName = new Map<string, readonly CollectionName[]>();
  const intervalOf = new Map<string, number>();
  /** More than one connection: updates name theirs, and the view hears of each one's health. */
  let named = false;
  /** Wakes the timer of `run` when a poll ends. */
  let wake: (() => void) | undefined;

  const announce = (connection: string, state: 'paused' | 'removed') => {
    if (idle.get(connection) === state) return;
    idle.set(connection, state);
    deps.emit({ kind: 'connection', connection, state });
  };
  /** Paused and removed connections, as the registry says now. */
  const noteRegistry = (entries: readonly ConnectionEntry[]) => {
    named = entries.length > 1;
    const names = new Set(entries.map((e) => e.name));
    for (const name of [...polled, ...idle.keys()]) if (!names.has(name)) announce(name, 'removed');
    for (const e of entries) {
      if (e.paused) announce(e.name, 'paused');
      else idle.delete(e.name);
      entryByName.set(e.name, e);
      collectionsByName.set(e.name, collectionsOf(e));
      intervalOf.set(e.name, deps.connections.intervalMsOf(e));
    }
  };
  const due = (entry: ConnectionEntry, nowMs: number) =>
    workLeft.has(entry.name) ||
    nowMs >= (lastStart.get(entry.name) ?? Number.NEGATIVE_INFINITY) + deps.connections.intervalMsOf(entry);
  /** The idle, unpaused connections to poll now (`all`: every one of them), longest waiting first. */
  const select =
    (all: boolean) =>
    (entries: readonly ConnectionEntry[]): ConnectionEntry[] => {
      noteRegistry(entries);
      const nowMs = clock.now().getTime();
      const free = Math.max(0, deps.maxConcurrent - inFlight.size);
      const picked = entries
        .filter((e) => !e.paused && !inFlight.has(e.name) && (all || due(e, nowMs)))
        .sort((a, b) => (lastStart.get(a.name) ?? 0) - (lastStart.get(b.name) ?? 0))
        .slice(0, all ? undefined : free);
      for (const e of picked) {
        inFlight.add(e.name);
        polled.add(e.name);
        lastStart.set(e.name, nowMs);
      }
      return picked;
    };
  /**
   * A change of a connection's health, to the view: with many connections every change; with one,
   * only an unhealthy state and the recovery from it. Refused credentials carry the one line
   * saying so, and which setting to check.
   */
  const announceHealth = (name: string, result: ConnectionPollResult) => {
    const report = result.health;
    if (!report) return;
    const status = refusedStatusOf(result);
    if (status === undefined) refusedNow.delete(name);
    else refusedNow.add(name);
    const state = report.ok ? 'healthy' : `unhealthy:${report.reason}`;
    const previous = announcedHealth.get(name);
    if (previous === state) return;
    announcedHealth.set(name, state);
    if (!named && report.ok && previous === undefined) return;
    const entry = entryByName.get(name);
    deps.emit({
      kind: 'connection',
      connection: name,
      ...(report.ok ? { state: 'healthy' } : { state: 'unhealthy', reason: report.reason }),
      ...(status !== undefined && entry && deps.credentialsSetting
        ? { message: refusedCredentialsText(status, deps.credentialsSetting(entry)) }
        : {}),
    });
  };
  /** The status file and the view's updates of one poll. */
  const report = async (outcome: ConnectionOutcome, result: ConnectionPollResult | undefined) => {
    const name = outcome.connection;
    inFlight.delete(name);
    const nowMs = clock.now().getTime();
    const startedAt = new Date(nowMs - outcome.durationMs);
    const counted = clients.counted(name);
    const collections = collectionsByName.get(name)?.length ?? 0;
    const summary = result
      ? summarizePoll(result, collections, nowMs, counted)
      : emptyPollSummary(collections);
    if (summary.more) workLeft.add(name);
    else workLeft.delete(name);
    if (result) announceHealth(name, result);
    if (summary.collections.some((c) => c.status === 'ok' || c.status === 'unavailable')) answered = true;
    if (outcome.status === 'failed') {
      deps.emit({ kind: 'warning', message: `poll of ${name} failed: ${outcome.error?.message ?? ''}` });
    } else if (!named && !(deps.credentialsSetting && refusedNow.has(name))) {
      // One connection: its failures as warnings (with many, the connection's state says it).
      if (!result?.polled)
        deps.emit({ kind: 'warning', message: `poll of ${name} failed: credentials unavailable` });
      for (const c of summary.collections.filter((x) => x.status !== 'ok')) {
        deps.emit({
          kind: 'warning',
          message: `poll of ${c.collection} ${c.status}: ${c.error?.message ?? ''}`,
        });
      }
    }
    await deps.pollStatus?.record(name, summary, startedAt);
    const lags = summary.collections.flatMap((c) => (c.lagMs !== undefined ? [c.lagMs] : []));
    deps.emit({
      kind: 'poll',
      at: startedAt,
      durationMs: outcome.durationMs,
      events: summary.published,
      requests: summary.requests,
      ...(lags.length > 0 ? { lagMs: Math.max(...lags) } : {}),
      ...(named ? { connection: name } : {}),
    });
    deps.onSummary?.(name, summary);
    wake?.();
    return summary;
  };
  const cycle = async (all: boolean, budgetMs: number, summaries?: PollSummary[]) => {
    const cycleDeps: ShardCycleDeps = {
      registry: deps.connections.registry,
      lease: localLease,
      clients: clients.source,
      checkpoints: deps.checkpoints,
      publisher: deps.publisher,
      objectStore: deps.objectStore,
      clock,
      logger,
      settings: {
        options,
        concurrency: deps.settings.concurrency,
        parallel: Math.max(1, deps.maxConcurrent),
        budgetMs,
      },
      healthKnown,
      unavailableKnown,
      select: select(all),
      onPolled: async (outcome, result) => {
        const summary = await report(outcome, result);
        summaries?.push(summary);
      },
    };
    return runShardCycle(cycleDeps, { shard: ONE_SHARD }, { signal: deps.halt });
  };

  return {
    async once() {
      const summaries: PollSummary[] = [];
      await cycle(true, deps.budgetMs, summaries);
      return sumSummaries(summaries);
    },
    async run(signal) {
      const running = new Set<Promise<unknown>>();
      const tick = () => {
        const started = cycle(false, deps.budgetMs).catch((error: unknown) => {
          // The registry could not be read at all, say: the next tick tries again.
          deps.emit({ kind: 'warning', message: error instanceof Error ? error.message : String(error) });
        });
        running.add(started);
        void started.finally(() => running.delete(started));
      };
      while (!signal.aborted && !deps.halt.aborted) {
        tick();
        await new Promise<void>((resolve) => {
          const done = () => {
            wake = undefined;
            signal.removeEventListener('abort', done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, nextWakeMs());
          timer.unref?.();
          // A poll that ends wakes the timer (on the next turn of the event loop): its connection
          // may have work left, and a slot is free.
          wake = () => setTimeout(done, 0);
          signal.addEventListener('abort', done, { once: true });
        });
      }
      await Promise.all(running);
    },
    polled: () => [...polled],
    answered: () => answered,
    refused: () => [...refusedNow],
  };

  /** Until the soonest connection is due (at most a second: the registry may change meanwhile). */
  function nextWakeMs(): number {
    return Math.max(10, Math.min(1_000, soonestDueMs()));
  }
  function soonestDueMs(): number {
    let soonest = Number.POSITIVE_INFINITY;
    const nowMs = clock.now().getTime();
    for (const [name, started] of lastStart) {
      if (inFlight.has(name) || idle.has(name)) continue;
      if (workLeft.has(name)) return 0;
      const interval = intervalOf.get(name);
      if (interval !== undefined) soonest = Math.min(soonest, started + interval - nowMs);
    }
    return soonest;
  }
}
