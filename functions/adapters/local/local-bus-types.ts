/** The shapes the local bus, its journal and its dead-letter store share. */

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

export type DeliveryOutcome =
  | { routeId: string; eventId: string; status: 'delivered'; attempt: number }
  | { routeId: string; eventId: string; status: 'retrying'; attempt: number; error: string }
  | { routeId: string; eventId: string; status: 'dead-lettered'; attempt: number; error: string };
