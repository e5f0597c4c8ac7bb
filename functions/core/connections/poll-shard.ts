/**
 * One poll cycle of a shard: a set of connections (one for a single-company deployment, tens to a
 * hundred on a poller of many) polled side by side, each through `pollConnection` with its own
 * client, checkpoints, event source and health, and each with its own deadline:
 *
 * - a **budget** per connection and cycle: a connection starts no new page once its budget is
 *   spent (its checkpoints carry the rest to the next cycle), so a large backfill cannot starve
 *   the others of its shard, and its requests still running past budget + `minRemainingMs` are
 *   aborted (that page is neither published nor checkpointed; the next cycle reads it again);
 * - its **errors** stay its own: a connection whose poll throws is reported `failed` and the
 *   others go on; refused credentials make it unhealthy (`pollConnection`) and nothing else;
 * - the invocation's own end (`remainingTimeMs`, `signal`) bounds every connection.
 *
 * What each connection did is returned (and handed to `onPolled` as soon as it is known: the local
 * runtime's live view, the Lambda's structured log), never published as a metric per connection.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '../ports.js';
import { freshnessLagMs } from '../sync/sync-types.js';
import type { ConnectionEntry } from './connection-entry.js';
import {
  type ConnectionPollDeps,
  type ConnectionPollResult,
  type ConnectionPollSettings,
  pollConnection,
} from './poll-connection.js';

export interface ShardPollSettings extends ConnectionPollSettings {
  /** Connections of the shard polled at once (the rest wait for a free turn, in order). */
  parallel: number;
  /** How long one connection starts new pages in one cycle (ms). */
  budgetMs: number;
}

export interface ShardPollDeps extends ConnectionPollDeps {
  /** Called once per connection as soon as its poll is over (a throw here is logged, not spread). */
  onPolled?(outcome: ConnectionOutcome, result: ConnectionPollResult | undefined): void | Promise<void>;
}

/** `polled`: its collections were read; `credentials`: its client could not be built; `failed`: its poll threw. */
export type ConnectionOutcomeStatus = 'polled' | 'credentials' | 'failed';

/** One connection's part of a shard cycle: what the logs, the live view and the benchmark count. */
export interface ConnectionOutcome {
  connection: string;
  status: ConnectionOutcomeStatus;
  durationMs: number;
  published: number;
  /** List requests made (pages read). */
  requests: number;
  /** Collections that failed or conflicted (a failed poll counts one). */
  failedCollections: number;
  /** Some collection has work left (a backfill): the next cycle resumes it. */
  more: boolean;
  /** The worst watermark lag of its collections (ms). */
  lagMs?: number;
  /** Its health as recorded (absent: nothing was learnt of the connection as a whole). */
  healthy?: boolean;
  /** Events published per detail-type. */
  events: Record<string, number>;
  /** Watermark lag per collection (ms). */
  lagByCollection: Record<string, number>;
  /** Collections its service answered 404 in this cycle (then skipped for the run); absent: none. */
  unavailable?: string[];
  error?: { name: string; message: string };
}

export interface ShardPollSummary {
  outcomes: ConnectionOutcome[];
  published: number;
  requests: number;
  failed: number;
  /** Connections with work left. */
  more: number;
}

/** The outcome of a connection's poll result at `nowMs`. */
export function outcomeOf(
  result: ConnectionPollResult,
  durationMs: number,
  nowMs: number,
): ConnectionOutcome {
  const collections = result.summary?.collections ?? [];
  const events: Record<string, number> = {};
  const lagByCollection: Record<string, number> = {};
  for (const c of collections) {
    for (const [type, n] of Object.entries(c.events)) events[type] = (events[type] ?? 0) + n;
    const lag = freshnessLagMs(c, nowMs);
    if (lag !== undefined) lagByCollection[c.collection] = lag;
  }
  const lags = Object.values(lagByCollection);
  const unavailable = collections.filter((c) => c.status === 'unavailable').map((c) => c.collection);
  return {
    connection: result.connection,
    status: result.polled ? 'polled' : 'credentials',
    durationMs,
    published: result.summary?.published ?? 0,
    requests: result.summary?.requests ?? 0,
    failedCollections: result.summary ? result.summary.failed + result.summary.conflicts : 0,
    more: result.summary?.more ?? false,
    events,
    lagByCollection,
    ...(lags.length > 0 ? { lagMs: Math.max(...lags) } : {}),
    ...(unavailable.length > 0 ? { unavailable } : {}),
    ...(result.health ? { healthy: result.health.ok } : {}),
  };
}

