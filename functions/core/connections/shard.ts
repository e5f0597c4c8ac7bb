/**
 * Shards: how the connections of a deployment are split among poller invocations. Shard `i` of `n`
 * is the registry's scan segment `i` of `n` (DynamoDB splits a table into segments by the hash of
 * each item's key, so a connection stays in its segment while `n` is unchanged); a single-company
 * deployment is shard 0 of 1, its registry of one. Every minute (a slot) each shard's invocation
 * polls its due, unpaused connections. "Due" comes from the slot alone — no state is written per
 * connection: a connection with interval I seconds is due in the slots where a multiple of I falls,
 * shifted by a phase taken from its name, so connections with the same interval spread over its
 * slots. A shard is never polled twice at once: its invocation first takes the shard's lease.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { ConnectionEntry } from './connection-entry.js';

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

/** The connections of a slot: every due, unpaused one, in registry order. */
export function dueConnections(entries: readonly ConnectionEntry[], slot: number): ConnectionEntry[] {
  return entries.filter((e) => !e.paused && isDue(e, slot));
}

export interface Shard {
  /** 0 … count − 1. */
  readonly index: number;
  readonly count: number;
}

/** The most shards a deployment splits its connections into (DynamoDB's limit on scan segments is 1,000,000). */
export const MAX_SHARDS = 1000;

const shardNumber = (what: string) =>
  z.number({ error: `expected ${what}` }).int({ error: `expected ${what}` });

/** A shard as the schedule names it; one of one when absent. */
export const shardSchema = z
  .object({
    index: shardNumber('a shard index ≥ 0').nonnegative({ error: 'expected a shard index ≥ 0' }),
    count: shardNumber(`a shard count, 1 … ${MAX_SHARDS}`)
      .min(1, { error: `expected a shard count, 1 … ${MAX_SHARDS}` })
      .max(MAX_SHARDS, { error: `expected a shard count, 1 … ${MAX_SHARDS}` }),
  })
  .refine((s) => s.index < s.count, {
    error: 'expected a shard index below the shard count',
    path: ['index'],
  });

export const ONE_SHARD: Shard = { index: 0, count: 1 };

/** The lease item's key: beside the checkpoints, where no connection's key can be (`@…`). */
export function shardLeaseKey(shard: Shard): string {
  return `@shard#${shard.index}/${shard.count}`;
}

/** A lease taken: its token (to give it back) and who held the shard before. */
export interface HeldLease {
  token: string;
  /** The holder of the shard's previous lease (`undefined`: none yet). */
  previousHolder?: string;
}

/**
 * The lease of a shard: held by one invocation from its start until it releases it (or, should it
 * die first, until `untilMs`, its own end), so an invocation that starts while another still polls
 * the shard — a late or retried tick — polls nothing. Two conditional writes per shard and cycle,
 * whatever the number of its connections. The holder is named (a container's id): whoever takes the
 * lease learns who held it before, and so whether another container polled the shard meanwhile.
 */
export interface ShardLease {
  /** Takes the lease for `holder` until `untilMs` unless another lease lasts past `nowMs`. */
  acquire(shard: Shard, nowMs: number, untilMs: number, holder: string): Promise<HeldLease | undefined>;
  /** Gives the lease back (only the holder of `token` can). */
  release(shard: Shard, token: string): Promise<void>;
}

/** A lease in memory (one process: the local runtime, tests). */
export function createMemoryShardLease(): ShardLease {
  const held = new Map<string, { until: number; token: string; holder: string }>();
  let next = 0;
  return {
    async acquire(shard, nowMs, untilMs, holder) {
      const key = shardLeaseKey(shard);
      const previous = held.get(key);
      if ((previous?.until ?? Number.NEGATIVE_INFINITY) > nowMs) return undefined;
      const token = String(++next);
      held.set(key, { until: untilMs, token, holder });
      return { token, ...(previous ? { previousHolder: previous.holder } : {}) };
    },
    async release(shard, token) {
      const key = shardLeaseKey(shard);
      const lease = held.get(key);
      if (lease?.token === token) held.set(key, { ...lease, until: 0 });
    },
  };
}
