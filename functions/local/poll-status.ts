/**
 * What each poll of the local runtime left per connection and collection — watermark, lag, when
 * it polled last, its last error — kept in `<data-dir>/poll-status.json` (written atomically after
 * every poll). `checkpoints` reads it, also while `run` holds the data directory.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { PollSummary } from './poll-summary.js';

export const POLL_STATUS_FILE = 'poll-status.json';

const collectionStatusSchema = z.object({
  watermark: z.string().optional(),
  lagMs: z.number().optional(),
  lastPollAt: z.string(),
  status: z.string(),
  lastError: z.string().optional(),
  lastErrorAt: z.string().optional(),
});
export type CollectionStatus = z.infer<typeof collectionStatusSchema>;

/** connection → collection → status. */
const pollStatusSchema = z.record(z.string(), z.record(z.string(), collectionStatusSchema));
export type PollStatus = z.infer<typeof pollStatusSchema>;

export async function readPollStatus(dataDir: string): Promise<PollStatus> {
  try {
    const parsed = pollStatusSchema.safeParse(
      JSON.parse(await readFile(join(dataDir, POLL_STATUS_FILE), 'utf8')),
    );
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export interface PollStatusWriter {
  /** Records what a poll of `connection` left (its other connections' entries stay as they are). */
  record(connection: string, summary: PollSummary, at: Date): Promise<void>;
}

function applySummary(all: PollStatus, connection: string, summary: PollSummary, at: Date): void {
  const mine = all[connection] ?? {};
  all[connection] = mine;
  for (const c of summary.collections) {
    const previous = mine[c.collection];
    const failed = c.status !== 'ok' && c.error !== undefined;
    mine[c.collection] = {
      ...(c.watermark !== undefined
        ? { watermark: c.watermark }
        : previous?.watermark
          ? { watermark: previous.watermark }
          : {}),
      ...(c.lagMs !== undefined ? { lagMs: c.lagMs } : {}),
      lastPollAt: at.toISOString(),
      status: c.status,
      ...(failed
        ? { lastError: `${c.error?.name}: ${c.error?.message}`, lastErrorAt: at.toISOString() }
        : previous?.lastError
          ? {
              lastError: previous.lastError,
              ...(previous.lastErrorAt ? { lastErrorAt: previous.lastErrorAt } : {}),
            }
          : {}),
    };
  }
}

/**
 * Keeps the status file of one data directory, for every connection. Writes are serialised and
 * coalesced: polls recorded while a write waits are in that write (many connections, one file).
 */
export function createPollStatusWriter(dataDir: string): PollStatusWriter {
  const status: Promise<PollStatus> = readPollStatus(dataDir);
  let writing: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const write = async () => {
    queued = undefined;
    const path = join(dataDir, POLL_STATUS_FILE);
    await writeFile(`${path}.tmp`, `${JSON.stringify(await status, null, 2)}\n`);
    await rename(`${path}.tmp`, path);
  };
  return {
    async record(connection, summary, at) {
      applySummary(await status, connection, summary, at);
      // A status that cannot be written is not worth stopping the poller for.
      queued ??= writing = writing.then(write).catch(() => {});
      const pending = queued;
      await pending;
    },
  };
}
