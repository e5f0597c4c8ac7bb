/**
 * The in-process event bus of the local runtime. It implements `EventPublisher` like the
 * EventBridge adapter and routes with the same table (`functions/core/routes.ts`) and the same pattern
 * semantics (`core/event-pattern.ts`) as the rules on AWS.
 *
 * Every published event is first appended to the bus journal (`bus-journal.ts`): on disk and
 * fsync'd for the runtime, so `publish` resolves only once the events survive a crash (and the
 * poller writes its checkpoint only after that). Each subscriber — every route, `--events-out`,
 * any other `BusSubscriber` — consumes the journal at least once with its own durable offset: a
 * restart delivers again what was journaled but not yet handled, the actions' idempotency makes
 * that harmless. The journal is compacted once every subscriber has moved past an entry.
 *
 * A subscriber behaves like an SQS queue: deliveries start in journal order, at most
 * `maxConcurrency` at a time (batches of up to `maxBatch` events), a failed delivery is retried
 * until `maxReceiveCount` receives, then kept as a dead letter (durably, before the offset moves
 * past it). A route delivery that sends its event to the route's `deadLetterSink` (an invalid
 * event, as the SQS handler sends it to the route's DLQ) is dead-lettered at once.
 *
 * `drain()` waits until every delivery, including those of events published by handlers
 * meanwhile, has finished; `close()` waits for running deliveries and leaves queued ones in the
 * journal for the next start.
 */
import { randomUUID } from 'node:crypto';
import type { DeadLetterSink } from '../../core/actions/dead-letter-sink.js';
import { PublishError } from '../../core/errors.js';
import { type EventPatternSpec, matchesPattern } from '../../core/event-pattern.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../../core/ports.js';
import type { Route } from '../../core/routes.js';
import { systemClock } from '../../shared/clock.js';
import { type BusJournal, createMemoryJournal, type JournalEntry } from './bus-journal.js';
import { createMemoryDeadLetterStore, type DeadLetterStore } from './dead-letter-store.js';
import type { DeadLetter, DeliveryOutcome, EventBridgeEvent } from './local-bus-types.js';

export type { DeadLetter, DeliveryOutcome, EventBridgeEvent } from './local-bus-types.js';

/**
 * A consumer of the bus with its own durable offset in the journal (the routes' actions,
 * `--events-out`, a delivery to an HTTP endpoint…). `deliver` resolves once the events are
 * handled; it throws to have them retried. It may see an event again after a crash.
 */
export interface BusSubscriber {
  /** Stable id: keys its offset in the journal and names it in dead letters and outcomes. */
  readonly id: string;
  /** Which events it receives; absent = every event. */
  readonly pattern?: EventPatternSpec;
  readonly maxConcurrency: number;
  /** Receives of a failing delivery before it is dead-lettered. */
  readonly maxReceiveCount: number;
  /** Up to this many events per `deliver` call (default 1). */
  readonly maxBatch?: number;
  deliver(events: readonly EventBridgeEvent[]): Promise<void>;
  /**
   * True once the subscriber is stopping (e.g. an HTTP delivery whose backoff was cut short by a
   * stop): a failed delivery is then left in the journal for the next start, not retried or
   * dead-lettered.
   */
  stopping?(): boolean;
}

export interface LocalBusOptions {
  /** The action routes; each becomes a subscriber (id = route id) delivering through `deliver`. */
  routes: readonly Route[];
  deliver: (route: Route, event: EventBridgeEvent) => Promise<void>;
  /** Further subscribers (events-out, HTTP deliveries). */
  subscribers?: readonly BusSubscriber[];
  /** Where events are journaled; default in memory (nothing survives the process). */
  journal?: BusJournal;
  /** Where dead letters are kept; default in memory. */
  deadLetterStore?: DeadLetterStore;
  /** How often the subscribers' offsets are written at most; default 100 ms. */
  offsetFlushMs?: number;
  logger: Logger;
  /** Source put on events published with an empty `source`. */
  source?: string;
  account?: string;
  region?: string;
  /** Time of events without their own `time`, and the retry delay's sleep. Default: system clock. */
  clock?: Clock;
  /** Pause between receives of a failed delivery; default 0 (retry at once). */
  retryDelayMs?: number;
  /** How many of the latest events `events()` keeps; default 10,000 (`Infinity` keeps all). */
  maxRecordedEvents?: number;
  /** Event ids; default random UUIDs. */
  newId?: () => string;
}

