/**
 * One cycle of one shard, the same on Lambda and in the local runtime: take the shard's lease (a
 * late or retried tick that finds it held polls nothing), read the shard's connections from the
 * registry port, pick the ones to poll (by default those due in the tick's slot) and poll them
 * side by side through `pollShard`, each with its own client, checkpoints, event source, health,
 * budget and errors. What the cycle did is returned (`ShardCycle`); how it is reported (metrics,
 * log lines, a live view) is the runtime's.
 *
 * Lambda runs it for each shard on each tick of its schedule; the local runtime runs it on a timer
 * over its registry (a file, the sandbox's companies, or its one connection), with its own choice
 * of the connections to poll and an `onPolled` hearing each one's outcome as soon as it is known.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import * as z from 'zod';
import type { AccountingApi } from '#functions/accounting/api.js';
import type { ConnectionEntry, RateLimit } from './connection-entry.js';
import type { HealthState } from './health.js';
import type { ConnectionPollDeps } from './poll-connection.js';
import {
  type ConnectionOutcome,
  pollShard,
  type ShardPollDeps,
  type ShardPollSettings,
} from './poll-shard.js';
import type { RegistryScanner } from './registry.js';
import { dueConnections, ONE_SHARD, type Shard, type ShardLease, shardSchema, slotOf } from './shard.js';

/** A connection's client as the cycle uses it: its API, and the counts of its requests when it keeps them. */
export interface CountedApi extends AccountingApi {
  stats?(): { requests: number; rateLimited: number };
}

/** The clients port: one connection's client (built once and kept, or built again when its entry changed). */
export interface ConnectionClientSource {
  apiFor(entry: ConnectionEntry): Promise<CountedApi>;
}

/** One connection's outcome with the 429s its client met. */
export interface ConnectionPollOutcome extends ConnectionOutcome {
  rateLimited: number;
}

export interface ShardCycle {
  shard: Shard;
  slot: number;
  /** The lease was taken: false when another invocation still polls the shard (nothing was done). */
  leased: boolean;
  registered: number;
  malformed: number;
  paused: number;
  due: number;
  published: number;
  requests: number;
  failed: number;
  outcomes: ConnectionPollOutcome[];
}

export interface ShardCycleDeps
  extends Pick<ConnectionPollDeps, 'checkpoints' | 'publisher' | 'objectStore' | 'clock' | 'logger'> {
  registry: RegistryScanner;
  lease: ShardLease;
  clients: ConnectionClientSource;
  settings: ShardPollSettings;
  /** The name of this process on the shards' leases; a random id per process when absent. */
  holder?: string;
  /** The checkpoints as this process last read or wrote them; dropped when another process polled the shard. */
  checkpointCache?: { clear(): void };
  /** Announced health states of the connections this process polled (skips the health read). */
  healthKnown?: Map<string, HealthState>;
  /** Per connection, the collections its service answered 404 (reported once, then skipped). */
  unavailableKnown?: Map<string, Set<string>>;
  /** The token buckets, told each connection's limit before its poll. */
  limiter?: { setLimit(connection: string, limit: RateLimit): void };
  /** Which of the shard's connections this cycle polls (default: the unpaused ones due in `slot`). */
  select?(entries: readonly ConnectionEntry[], slot: number): ConnectionEntry[];
  /** Hears each connection's outcome as soon as its poll is over (a throw is logged, not spread). */
  onPolled?: ShardPollDeps['onPolled'];
}

/** What one tick names: the shard and when it was scheduled. */
export interface ShardTick {
  shard: Shard;
  scheduledTime?: string;
}

/** The time the cycle may take and its abort signal (Lambda: the invocation's). */
export interface CycleLimits {
  remainingTimeMs?: () => number;
  signal?: AbortSignal;
}

/** A tick's input that is not a shard of a shard count. */
export class ShardTickError extends Error {
  override readonly name = 'ShardTickError';
  constructor(readonly issues: readonly string[]) {
    super(`invalid poll input: ${issues.join('; ')}`);
  }
}

const tickSchema = z.looseObject({
  shard: z.number({ error: 'expected a shard index' }).optional(),
  shards: z.number({ error: 'expected a shard count' }).optional(),
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected an ISO date-time' }).optional(),
});

/** The tick of a schedule (`{"shard": i, "shards": n, "scheduledTime": …}`; none: shard 0 of 1). */
export function parseShardTick(event: unknown): ShardTick {
  const input = tickSchema.safeParse(event ?? {});
  const shard = input.success
    ? shardSchema.safeParse(
        input.data.shard === undefined && input.data.shards === undefined
          ? ONE_SHARD
          : { index: input.data.shard ?? 0, count: input.data.shards ?? 1 },
      )
    : undefined;
  if (!input.success || !shard?.success) {
    const issues = (input.success ? (shard?.error?.issues ?? []) : input.error.issues).map(
      (i) => `${i.path.join('.')}: ${i.message}`,
    );
    throw new ShardTickError(issues);
  }
  return {
    shard: shard.data,
    ...(input.data.scheduledTime ? { scheduledTime: input.data.scheduledTime } : {}),
  };
}

/** This process's name on the shards' leases (a Lambda container lives as long as its module). */
const PROCESS_HOLDER = randomUUID();

/** Time kept back at the end of the cycle's time for logs and metrics. */
const ABORT_MARGIN_MS = 3_000;

