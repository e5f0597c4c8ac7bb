/**
 * The state of one local bus that its deliveries share (`bus-delivery.ts`), and the subscribers'
 * offsets: everything before a subscriber's oldest queued or open seq is handled, and that is what
 * the journal keeps as its offset.
 */
import type { Clock, Logger } from '#functions/core/ports.js';
import type { BusJournal, JournalEntry } from './bus-journal.js';
import type { SubscriberPosition } from './bus-position.js';
import type { DeadLetterStore } from './dead-letter-store.js';
import type { BusSubscriber, DeadLetter, DeliveryOutcome, EventBridgeEvent } from './local-bus-types.js';

export interface SubscriberState {
  sub: BusSubscriber;
  pending: JournalEntry[];
  /** Seqs delivered but not yet handled (running, or left unhandled at close). */
  open: Set<number>;
  active: number;
  /** Records with a delivery running: their other events wait (no two at once for one record). */
  groups: Set<string>;
}

export interface BusState {
  readonly logger: Logger;
  readonly clock: Clock;
  /** Pause between receives of a failed delivery when the error gives no hint. */
  readonly retryDelayMs: number;
  /** How often the offsets are written at most. */
  readonly offsetFlushMs: number;
  readonly journal: BusJournal;
  readonly deadStore: DeadLetterStore;
  readonly states: readonly SubscriberState[];
  /** Dead letters of this run. */
  readonly dead: DeadLetter[];
  readonly running: Set<Promise<void>>;
  readonly eventListeners: Set<(event: EventBridgeEvent, routeIds: string[]) => void>;
  readonly deliveryListeners: Set<(outcome: DeliveryOutcome) => void>;
  /** Aborted by `close()`: no delivery starts any more, those waiting to retry give up (the journal keeps their events). */
  readonly stopping: AbortController;
  /** Reasons of events a running delivery sent to its route's sink, by `sinkKey`. */
  readonly sentToSink: Map<string, string>;
  closed: boolean;
  /** The newest seq handed to the subscribers' queues. */
  known: number;
  flushTimer: NodeJS.Timeout | undefined;
}

export const sinkKey = (routeId: string, eventId: string) => `${routeId}\n${eventId}`;

/** Calls every listener; one that throws is logged and the others still run. */
export function notify<A extends unknown[]>(
  bus: BusState,
  listeners: ReadonlySet<(...args: A) => void>,
  ...args: A
): void {
  for (const listener of listeners) {
    try {
      listener(...args);
    } catch (error) {
      bus.logger.warn('bus listener failed', { error: (error as Error).message });
    }
  }
}

export function offsetOf(bus: BusState, state: SubscriberState): number {
  let low = bus.known;
  if (state.pending.length > 0) low = Math.min(low, (state.pending[0] as JournalEntry).seq - 1);
  for (const seq of state.open) low = Math.min(low, seq - 1);
  return low;
}

/** The subscriber's position: its offset, and which later seqs it was handed and has not handled. */
export function positionOf(bus: BusState, state: SubscriberState): SubscriberPosition {
  const offset = offsetOf(bus, state);
  const unhandled = [...state.pending.map((e) => e.seq), ...state.open]
    .filter((seq) => seq > offset && seq <= bus.known)
    .sort((a, b) => a - b);
  return { offset, known: bus.known, unhandled: [...new Set(unhandled)] };
}

export function commitOffsets(bus: BusState): void {
  bus.journal.commit(new Map(bus.states.map((s) => [s.sub.id, positionOf(bus, s)])));
}

export async function flushOffsets(bus: BusState): Promise<void> {
  commitOffsets(bus);
  await bus.journal.flush().catch((error: unknown) => {
    bus.logger.warn('bus offsets not saved', {
      error: error instanceof Error ? error.message : String(error),
    });
  });
}

export function scheduleFlush(bus: BusState): void {
  if (bus.flushTimer || bus.closed) return;
  bus.flushTimer = setTimeout(() => {
    bus.flushTimer = undefined;
    void flushOffsets(bus);
  }, bus.offsetFlushMs);
  bus.flushTimer.unref?.();
}