export interface LocalBus extends EventPublisher {
  /** The latest published events, oldest first. */
  events(): EventBridgeEvent[];
  /** Every event published since the bus started (not capped). */
  publishedCount(): number;
  /** Deliveries of this run that were dead-lettered (the store keeps those of earlier runs too). */
  deadLetters(): DeadLetter[];
  /**
   * The dead-letter list of route `routeId` as a `DeadLetterSink`: a delivery running for the event
   * whose JSON is sent ends dead-lettered on this receive (with the given reason), not retried.
   */
  deadLetterSink(routeId: string): DeadLetterSink;
  /**
   * Journals `events` again for subscriber `subscriberId` only (a dead letter's redrive); resolves
   * once they are journaled, the delivery follows like any other.
   */
  redeliver(subscriberId: string, events: readonly EventBridgeEvent[]): Promise<void>;
  /** Calls `listener` for each published event with the ids of the subscribers it matched; returns an unsubscribe. */
  onEvent(listener: (event: EventBridgeEvent, routeIds: string[]) => void): () => void;
  /** Calls `listener` after each delivery attempt; returns an unsubscribe. */
  onDelivery(listener: (outcome: DeliveryOutcome) => void): () => void;
  /** Resolves when no delivery is queued or running. */
  drain(): Promise<void>;
  /** Refuses further events, starts no more deliveries, waits for running ones and saves the offsets. */
  close(): Promise<void>;
}

interface SubscriberState {
  sub: BusSubscriber;
  pending: JournalEntry[];
  /** Seqs delivered but not yet handled (running, or left unhandled at close). */
  open: Set<number>;
  active: number;
  /** Records with a delivery running: their other events wait (no two at once for one record). */
  groups: Set<string>;
}

function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function toJsonValue(detail: unknown): unknown {
  const text = JSON.stringify(detail);
  return text === undefined ? {} : JSON.parse(text);
}

function routeSubscriber(route: Route, deliver: LocalBusOptions['deliver']): BusSubscriber {
  return {
    id: route.id,
    pattern: route.pattern,
    maxConcurrency: route.maxConcurrency,
    maxReceiveCount: route.maxReceiveCount,
    deliver: async (events) => {
      for (const event of events) await deliver(route, event);
    },
  };
}

/** The pause before the next receive: the error's own hint (`retryAfterMs`, e.g. an in-progress record's expiry) or the bus's. */
function retryDelayOf(error: unknown, fallbackMs: number): number {
  const hint = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof hint === 'number' && Number.isFinite(hint) && hint >= 0
    ? Math.min(hint, MAX_RETRY_DELAY_MS)
    : fallbackMs;
}

/** The longest a delivery waits on an error's hint before its next receive. */
const MAX_RETRY_DELAY_MS = 5 * 60_000;

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

const matches = (sub: BusSubscriber, entry: JournalEntry): boolean =>
  (entry.target === undefined || entry.target === sub.id) &&
  (sub.pattern === undefined || matchesPattern(sub.pattern, entry.event));