/** A cycle without a time of its own: at most as long as a Lambda's longest invocation. */
const UNBOUNDED_MS = 15 * 60_000;

/**
 * The cycle's time cannot hold its own margin: every request would be aborted before it was sent
 * (a function's `Timeout` of a few seconds). Thrown before the lease is taken, so the invocation
 * fails, where a cycle that polled nothing would pass unseen.
 */
export class ShardTimeBudgetError extends Error {
  override readonly name = 'ShardTimeBudgetError';
  constructor(readonly remainingMs: number) {
    super(
      `the invocation has ${remainingMs} ms left, not more than the ${ABORT_MARGIN_MS} ms kept back for its report: raise the function's Timeout`,
    );
  }
}

/** One cycle of one shard: lease, registry, the connections to poll, their polls. */
export async function runShardCycle(
  deps: ShardCycleDeps,
  tick: ShardTick,
  limits: CycleLimits = {},
): Promise<ShardCycle> {
  const { shard, scheduledTime } = tick;
  const nowMs = deps.clock.now().getTime();
  const slot = slotOf(scheduledTime ? Date.parse(scheduledTime) : nowMs);
  const cycle: ShardCycle = {
    shard,
    slot,
    leased: false,
    registered: 0,
    malformed: 0,
    paused: 0,
    due: 0,
    published: 0,
    requests: 0,
    failed: 0,
    outcomes: [],
  };
  const holder = deps.holder ?? PROCESS_HOLDER;
  const remainingMs = limits.remainingTimeMs?.();
  if (remainingMs !== undefined && limits.signal === undefined && remainingMs <= ABORT_MARGIN_MS) {
    throw new ShardTimeBudgetError(remainingMs);
  }
  const until = nowMs + (remainingMs ?? UNBOUNDED_MS);
  const lease = await deps.lease.acquire(shard, nowMs, until, holder);
  if (lease === undefined) {
    deps.logger.info('shard busy', { shard: `${shard.index}/${shard.count}`, slot });
    return cycle;
  }
  cycle.leased = true;
  // Another process polled the shard since this one did: what this one remembers may be old.
  if (lease.previousHolder !== holder) {
    deps.checkpointCache?.clear();
    deps.healthKnown?.clear();
  }
  try {
    await pollLeased(deps, cycle, limits);
  } finally {
    await deps.lease.release(shard, lease.token).catch((error: unknown) =>
      // It ends at the cycle's end anyway: the next tick polls the shard then.
      deps.logger.warn('shard lease not released', { error: error instanceof Error ? error.name : 'Error' }),
    );
  }
  return cycle;
}

/** The signal every request of the cycle listens to: the caller's, or the end of its time. */
function cycleSignal(limits: CycleLimits): AbortSignal | undefined {
  const signal =
    limits.signal ??
    (limits.remainingTimeMs
      ? AbortSignal.timeout(Math.max(0, limits.remainingTimeMs() - ABORT_MARGIN_MS))
      : undefined);
  // Every request of the shard's polls listens to it: more than Node's default of 10 is expected.
  if (signal) setMaxListeners(0, signal);
  return signal;
}

/** The cycle of a shard whose lease is held: registry, the connections to poll, their polls. */
async function pollLeased(deps: ShardCycleDeps, cycle: ShardCycle, limits: CycleLimits): Promise<void> {
  const { entries, malformed } = await deps.registry.scan(cycle.shard);
  for (const item of malformed) {
    deps.logger.error('registry item skipped', {
      key: item.key,
      fields: item.problems.map((p) => p.split(': ')[0]),
      problems: item.problems,
    });
  }
  const due = (deps.select ?? dueConnections)(entries, cycle.slot);
  Object.assign(cycle, {
    registered: entries.length,
    malformed: malformed.length,
    paused: entries.filter((e) => e.paused).length,
    due: due.length,
  });
  const signal = cycleSignal(limits);
  const clients = new Map<string, { client: CountedApi; before?: { rateLimited: number } }>();
  const summary = await pollShard(
    {
      checkpoints: deps.checkpoints,
      publisher: deps.publisher,
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.objectStore ? { objectStore: deps.objectStore } : {}),
      ...(deps.healthKnown ? { healthKnown: deps.healthKnown } : {}),
      ...(deps.unavailableKnown ? { unavailableKnown: deps.unavailableKnown } : {}),
      ...(limits.remainingTimeMs ? { remainingTimeMs: limits.remainingTimeMs } : {}),
      ...(signal ? { signal } : {}),
      ...(deps.onPolled ? { onPolled: deps.onPolled } : {}),
      apiFor: async (entry) => {
        deps.limiter?.setLimit(entry.name, entry.rateLimit);
        const client = await deps.clients.apiFor(entry);
        const stats = client.stats?.();
        clients.set(entry.name, { client, ...(stats ? { before: stats } : {}) });
        return client;
      },
    },
    due,
    deps.settings,
  );
  cycle.outcomes = summary.outcomes.map((o) => {
    const held = clients.get(o.connection);
    const after = held?.client.stats?.();
    const rateLimited = held?.before && after ? after.rateLimited - held.before.rateLimited : 0;
    return { ...o, rateLimited };
  });
  Object.assign(cycle, { published: summary.published, requests: summary.requests, failed: summary.failed });
}
