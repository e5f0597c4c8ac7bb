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
 * meanwhile, has finished. `close()` starts no more deliveries: the ones in flight get
 * `stopGraceMs` to finish, everything still queued stays in the journal (the saved positions say
 * what is unhandled) and the next start delivers it.
 */
import { randomUUID } from 'node:crypto';
import type { DeadLetterSink } from '#functions/core/actions/dead-letter-sink.js';
import { PublishError } from '#functions/core/errors.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import type { Route } from '#functions/core/routes.js';
import { systemClock } from '#functions/shared/clock.js';
import { dispatch, pump, queueBacklog } from './bus-delivery.js';
import { type BusJournal, createMemoryJournal, type JournalEntry } from './bus-journal.js';
import { type BusState, flushOffsets, sinkKey } from './bus-state.js';
import { createMemoryDeadLetterStore, type DeadLetterStore } from './dead-letter-store.js';
import type { BusSubscriber, DeadLetter, DeliveryOutcome, EventBridgeEvent } from './local-bus-types.js';

export type { BusSubscriber, DeadLetter, DeliveryOutcome, EventBridgeEvent } from './local-bus-types.js';

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
  /** How long `close()` waits for the deliveries in flight; default 2 s. Queued ones never start. */
  stopGraceMs?: number;
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
  /**
   * Starts no more deliveries (those waiting to retry give up); publishing still journals. The
   * first step of `close()`, for a stop that has other work to wait for before it.
   */
  stopDeliveries(): void;
  /**
   * Starts no more deliveries, waits for the running ones (at most `stopGraceMs`), then refuses
   * further events and saves the positions: what is queued or still running stays journaled.
   */
  close(): Promise<void>;
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

/** A published event as EventBridge hands it to targets. */
function eventBuilder(options: LocalBusOptions, clock: Clock): (input: BusEvent) => EventBridgeEvent {
  const newId = options.newId ?? randomUUID;
  const account = options.account ?? '000000000000';
  const region = options.region ?? 'local';
  return (input) => ({
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
}

function busState(options: LocalBusOptions): BusState {
  const journal = options.journal ?? createMemoryJournal();
  const subscribers = [
    ...options.routes.map((route) => routeSubscriber(route, options.deliver)),
    ...(options.subscribers ?? []),
  ];
  return {
    logger: options.logger,
    clock: options.clock ?? systemClock,
    retryDelayMs: options.retryDelayMs ?? 0,
    offsetFlushMs: options.offsetFlushMs ?? 100,
    journal,
    deadStore: options.deadLetterStore ?? createMemoryDeadLetterStore(),
    states: subscribers.map((sub) => ({ sub, pending: [], open: new Set(), active: 0, groups: new Set() })),
    dead: [],
    running: new Set(),
    eventListeners: new Set(),
    deliveryListeners: new Set(),
    stopping: new AbortController(),
    sentToSink: new Map(),
    closed: false,
    known: journal.lastSeq(),
    flushTimer: undefined,
  };
}

async function append(bus: BusState, events: EventBridgeEvent[], target?: string): Promise<JournalEntry[]> {
  if (bus.closed) throw new PublishError('the local bus is closed', events.length);
  try {
    return await bus.journal.append(events, target);
  } catch (error) {
    throw new PublishError('the bus journal did not take the events', events.length, { cause: error });
  }
}

/** A route's dead-letter list as a sink: the running delivery of the event sent ends dead-lettered. */
function deadLetterSink(bus: BusState, options: LocalBusOptions, routeId: string): DeadLetterSink {
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
      bus.sentToSink.set(sinkKey(routeId, eventId), attributes.reason);
    },
  };
}

/** Resolves when the deliveries in flight have finished, or after `graceMs`, whichever is first. */
async function settleInFlight(bus: BusState, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
    timer.unref?.();
  });
  const settled = (async () => {
    while (bus.running.size > 0) await Promise.allSettled([...bus.running]);
  })();
  await Promise.race([settled, grace]);
  clearTimeout(timer);
}

/**
 * No delivery starts any more (`pump` checks `stopping`); those in flight finish within the grace
 * (what they publish is journaled), a failing one is not retried now. What is queued, or still
 * running after the grace, stays in the journal for the next start. Then the positions are saved.
 */
async function shutDown(bus: BusState, registered: Promise<void>, graceMs: number): Promise<void> {
  await settleInFlight(bus, graceMs);
  bus.closed = true;
  if (bus.flushTimer) clearTimeout(bus.flushTimer);
  bus.flushTimer = undefined;
  const queued = bus.states.reduce((sum, s) => sum + s.pending.length + s.open.size, 0);
  if (queued > 0)
    bus.logger.info('local bus closed; undelivered events stay journaled', {
      queued,
      running: bus.running.size,
    });
  await registered;
  await flushOffsets(bus);
  await bus.journal.close();
}

/** How long `close()` waits for the deliveries in flight by default. */
const DEFAULT_STOP_GRACE_MS = 2_000;

export function createLocalBus(options: LocalBusOptions): LocalBus {
  const bus = busState(options);
  const build = eventBuilder(options, bus.clock);
  const maxRecorded = options.maxRecordedEvents ?? 10_000;
  const recorded: EventBridgeEvent[] = [];
  let published = 0;
  let closing: Promise<void> | undefined;
  queueBacklog(bus);
  const registered = flushOffsets(bus);
  for (const state of bus.states) pump(bus, state);
  return {
    async publish(events: readonly BusEvent[]): Promise<void> {
      const built = events.map(build);
      const entries = await append(bus, built);
      published += entries.length;
      recorded.push(...built);
      if (recorded.length > maxRecorded) recorded.splice(0, recorded.length - maxRecorded);
      dispatch(bus, entries, true);
    },
    async redeliver(subscriberId, events) {
      if (!bus.states.some((s) => s.sub.id === subscriberId))
        throw new Error(`local bus: no subscriber '${subscriberId}'`);
      dispatch(bus, await append(bus, [...events], subscriberId), false);
    },
    events: () => [...recorded],
    publishedCount: () => published,
    deadLetters: () => [...bus.dead],
    deadLetterSink: (routeId) => deadLetterSink(bus, options, routeId),
    onEvent(listener) {
      bus.eventListeners.add(listener);
      return () => bus.eventListeners.delete(listener);
    },
    onDelivery(listener) {
      bus.deliveryListeners.add(listener);
      return () => bus.deliveryListeners.delete(listener);
    },
    async drain(): Promise<void> {
      while (bus.running.size > 0) await Promise.allSettled([...bus.running]);
    },
    stopDeliveries(): void {
      bus.stopping.abort();
    },
    close(): Promise<void> {
      bus.stopping.abort();
      closing ??= shutDown(bus, registered, options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
      return closing;
    },
  };
}
