/**
 * What the poller keeps per collection in the checkpoint store (key `<connection>#<collection>`).
 * Validated with zod when read: a malformed checkpoint is an error, never silently reset.
 */
import * as z from 'zod';

export const CHECKPOINT_SCHEMA_VERSION = 1 as const;

/** A window being read: where to resume when a run stopped before its last page. */
export const windowStateSchema = z.object({
  /** `ModifiedSince` of this window (ISO); absent for a backfill from the beginning. */
  since: z.string().optional(),
  /** Keyset cursor: the last `Id` of the last page whose events were accepted. */
  after: z.string().optional(),
  /** Page-number mode: the next page to read. */
  pageNumber: z.number().int().positive().optional(),
  /**
   * The highest ModifiedDate (epoch ms) this window may advance the watermark to: the maximum over
   * page 1 and over versions published before the window began — all of them were visible when
   * the window started, so no record edited while the pages are read can lie below it.
   */
  upperMs: z.number().int().optional(),
  /** The service's ModifiedDate string behind `upperMs`, kept verbatim. */
  upper: z.string().optional(),
  /**
   * The service's clock (epoch ms, its `Date` header) when it answered the window's first page.
   * Every version dated at or before it was committed before the window started, so any page may
   * raise `upperMs` up to it; a record edited while the pages are read is dated after it.
   */
  boundMs: z.number().int().optional(),
  /** Our clock, epoch ms, when the window's first page was requested (durations only). */
  startedAtMs: z.number().int(),
  /** Sequence number of the window, to tell versions published in it from older ones. */
  seq: z.number().int().nonnegative(),
  pages: z.number().int().nonnegative(),
});
export type WindowState = z.infer<typeof windowStateSchema>;

/** `[id, modifiedMs, windowSeq]`: the last version of `id` we published, and in which window. */
export const seenEntrySchema = z.tuple([z.string(), z.number().int(), z.number().int().nonnegative()]);
export type SeenEntry = z.infer<typeof seenEntrySchema>;

export const collectionCheckpointSchema = z.object({
  schema: z.literal(CHECKPOINT_SCHEMA_VERSION),
  /** The service's ModifiedDate of the last completed window's upper bound (verbatim). */
  watermark: z.string().optional(),
  watermarkMs: z.number().int().optional(),
  /** Our clock (epoch ms) when the watermark last moved: measures how long it has been settled. */
  watermarkChangedAtMs: z.number().int().optional(),
  /**
   * A whole window started at least one lookback after the watermark last moved: everything dated
   * at or before the watermark was visible to it and read, so the next window starts just after it.
   */
  settled: z.boolean().default(false),
  window: windowStateSchema.optional(),
  /** Last window sequence number used. */
  seq: z.number().int().nonnegative().default(0),
  /** Versions published inside the overlap, bounded by `dedupeCapacity`, newest kept. */
  seen: z.array(seenEntrySchema).default([]),
  /** Our clock (epoch ms) of the last completed deletion reconciliation / reference scan. */
  reconciledAtMs: z.number().int().optional(),
  scannedAtMs: z.number().int().optional(),
});
export type CollectionCheckpoint = z.infer<typeof collectionCheckpointSchema>;

export function emptyCheckpoint(): CollectionCheckpoint {
  return { schema: CHECKPOINT_SCHEMA_VERSION, settled: false, seq: 0, seen: [] };
}

export function checkpointKey(connection: string, collection: string): string {
  return `${connection}#${collection}`;
}
