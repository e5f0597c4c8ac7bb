/** The Shoptet twin's state: the shop's orders and webhooks, the faults set, the counters. */
import type { TwinOrder } from './shoptet-orders.js';

export interface TwinFaults {
  /** The next N API requests answer 429 with `Retry-After: 1`. */
  rateLimitNext: number;
  /** The next N API requests answer 423. */
  lockNext: number;
  /** Notifications are not delivered (every try is lost). */
  dropNotifications: boolean;
  /** Slows every API answer by this many ms (so requests overlap). */
  latencyMs: number;
}

export interface TwinStats {
  requests: number;
  rateLimited: number;
  locked: number;
  maxInFlight: number;
  notificationsSent: number;
  notificationsLost: number;
}

export interface Webhook {
  id: number;
  event: string;
  url: string;
  created: string;
  updated: string | null;
  sendPayload: null;
}

export interface TwinState {
  eshopId: number;
  signatureKey: string;
  orders: Map<string, TwinOrder>;
  webhooks: Webhook[];
  faults: TwinFaults;
  stats: TwinStats;
  /** Webhook registrations by body, with the time they were made (a repeat within 5 s is locked). */
  recentWrites: Map<string, number>;
  nextCode: number;
  nextWebhookId: number;
  /** Set when the twin closes: notification tries still waiting end unsent. */
  closed: boolean;
}

export function createTwinState(eshopId: number, signatureKey: string): TwinState {
  return {
    eshopId,
    signatureKey,
    orders: new Map(),
    webhooks: [],
    faults: { rateLimitNext: 0, lockNext: 0, dropNotifications: false, latencyMs: 0 },
    stats: {
      requests: 0,
      rateLimited: 0,
      locked: 0,
      maxInFlight: 0,
      notificationsSent: 0,
      notificationsLost: 0,
    },
    recentWrites: new Map(),
    nextCode: 2026000001,
    nextWebhookId: 1,
    closed: false,
  };
}
