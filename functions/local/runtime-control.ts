/**
 * The running runtime: `pollOnce` (one cycle of every connection), `run` (the cycles on the timer
 * until a signal or a duration), `stop` (the polls in flight end, the deliveries in flight finish,
 * what is still queued stays journaled for the next start, everything closes), and the first
 * backfill's progress of a run of one connection.
 */
import { AuthenticationError, ForbiddenError, UnauthorizedError } from '../accounting/errors.js';
import type { DeadLetterStore } from '../adapters/local/dead-letter-store.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { collectionsOf } from '../core/connections/poll-connection.js';
import { checkpointKey } from '../core/sync/checkpoint-state.js';
import type { HttpDelivery } from './http-delivery.js';
import type { LocalActions } from './local-actions.js';
import type { LocalConnections } from './local-connections.js';
import type { LocalIntake } from './local-intake.js';
import type { LocalPolling } from './local-polling.js';
import type { LocalStores } from './local-stores.js';
import type { PollSummary } from './poll-summary.js';
import type { Runtime, RuntimeOptions } from './runtime-options.js';
import type { RuntimeContext } from './runtime-parts.js';

export interface Running {
  sandbox: Runtime['sandbox'];
  stores: LocalStores;
  connections: LocalConnections;
  closeAll: () => Promise<void>;
  halt: AbortController;
  bus: LocalBus;
  polling: LocalPolling;
  actions: LocalActions | undefined;
  intake: LocalIntake | undefined;
  deliveries: HttpDelivery | undefined;
  deadLetterStore: DeadLetterStore;
  /** The first unpaused connection at the start. */
  primary: ConnectionEntry | undefined;
  /** The unpaused connections at the start. */
  initial: readonly string[];
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
    const all = r.polling.once();
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
      r.connections.limiter.halt();
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
    sandbox: r.sandbox,
    connection: r.primary?.name ?? '',
    collections: r.primary ? collectionsOf(r.primary) : [],
    deliveries: r.deliveries,
    deadLetterStore: r.deadLetterStore,
    intake: r.intake,
    connections: () => [...new Set([...r.initial, ...r.polling.polled()])],
    routes: () => r.actions?.routes ?? [],
    readiness: async () => (r.actions ? r.actions.readiness() : []),
    counts: () => counts,
    health: () => ({ answered: r.polling.answered(), refused: r.polling.refused() }),
    pollOnce,
    drain: () => r.bus.drain(),
    stop,
    run: (runOptions = {}) =>
      runLoops(options, r, { ...runOptions, stopper: loopsStop, stop, inFlight: (p) => (polling = p) }),
  };
}

/** The cycles on the timer until the signal aborts or the duration passes, then a clean stop. */
async function runLoops(
  options: RuntimeOptions,
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
    const loops = r.polling.run(stopper.signal);
    run.inFlight(loops);
    await loops;
  } finally {
    if (timer) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    await run.stop(signal?.aborted ? 'interrupted' : 'duration reached');
  }
}

const refused = (error: unknown) =>
  error instanceof UnauthorizedError ||
  error instanceof ForbiddenError ||
  error instanceof AuthenticationError;

async function isFirstRun(stores: LocalStores, connection: string, collections: readonly string[]) {
  for (const c of collections) {
    if (await stores.checkpoints.get(checkpointKey(connection, c))) return false;
  }
  return true;
}

/** A record's change event (`Created`, `Updated`, `Deleted`), as the first backfill publishes them. */
function isRecordChange(detail: Record<string, unknown>): boolean {
  return (
    typeof detail.modifiedDate === 'string' &&
    typeof detail.recordType === 'string' &&
    (detail.change === 'Created' || detail.change === 'Updated' || detail.change === 'Deleted')
  );
}

/**
 * The first backfill's progress of a run of one connection: how many records there are, counted
 * once and cheaply (one 1-item page each), and how many of them have been published (the
 * connection's record events on the bus, counted as they come, so the bar moves within a poll).
 * Done when a poll ends with nothing left and nothing failed; a run that stops before that says
 * the backfill was interrupted. Nothing when the connection has been polled before, its client
 * cannot be had, its credentials are refused, or the progress is off.
 */
export async function backfillProgress(
  connections: LocalConnections,
  entry: ConnectionEntry,
  options: RuntimeOptions,
  ctx: RuntimeContext,
  stores: LocalStores,
  bus: Pick<LocalBus, 'onEvent'>,
): Promise<((connection: string, summary: PollSummary) => void) | undefined> {
  const collections = collectionsOf(entry);
  if (options.backfillProgress === false || !(await isFirstRun(stores, entry.name, collections)))
    return undefined;
  const api = await connections.apiFor(entry).catch(() => undefined);
  if (!api) return undefined;
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
      // Refused credentials: no progress to show (the first poll says the refusal, once).
      if (refused(error)) return undefined;
      // Only the progress bar's total: a failing count leaves the collection out of it, the poll goes on.
      ctx.logger.warn('backfill count failed', {
        collection: c,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }
  let published = 0;
  let state: 'running' | 'done' | 'interrupted' = 'running';
  let percent = 0;
  const report = () => {
    const done = Math.min(total, published);
    ctx.emit({ kind: 'backfill', done, total, ...(state === 'running' ? {} : { state }) });
  };
  const off = bus.onEvent((event) => {
    const detail = (event.detail ?? {}) as Record<string, unknown>;
    if (state !== 'running' || detail.connection !== entry.name || !isRecordChange(detail)) return;
    published += 1;
    // An update per percent at most (the plain and JSON lines are not flooded).
    const now = total > 0 ? Math.floor((Math.min(total, published) * 100) / total) : 100;
    if (now !== percent) {
      percent = now;
      report();
    }
  });
  ctx.onClose(async () => {
    off();
    if (state !== 'running') return;
    state = 'interrupted';
    report();
  });
  report();
  return (connection, summary) => {
    if (state !== 'running' || connection !== entry.name) return;
    if (summary.more || summary.failed > 0 || summary.conflicts > 0) return report();
    state = 'done';
    published = Math.max(published, total);
    off();
    report();
  };
}
