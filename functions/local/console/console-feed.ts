/**
 * What the console shows live, kept in memory while `run` runs: the latest events with the routes
 * each matched and what each route's delivery did (attempts, outcome, the outcome event the action
 * published, linked by its `causationId`), every delivery attempt, and per connection its state,
 * last poll, lag and a per-minute series of the last hour. Fed by the bus's listeners and the
 * runtime's updates; each listener does O(1) work so the pipeline does not wait on the console.
 */
import type { DeliveryOutcome, EventBridgeEvent } from '../../adapters/local/local-bus.js';
import { outcomeNote, type RuntimeUpdate } from '../runtime-update.js';

/** What became of an event at one route (or other subscriber). */
export interface RouteOutcome {
  status: 'pending' | 'delivered' | 'retrying' | 'dead-lettered';
  attempts: number;
  error?: string;
  /** Milliseconds from the event's publication to this outcome. */
  durationMs?: number;
  /** The outcome event the action published (`causationId` = this event's id). */
  outcomeEvent?: { id: string; detailType: string; note?: string | undefined };
}

export interface FeedEvent {
  seq: number;
  event: EventBridgeEvent;
  publishedAt: number;
  connection?: string | undefined;
  documentNumber?: string | undefined;
  note?: string | undefined;
  routes: Record<string, RouteOutcome>;
}

export interface DeliveryAttempt {
  at: number;
  subscriber: string;
  eventId: string;
  detailType: string;
  attempt: number;
  status: DeliveryOutcome['status'];
  error?: string;
  durationMs?: number;
}

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

export type FeedChange =
  | { kind: 'event'; item: FeedEvent }
  | { kind: 'outcome'; item: FeedEvent }
  | { kind: 'connection'; item: ConnectionInfo };

export interface ConsoleFeed {
  onEvent(event: EventBridgeEvent, routeIds: readonly string[]): void;
  onDelivery(outcome: DeliveryOutcome): void;
  onUpdate(update: RuntimeUpdate): void;
  events(): readonly FeedEvent[];
  event(id: string): FeedEvent | undefined;
  attempts(): readonly DeliveryAttempt[];
  connections(): ConnectionInfo[];
  /** Calls `listener` with each change; returns an unsubscribe. */
  watch(listener: (change: FeedChange) => void): () => void;
}

const HOUR_MINUTES = 60;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function documentNumberOf(detail: Record<string, unknown>): string | undefined {
  const record = detail.record as Record<string, unknown> | undefined;
  const source = detail.source as Record<string, unknown> | undefined;
  return str(record?.DocumentNumber) ?? str(detail.documentNumber) ?? str(source?.documentNumber);
}

/** A route id or action name without case and separators, to tell which route an action ran for. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Keeps the newest `max` items of a list, dropping from the front. */
function capped<T>(list: T[], max: number, onDrop?: (item: T) => void): void {
  while (list.length > max) {
    const dropped = list.shift();
    if (dropped !== undefined) onDrop?.(dropped);
  }
}

export function createConsoleFeed(options: { now?: () => number; maxEvents?: number } = {}): ConsoleFeed {
  const now = options.now ?? Date.now;
  const maxEvents = options.maxEvents ?? 2_000;
  const list: FeedEvent[] = [];
  const byId = new Map<string, FeedEvent>();
  const attempts: DeliveryAttempt[] = [];
  const conns = new Map<string, ConnectionInfo>();
  const listeners = new Set<(change: FeedChange) => void>();
  let seq = 0;
  /** The connection of a one-connection run (its updates and events do not name it). */
  let primary = 'local';
  const tell = (change: FeedChange) => {
    for (const l of listeners) l(change);
  };
  const conn = (name: string): ConnectionInfo => {
    let c = conns.get(name);
    if (!c) {
      c = { name, state: 'starting', events: 0, errors: 0, minutes: [] };
      conns.set(name, c);
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
  const linkOutcome = (item: FeedEvent) => {
    const detail = item.event.detail as Record<string, unknown>;
    const cause = byId.get(str(detail.causationId) ?? '');
    const action = str(detail.action);
    if (!cause) return;
    // `archive.isdoc` ran for route `archive-isdoc`, `transfer.receivedOrderToIssueSlip` for `transfer-received-order`.
    const names = Object.keys(cause.routes);
    const route =
      names.find((r) => squash(action ?? '').startsWith(squash(r))) ??
      (names.length === 1 ? names[0] : undefined);
    if (route === undefined) return;
    const out = cause.routes[route] as RouteOutcome;
    out.outcomeEvent = { id: item.event.id, detailType: item.event['detail-type'], note: item.note };
    tell({ kind: 'outcome', item: cause });
  };
  return {
    onEvent(event, routeIds) {
      const detail = (event.detail ?? {}) as Record<string, unknown>;
      const item: FeedEvent = {
        seq: ++seq,
        event,
        publishedAt: now(),
        connection: str(detail.connection) ?? primary,
        documentNumber: documentNumberOf(detail),
        note: outcomeNote(event['detail-type'], detail),
        routes: Object.fromEntries(routeIds.map((r) => [r, { status: 'pending', attempts: 0 }])),
      };
      list.push(item);
      byId.set(event.id, item);
      capped(list, maxEvents, (dropped) => byId.delete(dropped.event.id));
      const c = conn(item.connection ?? primary);
      c.events += 1;
      minuteOf(c).events += 1;
      tell({ kind: 'event', item });
      linkOutcome(item);
    },
    onDelivery(o) {
      const item = byId.get(o.eventId);
      const at = now();
      const durationMs = item ? at - item.publishedAt : undefined;
      const error = o.status === 'delivered' ? undefined : o.error;
      attempts.push({
        at,
        subscriber: o.routeId,
        eventId: o.eventId,
        detailType: o.detailType,
        attempt: o.attempt,
        status: o.status,
        ...(error !== undefined ? { error } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      });
      capped(attempts, maxEvents);
      if (!item) return;
      const out = item.routes[o.routeId] ?? { status: 'pending', attempts: 0 };
      item.routes[o.routeId] = Object.assign(out, {
        status: o.status,
        attempts: o.attempt,
        ...(error !== undefined ? { error } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      });
      tell({ kind: 'outcome', item });
    },
    onUpdate(u) {
      if (u.kind === 'started') {
        primary = u.connections?.[0] ?? primary;
        for (const name of u.connections ?? []) conn(name);
      } else if (u.kind === 'poll') {
        const c = conn(u.connection ?? primary);
        c.lastPollAt = u.at.getTime();
        if (u.lagMs !== undefined) {
          c.lagMs = u.lagMs;
          minuteOf(c).lagMs = u.lagMs;
        }
        if (c.state === 'starting' || c.state === 'paused') c.state = 'healthy';
        tell({ kind: 'connection', item: c });
      } else if (u.kind === 'connection') {
        const c = conn(u.connection);
        c.state = u.state;
        c.reason = u.reason;
        if (u.state === 'unhealthy') {
          c.errors += 1;
          if (u.reason) c.lastError = u.reason;
        }
        tell({ kind: 'connection', item: c });
      }
    },
    events: () => list,
    event: (id) => byId.get(id),
    attempts: () => attempts,
    connections: () => [...conns.values()],
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