function failedOutcome(connection: string, durationMs: number, error: unknown): ConnectionOutcome {
  return {
    connection,
    status: 'failed',
    durationMs,
    published: 0,
    requests: 0,
    failedCollections: 1,
    more: false,
    events: {},
    lagByCollection: {},
    error: {
      name: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
    },
  };
}

/**
 * The connection's deadline: its budget, within the cycle's own time and signal. The budget starts
 * when the poll first asks for its time, just before its first page: the setup before it
 * (checkpoints, credentials) takes what it takes on a busy machine, and counting it would let a
 * budget end before a single page was read, so a backfill would never move. The first ask gets the
 * whole budget: every cycle reads at least one page of each connection. Its requests still running
 * `minRemainingMs` past the budget are aborted.
 */
function connectionDeadline(deps: ShardPollDeps, settings: ShardPollSettings) {
  const started = deps.clock.now().getTime();
  const reserve = settings.options.minRemainingMs;
  const overrun = new AbortController();
  let endsAt: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The poll starts no page once less than `reserve` is left: that is when its budget is spent.
  const own = () => {
    const now = deps.clock.now().getTime();
    if (endsAt === undefined) {
      endsAt = now + settings.budgetMs;
      timer = setTimeout(
        () => overrun.abort(new DOMException('the connection overran its budget', 'TimeoutError')),
        Math.max(0, settings.budgetMs + reserve),
      );
    }
    return endsAt + reserve - now;
  };
  const remainingTimeMs = () => Math.min(own(), deps.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY);
  const signal = deps.signal ? AbortSignal.any([deps.signal, overrun.signal]) : overrun.signal;
  // Every request of the connection's collections listens to it: more than Node's default of 10.
  setMaxListeners(0, signal);
  return { started, remainingTimeMs, signal, done: () => clearTimeout(timer) };
}

async function pollOne(
  deps: ShardPollDeps,
  entry: ConnectionEntry,
  settings: ShardPollSettings,
): Promise<ConnectionOutcome> {
  const { started, remainingTimeMs, signal, done } = connectionDeadline(deps, settings);
  let outcome: ConnectionOutcome;
  let result: ConnectionPollResult | undefined;
  try {
    result = await pollConnection({ ...deps, remainingTimeMs, signal }, entry, settings);
    const now = deps.clock.now().getTime();
    outcome = outcomeOf(result, now - started, now);
  } catch (error) {
    outcome = failedOutcome(entry.name, deps.clock.now().getTime() - started, error);
    deps.logger.error('connection poll failed', {
      connection: entry.name,
      error: outcome.error?.name,
      message: outcome.error?.message,
    });
  } finally {
    done();
  }
  await report(deps.logger, deps.onPolled, outcome, result);
  return outcome;
}

async function report(
  logger: Logger,
  onPolled: ShardPollDeps['onPolled'],
  outcome: ConnectionOutcome,
  result: ConnectionPollResult | undefined,
): Promise<void> {
  if (!onPolled) return;
  try {
    await onPolled(outcome, result);
  } catch (error) {
    logger.warn('connection outcome not reported', {
      connection: outcome.connection,
      error: error instanceof Error ? error.name : 'Error',
    });
  }
}

/** Polls every connection of the shard once, `parallel` at a time; never throws for one of them. */
export async function pollShard(
  deps: ShardPollDeps,
  entries: readonly ConnectionEntry[],
  settings: ShardPollSettings,
): Promise<ShardPollSummary> {
  const outcomes: ConnectionOutcome[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const index = next++;
      outcomes[index] = await pollOne(deps, entries[index] as ConnectionEntry, settings);
    }
  };
  const lanes = Math.max(1, Math.min(settings.parallel, entries.length));
  await Promise.all(Array.from({ length: lanes }, worker));
  return {
    outcomes,
    published: outcomes.reduce((n, o) => n + o.published, 0),
    requests: outcomes.reduce((n, o) => n + o.requests, 0),
    failed: outcomes.filter((o) => o.status === 'failed').length,
    more: outcomes.filter((o) => o.more).length,
  };
}
