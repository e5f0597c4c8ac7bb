/**
 * The in-process event bus of the local runtime. It implements `EventPublisher` like the
 * EventBridge adapter and routes with the same table (`infra/routes.ts`) and the same pattern
 * semantics (`core/event-pattern.ts`) as the rules on AWS. Each route behaves like its SQS
 * queue: deliveries start in publish order, at most `route.maxConcurrency` at a time, a failed
 * delivery is retried until `route.maxReceiveCount` receives, then kept in a dead-letter list.
 * A delivery that sends its event to the route's `deadLetterSink` (an invalid event, as the SQS
 * handler sends it to the route's DLQ) is dead-lettered at once, on that receive, without retries.
 *
 * `publish` resolves once the events are recorded and queued (as PutEvents does once the bus
 * accepted them); `drain()` waits until every delivery, including those of events published by
 * handlers meanwhile, has finished.
 */
import { randomUUID } from 'node:crypto';
import type { Route } from '../../../infra/routes.js';
import type { DeadLetterSink } from '../../core/actions/dead-letter-sink.js';
import { PublishError } from '../../core/errors.js';
import { matchesPattern } from '../../core/event-pattern.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../../core/ports.js';
import { systemClock } from '../../shared/clock.js';

/** An event as EventBridge delivers it to targets. */
export interface EventBridgeEvent<D = unknown> {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: D;
}

export interface DeadLetter {
  routeId: string;
  event: EventBridgeEvent;
  /** Receives made before giving up (the route's `maxReceiveCount`). */
  attempts: number;
  /** Message of the last error (the handler's own error, for inspection). */
  error: string;
  at: Date;
}

export type DeliveryOutcome =
  | { routeId: string; eventId: string; status: 'delivered'; attempt: number }
  | { routeId: string; eventId: string; status: 'retrying'; attempt: number; error: string }
  | { routeId: string; eventId: string; status: 'dead-lettered'; attempt: number; error: string };

export interface LocalBusOptions {
  routes: readonly Route[];
  deliver: (route: Route, event: EventBridgeEvent) => Promise<void>;
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
  /** Deliveries that failed `maxReceiveCount` times, or were sent to a route's `deadLetterSink`. */
  deadLetters(): DeadLetter[];
  /**
   * The dead-letter list of route `routeId` as a `DeadLetterSink`: a delivery running for the event
   * whose JSON is sent ends dead-lettered on this receive (with the given reason), not retried.
   */
  deadLetterSink(routeId: string): DeadLetterSink;
  /** Calls `listener` for each published event with the ids of the routes it matched; returns an unsubscribe. */
  onEvent(listener: (event: EventBridgeEvent, routeIds: string[]) => void): () => void;
  /** Calls `listener` after each delivery attempt; returns an unsubscribe. */
  onDelivery(listener: (outcome: DeliveryOutcome) => void): () => void;
  /** Resolves when no delivery is queued or running. */
  drain(): Promise<void>;
  /** Refuses further events, starts no more deliveries and waits for running ones. Queued ones are dropped. */
  close(): Promise<void>;
}

interface RouteQueue {
  route: Route;
  pending: EventBridgeEvent[];
  active: number;
}

function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function toJsonValue(detail: unknown): unknown {
  const text = JSON.stringify(detail);
  return text === undefined ? {} : JSON.parse(text);
}