export function createLocalBus(options: LocalBusOptions): LocalBus {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const retryDelayMs = options.retryDelayMs ?? 0;
  const maxRecorded = options.maxRecordedEvents ?? 10_000;
  const newId = options.newId ?? randomUUID;
  const account = options.account ?? '000000000000';
  const region = options.region ?? 'local';
  const journal = options.journal ?? createMemoryJournal();
  const deadStore = options.deadLetterStore ?? createMemoryDeadLetterStore();

  const subscribers = [
    ...options.routes.map((route) => routeSubscriber(route, options.deliver)),
    ...(options.subscribers ?? []),
  ];
  const states = subscribers.map(
    (sub): SubscriberState => ({ sub, pending: [], open: new Set(), active: 0, groups: new Set() }),
  );
  const recorded: EventBridgeEvent[] = [];
  const dead: DeadLetter[] = [];
  const running = new Set<Promise<void>>();
  const eventListeners = new Set<(event: EventBridgeEvent, routeIds: string[]) => void>();
  const deliveryListeners = new Set<(outcome: DeliveryOutcome) => void>();
  let published = 0;
  let closed = false;
  /** Aborted by `close()`: deliveries waiting to retry give up (the journal keeps their events). */
  const stopping = new AbortController();
  let closing: Promise<void> = Promise.resolve();
  /** The newest seq handed to the subscribers' queues. */
  let known = journal.lastSeq();
  /** Reasons of events a running delivery sent to its route's sink, by `routeId\n eventId`. */
  const sentToSink = new Map<string, string>();
  const sinkKey = (routeId: string, eventId: string) => `${routeId}\n${eventId}`;

  const notify = <A extends unknown[]>(listeners: Set<(...args: A) => void>, ...args: A) => {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        logger.warn('bus listener failed', { error: (error as Error).message });
      }
    }
  };

  // ---- offsets: everything before the oldest queued or open seq is handled ----
  const offsetOf = (state: SubscriberState): number => {
    let low = known;
    if (state.pending.length > 0) low = Math.min(low, (state.pending[0] as JournalEntry).seq - 1);
    for (const seq of state.open) low = Math.min(low, seq - 1);
    return low;
  };
  let flushTimer: NodeJS.Timeout | undefined;
  const flushOffsets = async () => {
    journal.commit(new Map(states.map((s) => [s.sub.id, offsetOf(s)])));
    await journal.flush().catch((error: unknown) => {
      logger.warn('bus offsets not saved', { error: error instanceof Error ? error.message : String(error) });
    });
  };
  const scheduleFlush = () => {
    if (flushTimer || closed) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flushOffsets();
    }, options.offsetFlushMs ?? 100);
    flushTimer.unref?.();
  };

  async function deadLetter(sub: BusSubscriber, event: EventBridgeEvent, attempt: number, message: string) {
    const letter: DeadLetter = { routeId: sub.id, event, attempts: attempt, error: message, at: clock.now() };
    await deadStore.add(letter);
    dead.push(letter);
    logger.error('delivery dead-lettered', {
      routeId: sub.id,
      eventId: event.id,
      detailType: event['detail-type'],
      attempts: attempt,
      error: message,
    });
    notify(deliveryListeners, {
      routeId: sub.id,
      eventId: event.id,
      status: 'dead-lettered',
      attempt,
      error: message,
    });
  }

  /** Delivers one batch with retries; resolves `true` once it is handled (delivered or dead-lettered). */
  async function run(sub: BusSubscriber, events: EventBridgeEvent[]): Promise<boolean> {
    const maxReceives = Math.max(1, sub.maxReceiveCount);
    for (let attempt = 1; ; attempt += 1) {
      let failure: unknown;
      let failed = false;
      try {
        // Delivered asynchronously, never inside `publish`.
        await Promise.resolve();
        await sub.deliver(events);
      } catch (error) {
        failure = error;
        failed = true;
      }
      const message = failure instanceof Error ? failure.message : String(failure);
      const sent = events.map((e) => sentToSink.get(sinkKey(sub.id, e.id)));
      for (const e of events) sentToSink.delete(sinkKey(sub.id, e.id));
      if (!failed || sent.some((r) => r !== undefined)) {
        for (const [i, event] of events.entries()) {
          const reason = sent[i] ?? (failed ? message : undefined);
          if (reason !== undefined) await deadLetter(sub, event, attempt, reason);
          else
            notify(deliveryListeners, { routeId: sub.id, eventId: event.id, status: 'delivered', attempt });
        }
        return true;
      }
      // Stopping: left in the journal, the next start delivers it again.
      if (stopping.signal.aborted || sub.stopping?.()) return false;
      if (attempt >= maxReceives) {
        for (const event of events) await deadLetter(sub, event, attempt, message);
        return true;
      }
      logger.warn('delivery failed, retrying', {
        routeId: sub.id,
        eventId: events[0]?.id,
        attempt,
        error: message,
      });
      for (const event of events) {
        notify(deliveryListeners, {
          routeId: sub.id,
          eventId: event.id,
          status: 'retrying',
          attempt,
          error: message,
        });
      }
      const delay = retryDelayOf(failure, retryDelayMs);
      if (
        delay > 0 &&
        !(await clock.sleep(delay, stopping.signal).then(
          () => true,
          () => false,
        ))
      )
        return false;
    }
  }

  function pump(state: SubscriberState): void {
    const limit = Math.max(1, state.sub.maxConcurrency);
    const size = Math.max(1, state.sub.maxBatch ?? 1);
    while (!closed && state.active < limit && state.pending.length > 0) {
      const batch = nextBatch(state, size);
      if (batch.length === 0) break;
      for (const entry of batch) state.open.add(entry.seq);
      const groups = batch.map(groupOf);
      for (const g of groups) if (g !== undefined) state.groups.add(g);
      state.active += 1;
      const task: Promise<void> = run(
        state.sub,
        batch.map((e) => e.event),
      )
        .catch((error: unknown) => {
          logger.error('dead letter not kept; the next start delivers the event again', {
            routeId: state.sub.id,
            error: error instanceof Error ? error.message : String(error),
          });
          return false;
        })
        .then((handled) => {
          if (handled) for (const entry of batch) state.open.delete(entry.seq);
          for (const g of groups) if (g !== undefined) state.groups.delete(g);
          scheduleFlush();
        })
        .finally(() => {
          state.active -= 1;
          running.delete(task);
          pump(state);
        });
      running.add(task);
    }
  }

  /** Hands journaled entries to the matching subscribers and starts their deliveries. */
  function dispatch(entries: readonly JournalEntry[], announce: boolean): void {
    for (const entry of entries) {
      const matched = states.filter((s) => matches(s.sub, entry));
      for (const state of matched) state.pending.push(entry);
      known = Math.max(known, entry.seq);
      if (!announce) continue;
      logger.debug('event published', {
        eventId: entry.event.id,
        detailType: entry.event['detail-type'],
        routes: matched.map((s) => s.sub.id),
      });
      notify(
        eventListeners,
        entry.event,
        matched.map((s) => s.sub.id),
      );
    }
    for (const state of states) pump(state);
  }

  // What earlier runs journaled and a subscriber had not handled yet (a new subscriber starts at the end).
  const start = journal.lastSeq();
  const offsets = new Map(states.map((s) => [s.sub.id, journal.offset(s.sub.id) ?? start]));
  known = 0;
  for (const entry of journal.entries()) {
    for (const state of states) {
      if (entry.seq > (offsets.get(state.sub.id) ?? start) && matches(state.sub, entry))
        state.pending.push(entry);
    }
  }
  known = start;
  journal.commit(new Map(states.map((s) => [s.sub.id, offsetOf(s)])));
  const registered = flushOffsets();
  for (const state of states) pump(state);

  const build = (input: BusEvent): EventBridgeEvent => ({
    version: '0',
    id: newId(),
    'detail-type': input.detailType,
    source: input.source || (options.source ?? input.source),
    account,
    time: formatTime(input.time ?? clock.now()),
    region,
    resources: [...(input.resources ?? [])],
    detail: toJsonValue(input.detail),
  });

  const append = async (events: EventBridgeEvent[], target?: string): Promise<JournalEntry[]> => {
    if (closed) throw new PublishError('the local bus is closed', events.length);
    try {
      return await journal.append(events, target);
    } catch (error) {
      throw new PublishError('the bus journal did not take the events', events.length, { cause: error });
    }
  };

  return {
    async publish(events: readonly BusEvent[]): Promise<void> {
      const built = events.map(build);
      const entries = await append(built);
      published += entries.length;
      recorded.push(...built);
      if (recorded.length > maxRecorded) recorded.splice(0, recorded.length - maxRecorded);
      dispatch(entries, true);
    },
    async redeliver(subscriberId, events) {
      if (!states.some((s) => s.sub.id === subscriberId))
        throw new Error(`local bus: no subscriber '${subscriberId}'`);
      dispatch(await append([...events], subscriberId), false);
    },
    events: () => [...recorded],
    publishedCount: () => published,
    deadLetters: () => [...dead],
    deadLetterSink(routeId: string): DeadLetterSink {
      if (!options.routes.some((route) => route.id === routeId)) {
        throw new Error(`local bus: no route '${routeId}'`);
      }
      return {
        async send(body, attributes) {
          let eventId: unknown;
          try {
            eventId = (JSON.parse(body) as { id?: unknown } | null)?.id;
          } catch {
            eventId = undefined;
          }
          if (typeof eventId !== 'string') {
            throw new Error('local bus: a dead letter must be an event of this bus (JSON with its id)');
          }
          sentToSink.set(sinkKey(routeId, eventId), attributes.reason);
        },
      };
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onDelivery(listener) {
      deliveryListeners.add(listener);
      return () => deliveryListeners.delete(listener);
    },
    async drain(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    async close(): Promise<void> {
      if (stopping.signal.aborted) return closing;
      stopping.abort();
      closing = (async () => {
        // Queued deliveries still run (and the events they publish are journaled); a failing one is
        // not retried now, it stays in the journal for the next start.
        while (running.size > 0) await Promise.allSettled([...running]);
        closed = true;
        if (flushTimer) clearTimeout(flushTimer);
        flushTimer = undefined;
        const queued = states.reduce((sum, s) => sum + s.pending.length + s.open.size, 0);
        if (queued > 0) logger.info('local bus closed; undelivered events stay journaled', { queued });
        await registered;
        await flushOffsets();
        await journal.close();
      })();
      return closing;
    },
  };
}
