/**
 * What each poll of the local runtime left per connection and collection — watermark, lag, when
 * it polled last, its last error — kept in `<data-dir>/poll-status.json` (written atomically after
 * every poll). `checkpoints` reads it, also while `run` holds the data directory.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { PollChangesSummary } from '../handlers/poll-changes.js';

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

/** Keeps the status file of one data directory; writes are serialised. */
export function createPollStatusWriter(dataDir: string, connection: string) {
  let status: Promise<PollStatus> = readPollStatus(dataDir);
  let writing: Promise<void> = Promise.resolve();
  return {
    record(summary: PollChangesSummary, at: Date): Promise<void> {
      writing = writing.then(async () => {
        const all = await status;
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
        status = Promise.resolve(all);
        const path = join(dataDir, POLL_STATUS_FILE);
        await writeFile(`${path}.tmp`, `${JSON.stringify(all, null, 2)}\n`);
        await rename(`${path}.tmp`, path);
      });
      // A status that cannot be written is not worth stopping the poller for.
      writing = writing.catch(() => {});
      return writing;
    },
  };
}
