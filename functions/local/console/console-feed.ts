/**
 * What the console shows live, kept in memory while `run` runs: the latest events with the routes
 * each matched and what each route's delivery did (attempts, outcome, the outcome event the action
 * published, linked by its `causationId`), every delivery attempt, and per connection its state,
 * last poll, lag and a per-minute series of the last hour. Fed by the bus's listeners and the
 * runtime's updates; each listener does O(1) work so the pipeline does not wait on the console.
 */
import type { DeliveryOutcome, EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import { outcomeNote, type RuntimeUpdate } from '../runtime-update.js';
import { type ConnectionInfo, createConnectionRows } from './feed-connections.js';

export type { ConnectionInfo, ConnectionMinute } from './feed-connections.js';

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

/** The route of `routes` an outcome's action ran for (`archive.isdoc` → `archive-isdoc`). */
function routeOfAction(routes: readonly string[], action: string | undefined): string | undefined {
  // `transfer.receivedOrderToIssueSlip` ran for route `transfer-received-order`.
  const found = routes.find((r) => squash(action ?? '').startsWith(squash(r)));
  return found ?? (routes.length === 1 ? routes[0] : undefined);
}

function attemptOf(o: DeliveryOutcome, at: number, durationMs: number | undefined): DeliveryAttempt {
  const error = o.status === 'delivered' ? undefined : o.error;
  return {
    at,
    subscriber: o.routeId,
    eventId: o.eventId,
    detailType: o.detailType,
    attempt: o.attempt,
    status: o.status,
    ...(error !== undefined ? { error } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
  };
}

function feedEventOf(
  event: EventBridgeEvent,
  routeIds: readonly string[],
  seq: number,
  at: number,
  primary: string,
): FeedEvent {
  const detail = (event.detail ?? {}) as Record<string, unknown>;
  return {
    seq,
    event,
    publishedAt: at,
    connection: str(detail.connection) ?? primary,
    documentNumber: documentNumberOf(detail),
    note: outcomeNote(event['detail-type'], detail),
    routes: Object.fromEntries(routeIds.map((r) => [r, { status: 'pending', attempts: 0 }])),
  };
}

export function createConsoleFeed(options: { now?: () => number; maxEvents?: number } = {}): ConsoleFeed {
  const now = options.now ?? Date.now;
  const maxEvents = options.maxEvents ?? 2_000;
  const list: FeedEvent[] = [];
  const byId = new Map<string, FeedEvent>();
  const attempts: DeliveryAttempt[] = [];
  const connections = createConnectionRows(now);
  const listeners = new Set<(change: FeedChange) => void>();
  let seq = 0;
  const tell = (change: FeedChange) => {
    for (const l of listeners) l(change);
  };
  const linkOutcome = (item: FeedEvent) => {
    const detail = item.event.detail as Record<string, unknown>;
    const cause = byId.get(str(detail.causationId) ?? '');
    const route = cause ? routeOfAction(Object.keys(cause.routes), str(detail.action)) : undefined;
    if (!cause || route === undefined) return;
    const out = cause.routes[route] as RouteOutcome;
    out.outcomeEvent = { id: item.event.id, detailType: item.event['detail-type'], note: item.note };
    tell({ kind: 'outcome', item: cause });
  };
  return {
    onEvent(event, routeIds) {
      const item = feedEventOf(event, routeIds, ++seq, now(), connections.primary());
      list.push(item);
      byId.set(event.id, item);
      capped(list, maxEvents, (dropped) => byId.delete(dropped.event.id));
      connections.countEvent(item.connection ?? connections.primary());
      tell({ kind: 'event', item });
      linkOutcome(item);
    },
    onDelivery(o) {
      const item = byId.get(o.eventId);
      const at = now();
      const attempt = attemptOf(o, at, item ? at - item.publishedAt : undefined);
      attempts.push(attempt);
      capped(attempts, maxEvents);
      if (!item) return;
      const { status, attempt: attemptNo, error, durationMs } = attempt;
      const out = item.routes[o.routeId] ?? { status: 'pending', attempts: 0 };
      item.routes[o.routeId] = Object.assign(out, {
        status,
        attempts: attemptNo,
        ...(error !== undefined ? { error } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      });
      tell({ kind: 'outcome', item });
    },
    onUpdate(u) {
      const changed = connections.apply(u);
      if (changed) tell({ kind: 'connection', item: changed });
    },
    events: () => list,
    event: (id) => byId.get(id),
    attempts: () => attempts,
    connections: () => connections.list(),
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
