/**
 * The live view's lines per connection, when a runtime polls more than one: name, state (healthy,
 * unhealthy with its reason, paused), events published, when it was last polled and its watermark
 * lag. Only a few fit a terminal: the unhealthy first, then the most recently polled, and one line
 * summing up the rest ("+N more: …").
 */
import type { ConnectionState, RuntimeUpdate } from './runtime-update.js';

export interface ConnectionRow {
  state: ConnectionState | undefined;
  reason?: string | undefined;
  /** What a person should do about it (refused credentials: the setting to check). */
  message?: string | undefined;
  events: number;
  lastPollAt?: Date | undefined;
  lagMs?: number | undefined;
}

/** Applies a connection's part of an update to the rows (a removed connection leaves them). */
export function applyConnectionUpdate(rows: Map<string, ConnectionRow>, update: RuntimeUpdate): void {
  const row = (name: string): ConnectionRow => {
    let r = rows.get(name);
    if (!r) {
      r = { state: undefined, events: 0 };
      rows.set(name, r);
    }
    return r;
  };
  if (update.kind === 'started' && (update.connections?.length ?? 0) > 1) {
    for (const name of update.connections ?? []) row(name);
  } else if (update.kind === 'connection') {
    if (update.state === 'removed') rows.delete(update.connection);
    else
      Object.assign(row(update.connection), {
        state: update.state,
        reason: update.reason,
        message: update.message,
      });
  } else if (update.kind === 'poll' && update.connection) {
    const r = row(update.connection);
    r.lastPollAt = update.at;
    r.lagMs = update.lagMs;
    if (r.state === undefined || r.state === 'paused') r.state = 'healthy';
  } else if (update.kind === 'event' && update.connection) {
    row(update.connection).events += 1;
  }
}

const RANK: Record<string, number> = { unhealthy: 0, healthy: 1, starting: 2, paused: 3 };

/** A duration in its largest fitting unit: `1.2 s`, `42 s`, `12 min`, `5 h`, `391 d`. */
function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

function rowText(name: string, r: ConnectionRow, now: Date): string {
  const polled = r.lastPollAt
    ? `polled ${duration(now.getTime() - r.lastPollAt.getTime())} ago`
    : 'not polled yet';
  const lag = r.lagMs !== undefined ? ` · lag ${duration(r.lagMs)}` : '';
  const why = r.state === 'unhealthy' && r.reason ? ` · ${r.reason}` : '';
  return `${name.padEnd(14)} ${(r.state ?? 'starting').padEnd(9)} ${r.events} ev · ${polled}${lag}${why}`;
}

/**
 * At most `budget` lines: the worst and most recent connections, then (when some do not fit)
 * `+N more` with their states counted. Lines are not yet cut to the width.
 */
export function connectionLines(
  rows: ReadonlyMap<string, ConnectionRow>,
  budget: number,
  now: Date,
): string[] {
  if (budget <= 0) return [];
  const sorted = [...rows.entries()].sort(
    ([an, a], [bn, b]) =>
      (RANK[a.state ?? 'starting'] ?? 1) - (RANK[b.state ?? 'starting'] ?? 1) ||
      (b.lastPollAt?.getTime() ?? 0) - (a.lastPollAt?.getTime() ?? 0) ||
      an.localeCompare(bn),
  );
  if (sorted.length <= budget) return sorted.map(([name, r]) => rowText(name, r, now));
  const shown = sorted.slice(0, budget - 1);
  const rest = sorted.slice(budget - 1);
  const count = (state: string) => rest.filter(([, r]) => (r.state ?? 'starting') === state).length;
  const parts = ['healthy', 'unhealthy', 'starting', 'paused']
    .map((s) => [s, count(s)] as const)
    .filter(([, n]) => n > 0);
  return [
    ...shown.map(([name, r]) => rowText(name, r, now)),
    `+${rest.length} more: ${parts.map(([s, n]) => `${n} ${s}`).join(', ')}`,
  ];
}
