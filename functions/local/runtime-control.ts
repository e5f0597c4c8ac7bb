/**
 * The running runtime: `pollOnce` (every connection once), `run` (each connection's loop until a
 * signal or a duration), `stop` (the polls in flight end, the deliveries in flight finish, what is
 * still queued stays journaled for the next start, everything closes),
 * and the first backfill's progress of a one-connection run.
 */
import type { DeadLetterStore } from '../adapters/local/dead-letter-store.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import { checkpointKey } from '../core/sync/checkpoint-state.js';
import type { ConnectionActions } from './connection-actions.js';
import { runConnectionLoops } from './connection-loops.js';
import type { ConnectionPlan } from './connection-plans.js';
import type { ConnectionPoller } from './connection-poller.js';
import type { HttpDelivery } from './http-delivery.js';
import type { LocalIntake } from './local-intake.js';
import type { LocalStores } from './local-stores.js';
import type { PollSummary } from './poll-summary.js';
import { DEFAULT_MAX_CONCURRENT_POLLS, type Runtime, type RuntimeOptions } from './runtime-options.js';
import type { Connections, RuntimeContext } from './runtime-parts.js';

export interface Running {
  sandbox: Runtime['sandbox'];
  stores: LocalStores;
  connections: Connections;
  closeAll: () => Promise<void>;
  halt: AbortController;
  /** Stops requests held back by the rate limit (many connections). */
  haltLimiter?: (() => void) | undefined;
  bus: LocalBus;
  pollers: Map<string, ConnectionPoller>;
  pollerFor(plan: ConnectionPlan): Promise<ConnectionPoller>;
  actions: ConnectionActions | undefined;
  intake: LocalIntake | undefined;
  deliveries: HttpDelivery | undefined;
  deadLetterStore: DeadLetterStore;
  primary: ConnectionPoller | undefined;
}

/** The summaries of several connections' polls as one. */
function sum(summaries: readonly PollSummary[]): PollSummary {
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

export function runtimeOf(options: RuntimeOptions, ctx: RuntimeContext, r: Running): Runtime {
  let polling: Promise<unknown> | undefined;
  let stopped: Promise<void> | undefined;
  /** Ends the loops of `run` (their polls in flight finish). */
  const loopsStop = new AbortController();
  const counts = new Map<string, number>();
  r.bus.onEvent((event) => {
    counts.set(event['detail-type'], (counts.get(event['detail-type']) ?? 0) + 1);
  });
  const pollOnce = async () => {
    const all = (async () => {
      const summaries: PollSummary[] = [];
      for (const poller of r.pollers.values()) summaries.push(await poller.poll());
      return sum(summaries);
    })();
    polling = all;
    try {
      return await all;
    } finally {
      polling = undefined;
    }
  };
  const stop = (reason = 'stopped') => {
    stopped ??= (async () => {
      ctx.emit({ kind: 'stopping', reason });
      r.halt.abort();
      loopsStop.abort();
      // No queued delivery starts from now on, while the poll, the intake and the schedules end.
      r.bus.stopDeliveries();
      r.actions?.stopTimers();
      await polling?.catch(() => {});
      await r.intake?.close();
      // Backoff and rate-limit waits end now: what is not delivered stays journaled for the next start.
      r.deliveries?.halt();
      r.haltLimiter?.();
      await r.actions?.close();
      // The deliveries in flight finish (what they publish is journaled); queued ones, and one
      // waiting to retry, stay in the journal for the next start.
      await r.bus.close();
      const published = r.bus.publishedCount();
      await r.closeAll();
      ctx.emit({ kind: 'stopped', published });
    })();
    return stopped;
  };
  return {
    bus: r.bus,
    stores: r.stores,
    // A registry whose connections are all paused has no client until one is resumed.
    get api() {
      if (!r.primary)
        throw new Error('no connection is polled yet: every connection of the registry is paused');
      return r.primary.api;
    },
    sandbox: r.sandbox,
    connection: r.primary?.name ?? '',
    collections: r.primary?.plan().collections ?? [],
    deliveries: r.deliveries,
    deadLetterStore: r.deadLetterStore,
    intake: r.intake,
    connections: () => [...r.pollers.keys()],
    routes: () => r.actions?.routes ?? [],
    counts: () => counts,
    pollOnce,
    drain: () => r.bus.drain(),
    stop,
    run: (runOptions = {}) =>
      runLoops(options, ctx, r, { ...runOptions, stopper: loopsStop, stop, inFlight: (p) => (polling = p) }),
  };
}

/** Each connection's loop until the signal aborts or the duration passes, then a clean stop. */
async function runLoops(
  options: RuntimeOptions,
  ctx: RuntimeContext,
  r: Running,
  run: {
    signal?: AbortSignal;
    durationMs?: number;
    stopper: AbortController;
    stop: (reason: string) => Promise<void>;
    inFlight: (loops: Promise<void>) => void;
  },
): Promise<void> {
  const { signal, stopper } = run;
  const onAbort = () => {
    stopper.abort();
    // Stop the polls in flight now rather than at the end of their slice.
    r.halt.abort();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) stopper.abort();
  const timer = run.durationMs !== undefined ? setTimeout(() => stopper.abort(), run.durationMs) : undefined;
  r.actions?.startTimers(options.trackerIntervalMs ?? options.intervalMs);
  try {
    const loops = runConnectionLoops(
      {
        source: r.connections.source,
        pollerFor: r.pollerFor,
        clock: ctx.clock,
        emit: ctx.emit,
        maxConcurrent: options.maxConcurrentPolls ?? DEFAULT_MAX_CONCURRENT_POLLS,
        refreshMs: options.intervalMs,
      },
      stopper.signal,
    );
    run.inFlight(loops);
    await loops;
  } finally {
    if (timer) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    await run.stop(signal?.aborted ? 'interrupted' : 'duration reached');
  }
}

async function isFirstRun(stores: LocalStores, connection: string, collections: readonly string[]) {
  for (const c of collections) {
    if (await stores.checkpoints.get(checkpointKey(connection, c))) return false;
  }
  return true;
}

/**
 * The first backfill's progress of a one-connection run: how many records there are, counted once
 * and cheaply (one 1-item page each), then moved on by every poll. Answers the poller to use.
 */
export async function withBackfillProgress(
  poller: ConnectionPoller,
  options: RuntimeOptions,
  ctx: RuntimeContext,
  stores: LocalStores,
): Promise<ConnectionPoller> {
  const collections = poller.plan().collections;
  if (options.backfillProgress === false || !(await isFirstRun(stores, poller.name, collections)))
    return poller;
  let total = 0;
  for (const c of collections) {
    try {
      for await (const page of poller.api.listPages(c, {
        pageSize: 1,
        ...(options.startFrom ? { modifiedSince: options.startFrom } : {}),
      })) {
        total += page.totalItemCount;
        break;
      }
    } catch (error) {
      // Only the progress bar's total: a failing count leaves the collection out of it, the poll goes on.
      ctx.logger.warn('backfill count failed', {
        collection: c,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }
  let backfill: { done: number; total: number } | undefined = { done: 0, total };
  ctx.emit({ kind: 'backfill', done: 0, total });
  return {
    ...poller,
    async poll() {
      const summary = await poller.poll();
      if (backfill) {
        backfill.done = Math.min(backfill.total, backfill.done + summary.published);
        if (!summary.more) backfill.done = backfill.total;
        ctx.emit({ kind: 'backfill', ...backfill });
        if (!summary.more) backfill = undefined;
      }
      return summary;
    },
  };
}
