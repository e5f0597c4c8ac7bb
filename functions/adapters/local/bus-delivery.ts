/**
 * The deliveries of the local bus, per subscriber as from an SQS queue: journaled entries are queued
 * for the subscribers they match, started in journal order at most `maxConcurrency` at a time
 * (batches of up to `maxBatch`, never two of one record at once), retried until `maxReceiveCount`
 * receives and then dead-lettered, or dead-lettered at once when the delivery sent its event to the
 * route's dead-letter sink.
 */
import { matchesPattern } from '#functions/core/event-pattern.js';
import type { JournalEntry } from './bus-journal.js';
import { isUnhandled } from './bus-position.js';
import { type BusState, notify, type SubscriberState, scheduleFlush, sinkKey } from './bus-state.js';
import type { BusSubscriber, DeadLetter, EventBridgeEvent } from './local-bus-types.js';

/** The longest a delivery waits on an error's hint before its next receive. */
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** The pause before the next receive: the error's own hint (`retryAfterMs`, e.g. an in-progress record's expiry) or the bus's. */
function retryDelayOf(error: unknown, fallbackMs: number): number {
  const hint = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof hint === 'number' && Number.isFinite(hint) && hint >= 0
    ? Math.min(hint, MAX_RETRY_DELAY_MS)
    : fallbackMs;
}

