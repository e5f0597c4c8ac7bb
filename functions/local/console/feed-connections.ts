/**
 * The console's rows per connection: state (and why it is unhealthy), last poll, lag, events, errors,
 * and per minute of the last hour the events published and the lag, for its chart.
 */
import type { RuntimeUpdate } from '../runtime-update.js';

export interface ConnectionMinute {
  minute: number;
  events: number;
  lagMs?: number;
}

export interface ConnectionInfo {
  name: string;
  state: string;
  reason?: string | undefined;
  lastPollAt?: number;
  lagMs?: number;
  events: number;
  errors: number;
  lastError?: string;
  minutes: ConnectionMinute[];
}

const HOUR_MINUTES = 60;

export function createConnectionRows(now: () => number) {
  const rows = new Map<string, ConnectionInfo>();
  /** The connection of a one-connection run (its updates and events do not name it). */
  let primary = 'local';
  const row = (name: string): ConnectionInfo => {
    let c = rows.get(name);
    if (!c) {
      c = { name, state: 'starting', events: 0, errors: 0, minutes: [] };
      rows.set(name, c);
    }
    return c;
  };
  const minuteOf = (c: ConnectionInfo): ConnectionMinute => {
    const minute = Math.floor(now() / 60_000);
    let last = c.minutes.at(-1);
    if (last?.minute !== minute) {
      last = { minute, events: 0 };
      c.minutes.push(last);
      while ((c.minutes[0]?.minute ?? minute) <= minute - HOUR_MINUTES) c.minutes.shift();
    }
    return last;
  };
  return {
    primary: () => primary,
    countEvent(name: string) {
      const c = row(name);
      c.events += 1;
      minuteOf(c).events += 1;
    },
    /** Applies a runtime update; returns the row it changed, if any. */
    apply(u: RuntimeUpdate): ConnectionInfo | undefined {
      if (u.kind === 'started') {
        primary = u.connections?.[0] ?? primary;
        for (const name of u.connections ?? []) row(name);
        return undefined;
      }
      if (u.kind === 'poll') {
        const c = row(u.connection ?? primary);
        c.lastPollAt = u.at.getTime();
        if (u.lagMs !== undefined) {
          c.lagMs = u.lagMs;
          minuteOf(c).lagMs = u.lagMs;
        }
        if (c.state === 'starting' || c.state === 'paused') c.state = 'healthy';
        return c;
      }
      if (u.kind !== 'connection') return undefined;
      const c = row(u.connection);
      c.state = u.state;
      c.reason = u.reason;
      if (u.state === 'unhealthy') {
        c.errors += 1;
        if (u.reason) c.lastError = u.reason;
      }
      return c;
    },
    list: () => [...rows.values()],
  };
}
