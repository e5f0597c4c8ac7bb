/**
 * The fan-out of many connections: once a minute (a time slot) the dispatcher reads the registry
 * and asks for one poll of every due, unpaused connection. "Due" is derived from the slot alone —
 * no state is written per connection: a connection with interval I seconds is due in the slots
 * where a multiple of I falls, shifted by a phase taken from its name, so connections with the same
 * interval spread over its slots instead of all landing on one minute. A retried tick (the same
 * scheduled time) asks for the same polls again, and the queue drops them as duplicates.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { connectionSchema } from '../connection.js';
import type { Logger } from '../ports.js';
import type { ConnectionEntry } from './connection-entry.js';
import type { RegistryScanner } from './registry.js';

/** One slot per minute: Scheduler's finest rate and the shortest poll interval. */
export const SLOT_MS = 60_000;

export function slotOf(timeMs: number): number {
  return Math.floor(timeMs / SLOT_MS);
}

/** A stable phase in [0, intervalSeconds) from the connection's name. */
export function phaseSeconds(name: string, intervalSeconds: number): number {
  const digest = createHash('sha256').update(name).digest();
  return digest.readUInt32BE(0) % intervalSeconds;
}

/** Whether a poll of the connection starts in `slot`: a multiple of its interval (shifted by its phase) falls in it. */
export function isDue(entry: Pick<ConnectionEntry, 'name' | 'pollIntervalSeconds'>, slot: number): boolean {
  const interval = entry.pollIntervalSeconds;
  const end = slot * (SLOT_MS / 1000) + phaseSeconds(entry.name, interval);
  return Math.floor(end / interval) !== Math.floor((end - SLOT_MS / 1000) / interval);
}

/** The message asking for one poll of one connection (the body of a poll queue message). */
export const pollRequestSchema = z.strictObject({
  version: z.literal(1),
  connection: connectionSchema,
  slot: z.number().int().nonnegative(),
  /** The tick's scheduled time (ISO): the slot is derived from it, never from when the dispatcher ran. */
  scheduledAt: z.iso.datetime({ offset: true }),
});
export type PollRequest = z.infer<typeof pollRequestSchema>;

/** Where poll requests go: a FIFO queue on AWS (one message group per connection). */
export interface PollQueue {
  /** Enqueues every request; returns those that were not accepted, each with a reason. */
  enqueue(requests: readonly PollRequest[]): Promise<Array<{ request: PollRequest; reason: string }>>;
}

export interface DispatchSummary {
  slot: number;
  registered: number;
  /** Stored items that are no valid entry: skipped (each logged with its key and fields). */
  malformed: number;
  paused: number;
  due: number;
  enqueued: number;
  failed: number;
}

/** Some poll requests could not be enqueued; a retry of the same tick enqueues only what is missing. */
export class DispatchIncompleteError extends Error {
  override readonly name = 'DispatchIncompleteError';
  constructor(
    readonly failed: readonly string[],
    readonly summary: DispatchSummary,
  ) {
    super(`${failed.length} poll request(s) not enqueued: ${failed.slice(0, 10).join(', ')}`);
  }
}

/** The requests of one slot: every due, unpaused connection, in registry order. */
export function planDispatch(
  entries: readonly ConnectionEntry[],
  scheduledAtMs: number,
): { requests: PollRequest[]; paused: number } {
  const slot = slotOf(scheduledAtMs);
  const scheduledAt = new Date(slot * SLOT_MS).toISOString();
  const active = entries.filter((e) => !e.paused);
  return {
    paused: entries.length - active.length,
    requests: active
      .filter((e) => isDue(e, slot))
      .map((e) => ({ version: 1 as const, connection: e.name, slot, scheduledAt })),
  };
}

/**
 * Reads the registry and enqueues one poll request per due connection of the tick's slot. A
 * malformed item is skipped — an error names its key and its bad fields — and the rest dispatched.
 */
export async function dispatchDue(
  deps: { registry: RegistryScanner; queue: PollQueue; logger: Logger },
  scheduledAtMs: number,
): Promise<DispatchSummary> {
  const { entries, malformed } = await deps.registry.scan();
  for (const item of malformed) {
    deps.logger.error('registry item skipped', {
      key: item.key,
      fields: item.problems.map((p) => p.split(': ')[0]),
      problems: item.problems,
    });
  }
  const { requests, paused } = planDispatch(entries, scheduledAtMs);
  const failed = requests.length > 0 ? await deps.queue.enqueue(requests) : [];
  const summary: DispatchSummary = {
    slot: slotOf(scheduledAtMs),
    registered: entries.length,
    malformed: malformed.length,
    paused,
    due: requests.length,
    enqueued: requests.length - failed.length,
    failed: failed.length,
  };
  deps.logger.info('polls dispatched', { ...summary });
  if (failed.length > 0) {
    deps.logger.error('poll requests not enqueued', {
      failures: failed.slice(0, 20).map((f) => ({ connection: f.request.connection, reason: f.reason })),
    });
    throw new DispatchIncompleteError(
      failed.map((f) => f.request.connection),
      summary,
    );
  }
  return summary;
}