/** The record an event is about (`detail.id`), which orders the deliveries of a subscriber. */
function groupOf(entry: JournalEntry): string | undefined {
  const id = (entry.event.detail as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The next batch: the oldest queued events whose record has no delivery running (like the message
 * groups of a FIFO queue), so two events of one record never run at once and meet each other's
 * in-progress idempotency record.
 */
function nextBatch(state: SubscriberState, size: number): JournalEntry[] {
  if (state.groups.size === 0) return state.pending.splice(0, size);
  const batch: JournalEntry[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < state.pending.length && batch.length < size; ) {
    const entry = state.pending[i] as JournalEntry;
    const group = groupOf(entry);
    if (group !== undefined && (state.groups.has(group) || taken.has(group))) {
      i += 1;
      continue;
    }
    if (group !== undefined) taken.add(group);
    batch.push(entry);
    state.pending.splice(i, 1);
  }
  return batch;
}

export const matches = (sub: BusSubscriber, entry: JournalEntry): boolean =>
  (entry.target === undefined || entry.target === sub.id) &&
  (sub.pattern === undefined || matchesPattern(sub.pattern, entry.event));

async function deadLetter(
  bus: BusState,
  sub: BusSubscriber,
  event: EventBridgeEvent,
  attempt: number,
  message: string,
): Promise<void> {
  const letter: DeadLetter = {
    routeId: sub.id,
    event,
    attempts: attempt,
    error: message,
    at: bus.clock.now(),
  };
  await bus.deadStore.add(letter);
  bus.dead.push(letter);
  bus.logger.error('delivery dead-lettered', {
    routeId: sub.id,
    eventId: event.id,
    detailType: event['detail-type'],
    attempts: attempt,
    error: message,
  });
  notify(bus, bus.deliveryListeners, {
    routeId: sub.id,
    eventId: event.id,
    detailType: event['detail-type'],
    status: 'dead-lettered',
    attempt,
    error: message,
  });
}

/** One receive: `undefined` when `deliver` resolved, else what it threw (wrapped, it may be anything). */
async function receive(
  sub: BusSubscriber,
  events: EventBridgeEvent[],
): Promise<{ failure: unknown } | undefined> {
  try {
    // Delivered asynchronously, never inside `publish`.
    await Promise.resolve();
    await sub.deliver(events);
    return undefined;
  } catch (error) {
    return { failure: error };
  }
}

/** A receive that ended the delivery: each event delivered, or dead-lettered with its reason. */
async function settle(
  bus: BusState,
  sub: BusSubscriber,
  events: EventBridgeEvent[],
  attempt: number,
  reasons: readonly (string | undefined)[],
): Promise<void> {
  for (const [i, event] of events.entries()) {
    const reason = reasons[i];
    if (reason !== undefined) await deadLetter(bus, sub, event, attempt, reason);
    else
      notify(bus, bus.deliveryListeners, {
        routeId: sub.id,
        eventId: event.id,
        detailType: event['detail-type'],
        status: 'delivered',
        attempt,
      });
  }
}

function announceRetry(
  bus: BusState,
  sub: BusSubscriber,
  events: EventBridgeEvent[],
  attempt: number,
  error: string,
) {
  bus.logger.warn('delivery failed, retrying', { routeId: sub.id, eventId: events[0]?.id, attempt, error });
  for (const event of events) {
    notify(bus, bus.deliveryListeners, {
      routeId: sub.id,
      eventId: event.id,
      detailType: event['detail-type'],
      status: 'retrying',
      attempt,
      error,
    });
  }
}

/** Delivers one batch with retries; resolves `true` once it is handled (delivered or dead-lettered). */
async function runDelivery(bus: BusState, sub: BusSubscriber, events: EventBridgeEvent[]): Promise<boolean> {
  const maxReceives = Math.max(1, sub.maxReceiveCount);
  for (let attempt = 1; ; attempt += 1) {
    const failed = await receive(sub, events);
    const message = failed?.failure instanceof Error ? failed.failure.message : String(failed?.failure);
    const sent = events.map((e) => bus.sentToSink.get(sinkKey(sub.id, e.id)));
    for (const e of events) bus.sentToSink.delete(sinkKey(sub.id, e.id));
    if (!failed || sent.some((r) => r !== undefined)) {
      await settle(
        bus,
        sub,
        events,
        attempt,
        sent.map((r) => r ?? (failed ? message : undefined)),
      );
      return true;
    }
    // Stopping: left in the journal, the next start delivers it again.
    if (bus.stopping.signal.aborted || sub.stopping?.()) return false;
    if (attempt >= maxReceives) {
      for (const event of events) await deadLetter(bus, sub, event, attempt, message);
      return true;
    }
    announceRetry(bus, sub, events, attempt, message);
    const delay = retryDelayOf(failed.failure, bus.retryDelayMs);
    if (
      delay > 0 &&
      !(await bus.clock.sleep(delay, bus.stopping.signal).then(
        () => true,
        () => false,
      ))
    )
      return false;
  }
}

/** Starts the deliveries a subscriber has room for; none once the bus is stopping. */
export function pump(bus: BusState, state: SubscriberState): void {
  const limit = Math.max(1, state.sub.maxConcurrency);
  const size = Math.max(1, state.sub.maxBatch ?? 1);
  while (!bus.stopping.signal.aborted && state.active < limit && state.pending.length > 0) {
    const batch = nextBatch(state, size);
    if (batch.length === 0) break;
    for (const entry of batch) state.open.add(entry.seq);
    const groups = batch.map(groupOf);
    for (const g of groups) if (g !== undefined) state.groups.add(g);
    state.active += 1;
    const task: Promise<void> = runDelivery(
      bus,
      state.sub,
      batch.map((e) => e.event),
    )
      .catch((error: unknown) => {
        bus.logger.error('dead letter not kept; the next start delivers the event again', {
          routeId: state.sub.id,
          error: error instanceof Error ? error.message : String(error),
        });
        return false;
      })
      .then((handled) => {
        if (handled) for (const entry of batch) state.open.delete(entry.seq);
        for (const g of groups) if (g !== undefined) state.groups.delete(g);
        scheduleFlush(bus);
      })
      .finally(() => {
        state.active -= 1;
        bus.running.delete(task);
        pump(bus, state);
      });
    bus.running.add(task);
  }
}

/** Hands journaled entries to the matching subscribers and starts their deliveries. */
export function dispatch(bus: BusState, entries: readonly JournalEntry[], announce: boolean): void {
  for (const entry of entries) {
    const matched = bus.states.filter((s) => matches(s.sub, entry));
    for (const state of matched) state.pending.push(entry);
    bus.known = Math.max(bus.known, entry.seq);
    if (!announce) continue;
    const routes = matched.map((s) => s.sub.id);
    bus.logger.debug('event published', {
      eventId: entry.event.id,
      detailType: entry.event['detail-type'],
      routes,
    });
    notify(bus, bus.eventListeners, entry.event, routes);
  }
  for (const state of bus.states) pump(bus, state);
}

/** Queues what earlier runs journaled and a subscriber had not handled yet (a new subscriber starts at the end). */
export function queueBacklog(bus: BusState): void {
  const start = bus.journal.lastSeq();
  const positions = new Map(
    bus.states.map((s) => {
      const position = bus.journal.position(s.sub.id) ?? { offset: start };
      return [s.sub.id, { position, unhandled: new Set(position.unhandled ?? []) }] as const;
    }),
  );
  for (const entry of bus.journal.entries()) {
    for (const state of bus.states) {
      const at = positions.get(state.sub.id);
      if (at && isUnhandled(at.position, entry.seq, at.unhandled) && matches(state.sub, entry))
        state.pending.push(entry);
    }
  }
  bus.known = start;
}
