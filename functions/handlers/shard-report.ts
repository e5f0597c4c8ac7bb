/**
 * How what one cycle of a shard did (core `ShardCycle`) is reported: pipeline-wide metrics, the
 * per-connection ones when opted in, a log line per connection that did anything but an idle,
 * healthy poll, and one line for the shard.
 */
import type { ConnectionPollOutcome, ShardCycle } from '../core/connections/shard-cycle.js';
import type { Logger } from '../core/ports.js';
import type { PollMetrics } from './poll-metrics.js';

/** Pipeline-wide metrics (the worst lag per collection over the shard's connections). */
function reportTotals(m: PollMetrics, cycle: ShardCycle): void {
  const { outcomes } = cycle;
  const total = (pick: (o: ConnectionPollOutcome) => number) => outcomes.reduce((n, o) => n + pick(o), 0);
  const perType = new Map<string, number>();
  const worstLag = new Map<string, number>();
  for (const o of outcomes) {
    for (const [type, n] of Object.entries(o.events)) perType.set(type, (perType.get(type) ?? 0) + n);
    for (const [c, lag] of Object.entries(o.lagByCollection))
      worstLag.set(c, Math.max(lag, worstLag.get(c) ?? lag));
  }
  for (const [detailType, n] of perType) m.count('EventsPublished', n, { detailType });
  for (const [collection, lag] of worstLag) m.milliseconds('WatermarkLagMs', lag, { collection });
  m.count('ApiRequests', cycle.requests);
  m.count(
    'RateLimited',
    total((o) => o.rateLimited),
  );
  m.count(
    'CollectionsFailed',
    total((o) => o.failedCollections),
  );
  // A list the service does not have (404): counted once, in the cycle that found it.
  const unavailable = outcomes.flatMap((o) => o.unavailable ?? []);
  m.count('CollectionsUnavailable', unavailable.length);
  for (const collection of new Set(unavailable)) {
    m.count('CollectionUnavailable', unavailable.filter((c) => c === collection).length, { collection });
  }
  m.count('ConnectionsPolled', outcomes.length);
  m.count('ConnectionsUnhealthy', outcomes.filter((o) => o.healthy === false).length);
  // Only when there is one: its alarm treats no data as fine, and a metric never sent is not billed.
  if (cycle.malformed > 0) m.count('RegistryItemsMalformed', cycle.malformed);
}

/** Whether a connection's cycle is worth a log line: anything but an idle, healthy poll. */
const notable = (o: ConnectionPollOutcome) =>
  o.published > 0 || o.status !== 'polled' || o.failedCollections > 0 || o.healthy === false || o.more;

/** The cycle's metrics (when the poller has a sink) and its log lines: one per notable connection, one for the shard. */
export function reportShardCycle(
  deps: { metrics?: PollMetrics | undefined; perConnectionMetrics?: boolean | undefined; logger: Logger },
  cycle: ShardCycle,
): void {
  const m = deps.metrics;
  if (m) {
    reportTotals(m, cycle);
    if (deps.perConnectionMetrics === true) {
      for (const o of cycle.outcomes.filter((x) => x.status !== 'failed')) {
        const connection = { connection: o.connection };
        m.count('ConnectionEventsPublished', o.published, connection);
        m.count('ConnectionCollectionsFailed', o.failedCollections, connection);
        if (o.lagMs !== undefined) m.milliseconds('ConnectionLagMs', o.lagMs, connection);
        if (o.healthy !== undefined) m.count('ConnectionUnhealthy', o.healthy ? 0 : 1, connection);
      }
    }
    m.flush();
  }
  const worst = cycle.outcomes.reduce<ConnectionPollOutcome | undefined>(
    (w, o) => ((o.lagMs ?? -1) > (w?.lagMs ?? -1) ? o : w),
    undefined,
  );
  for (const o of cycle.outcomes.filter(notable)) {
    deps.logger.info('connection polled', {
      connection: o.connection,
      status: o.status,
      published: o.published,
      requests: o.requests,
      rateLimited: o.rateLimited,
      failedCollections: o.failedCollections,
      more: o.more,
      durationMs: o.durationMs,
      ...(o.lagMs !== undefined ? { lagMs: o.lagMs } : {}),
      ...(o.healthy !== undefined ? { healthy: o.healthy } : {}),
    });
  }
  deps.logger.info('shard polled', {
    shard: `${cycle.shard.index}/${cycle.shard.count}`,
    slot: cycle.slot,
    registered: cycle.registered,
    paused: cycle.paused,
    malformed: cycle.malformed,
    due: cycle.due,
    published: cycle.published,
    requests: cycle.requests,
    failed: cycle.failed,
    unhealthy: cycle.outcomes.filter((o) => o.healthy === false).length,
    ...(worst?.lagMs !== undefined ? { worstLagMs: worst.lagMs, worstLagConnection: worst.connection } : {}),
  });
}