export function createLocalBus(options: LocalBusOptions): LocalBus {
  const { deliver, logger } = options;
  const clock = options.clock ?? systemClock;
  const retryDelayMs = options.retryDelayMs ?? 0;
  const maxRecorded = options.maxRecordedEvents ?? 10_000;
  const newId = options.newId ?? randomUUID;
  const account = options.account ?? '000000000000';
  const region = options.region ?? 'local';

  const queues = options.routes.map((route): RouteQueue => ({ route, pending: [], active: 0 }));
  const recorded: EventBridgeEvent[] = [];
  const dead: DeadLetter[] = [];
  const running = new Set<Promise<void>>();
  const eventListeners = new Set<(event: EventBridgeEvent, routeIds: string[]) => void>();
  const deliveryListeners = new Set<(outcome: DeliveryOutcome) => void>();
  let published = 0;
  let closed = false;
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

  function deadLetter(route: Route, event: EventBridgeEvent, attempt: number, message: string): void {
    dead.push({ routeId: route.id, event, attempts: attempt, error: message, at: clock.now() });
    logger.error('delivery dead-lettered', {
      routeId: route.id,
      eventId: event.id,
      detailType: event['detail-type'],
      attempts: attempt,
      error: message,
    });
    notify(deliveryListeners, {
      routeId: route.id,
      eventId: event.id,
      status: 'dead-lettered',
      attempt,
      error: message,
    });
  }

  async function run(queue: RouteQueue, event: EventBridgeEvent): Promise<void> {
    const { route } = queue;
    const maxReceives = Math.max(1, route.maxReceiveCount);
    const key = sinkKey(route.id, event.id);
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Delivered asynchronously, never inside `publish`.
        await Promise.resolve();
        await deliver(route, event);
        const sentReason = sentToSink.get(key);
        if (sentReason !== undefined) {
          sentToSink.delete(key);
          deadLetter(route, event, attempt, sentReason);
          return;
        }
        notify(deliveryListeners, { routeId: route.id, eventId: event.id, status: 'delivered', attempt });
        return;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A delivery that failed after sending to the sink is dead-lettered once, now.
        const sentReason = sentToSink.get(key);
        sentToSink.delete(key);
        if (sentReason !== undefined || attempt >= maxReceives || closed) {
          deadLetter(route, event, attempt, sentReason ?? message);
          return;
        }
        logger.warn('delivery failed, retrying', {
          routeId: route.id,
          eventId: event.id,
          attempt,
          error: message,
        });
        notify(deliveryListeners, {
          routeId: route.id,
          eventId: event.id,
          status: 'retrying',
          attempt,
          error: message,
        });
        if (retryDelayMs > 0) await clock.sleep(retryDelayMs);
      }
    }
  }

  function pump(queue: RouteQueue): void {
    const limit = Math.max(1, queue.route.maxConcurrency);
    while (!closed && queue.active < limit && queue.pending.length > 0) {
      const event = queue.pending.shift() as EventBridgeEvent;
      queue.active += 1;
      const task: Promise<void> = run(queue, event).finally(() => {
        queue.active -= 1;
        running.delete(task);
        pump(queue);
      });
      running.add(task);
    }
  }

  return {
    async publish(events: readonly BusEvent[]): Promise<void> {
      if (closed) throw new PublishError('the local bus is closed', events.length);
      for (const input of events) {
        const event: EventBridgeEvent = {
          version: '0',
          id: newId(),
          'detail-type': input.detailType,
          source: input.source || (options.source ?? input.source),
          account,
          time: formatTime(input.time ?? clock.now()),
          region,
          resources: [...(input.resources ?? [])],
          detail: toJsonValue(input.detail),
        };
        published += 1;
        recorded.push(event);
        if (recorded.length > maxRecorded) recorded.splice(0, recorded.length - maxRecorded);
        const matched = queues.filter((queue) => matchesPattern(queue.route.pattern, event));
        for (const queue of matched) queue.pending.push(event);
        logger.debug('event published', {
          eventId: event.id,
          detailType: event['detail-type'],
          routes: matched.map((q) => q.route.id),
        });
        notify(
          eventListeners,
          event,
          matched.map((q) => q.route.id),
        );
      }
      for (const queue of queues) pump(queue);
    },
    events: () => [...recorded],
    publishedCount: () => published,
    deadLetters: () => [...dead],
    deadLetterSink(routeId: string): DeadLetterSink {
      if (!queues.some((queue) => queue.route.id === routeId)) {
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
      closed = true;
      const dropped = queues.reduce((sum, queue) => sum + queue.pending.length, 0);
      for (const queue of queues) queue.pending.length = 0;
      if (dropped > 0) logger.warn('local bus closed with undelivered events', { dropped });
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
