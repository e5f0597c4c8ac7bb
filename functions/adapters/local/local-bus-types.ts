/** The shapes the local bus, its journal and its dead-letter store share. */
import type { EventPatternSpec } from '#functions/core/event-pattern.js';

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
  /** The subscriber that gave up on it: a route's id, or another subscriber's (e.g. `events-out`). */
  routeId: string;
  event: EventBridgeEvent;
  /** Receives made before giving up (the route's `maxReceiveCount`). */
  attempts: number;
  /** Message of the last error (the handler's own error, for inspection). */
  error: string;
  at: Date;
}

/** What became of one event's delivery to one subscriber (`detailType`: the event's). */
export type DeliveryOutcome = { routeId: string; eventId: string; detailType: string; attempt: number } & (
  | { status: 'delivered' }
  | { status: 'retrying' | 'dead-lettered'; error: string }
);

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
