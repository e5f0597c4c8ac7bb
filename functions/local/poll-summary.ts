/**
 * What one poll of one connection of the local runtime did, per collection: what the status file,
 * the live view, `sync --once` and the backfill progress read. Built from the core's
 * `pollConnection` result, with the requests counted by the connection's client when it has one.
 */
import type { ConnectionPollResult } from '../core/connections/poll-connection.js';
import { freshnessLagMs } from '../core/sync/sync-types.js';

export interface PollSummary {
  published: number;
  requests: number;
  rateLimited: number;
  failed: number;
  conflicts: number;
  unavailable: number;
  more: boolean;
  collections: Array<{
    collection: string;
    status: string;
    published: number;
    requests: number;
    more: boolean;
    watermark?: string;
    lagMs?: number;
    error?: { name: string; message: string; status?: number };
  }>;
}

/** Request counts of a client (all requests, 429s included). */
export interface RequestCounts {
  requests: number;
  rateLimited: number;
}

/** A poll that read nothing: `failed` collections could not be polled (no client). */
export function emptyPollSummary(failed: number): PollSummary {
  return {
    published: 0,
    requests: 0,
    rateLimited: 0,
    failed,
    conflicts: 0,
    unavailable: 0,
    more: false,
    collections: [],
  };
}

/**
 * The summary of a connection's poll at `nowMs`; `counted` (the client's counters before and
 * after) replaces the change detector's own request count when the client was open throughout.
 */
export function summarizePoll(
  result: ConnectionPollResult,
  collections: number,
  nowMs: number,
  counted?: { before: RequestCounts; after: RequestCounts },
): PollSummary {
  const summary = result.summary;
  if (!summary) return emptyPollSummary(collections);
  return {
    published: summary.published,
    requests: counted ? counted.after.requests - counted.before.requests : summary.requests,
    rateLimited: counted ? counted.after.rateLimited - counted.before.rateLimited : 0,
    failed: summary.failed,
    conflicts: summary.conflicts,
    unavailable: summary.unavailable,
    more: summary.more,
    collections: summary.collections.map((c) => {
      const lagMs = freshnessLagMs(c, nowMs);
      return {
        collection: c.collection,
        status: c.status,
        published: c.published,
        requests: c.requests,
        more: c.more,
        ...(c.watermark !== undefined ? { watermark: c.watermark } : {}),
        ...(lagMs !== undefined ? { lagMs } : {}),
        ...(c.error ? { error: c.error } : {}),
      };
    }),
  };
}
