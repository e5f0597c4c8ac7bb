/**
 * The incremental read of one collection: the pages changed since the window's start, one event
 * per new version, the checkpoint saved after each accepted page. Invariants: ARCHITECTURE.md 1,
 * 2, 6 (see `poll-collection.ts`).
 */
import * as z from 'zod';
import type { Page } from '#functions/accounting/api.js';
import { SyncDataError } from '../errors.js';
import type { BusEvent } from '../ports.js';
import { buildRecordEvent } from './build-event.js';
import { finishWindow, pruneSeen, raiseUpper, type Seen, startWindow } from './change-window.js';
import type { WindowState } from './checkpoint-state.js';
import type { CollectionRun } from './sync-types.js';

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO date-time');
// Checks the fields the poller relies on without copying the record (a loose schema would copy
// every field of every record): the event carries the listed record itself.
const changeFieldsSchema = z.object({
  Id: z.string().min(1, 'expected a non-empty Id'),
  // General reference lists of the real service carry ModifiedDate only.
  ModificationInfo: z.object({ CreatedDate: isoDate.nullish(), ModifiedDate: isoDate }),
});
type ChangeRecord = z.infer<typeof changeFieldsSchema> & Record<string, unknown>;

/** The events of one page, with whether each was claim-checked and the versions they publish. */
interface PageEvents {
  events: BusEvent[];
  claimed: boolean[];
  published: Array<[string, number]>;
}

/** The window's pages: from its since, after its cursor (keyset) or at its page number. */
function readPages(run: CollectionRun, window: WindowState): AsyncIterable<Page> {
  const { deps, options, spec } = run;
  return deps.api.listPages(spec.name, {
    ...(window.since !== undefined ? { modifiedSince: window.since } : {}),
    ...(spec.acceptsAfter
      ? window.after !== undefined
        ? { after: window.after }
        : {}
      : { pageNumber: window.pageNumber ?? 1 }),
    pageSize: options.pageSize,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
}

function parseChange(run: CollectionRun, item: unknown): ChangeRecord {
  const parsed = changeFieldsSchema.safeParse(item);
  if (parsed.success) return item as ChangeRecord;
  const issue = parsed.error.issues[0];
  throw new SyncDataError(
    `${run.spec.name}: a listed record is missing ${issue?.path.join('.') || 'fields'} (${issue?.message})`,
  );
}

/**
 * Created or Updated. Without a CreatedDate (general reference lists) a record first seen by an
 * incremental window cannot be told new from changed: it is reported as Updated.
 */
function changeOf(
  record: ChangeRecord,
  seenBefore: boolean,
  sinceMs: number | undefined,
): 'Created' | 'Updated' {
  if (seenBefore) return 'Updated';
  const created = record.ModificationInfo.CreatedDate;
  return sinceMs === undefined || (created != null && Date.parse(created) >= sinceMs) ? 'Created' : 'Updated';
}

/** The events of one page's new versions; versions already published inside the overlap are skipped. */
async function pageEvents(
  run: CollectionRun,
  window: WindowState,
  seen: Seen,
  page: Page,
): Promise<PageEvents> {
  const firstPage = window.pages === 0;
  const sinceMs = window.since === undefined ? undefined : Date.parse(window.since);
  const out: PageEvents = { events: [], claimed: [], published: [] };
  for (const item of page.items) {
    const record = parseChange(run, item);
    const modifiedDate = record.ModificationInfo.ModifiedDate;
    const ms = Date.parse(modifiedDate);
    if (window.boundMs !== undefined ? ms <= window.boundMs : firstPage) raiseUpper(window, ms, modifiedDate);
    const prev = seen.get(record.Id);
    if (prev && prev.ms === ms) {
      // Already published (inside the overlap). Versions published before this window began were
      // visible when it started, so they may raise its upper bound. A different date, even an
      // earlier one (the service's clock stepped back), is a new version and is published.
      run.result.duplicatesSkipped++;
      if (prev.seq < window.seq) raiseUpper(window, ms, modifiedDate);
      continue;
    }
    const built = await buildRecordEvent(run.eventContext, {
      recordType: run.spec.recordType,
      id: record.Id,
      change: changeOf(record, prev !== undefined, sinceMs),
      modifiedDate,
      version: modifiedDate,
      record,
      time: new Date(ms),
    });
    out.events.push(built.event);
    out.claimed.push(built.claimChecked);
    out.published.push([record.Id, ms]);
  }
  return out;
}

/** Publishes first; only an accepted page may move the checkpoint (a throw leaves it untouched). */
async function publishPage(
  run: CollectionRun,
  window: WindowState,
  seen: Seen,
  page: PageEvents,
): Promise<void> {
  if (page.events.length > 0) await run.deps.publisher.publish(page.events);
  page.events.forEach((event, i) => {
    run.count(event, page.claimed[i] ?? false);
  });
  for (const [id, ms] of page.published) seen.set(id, { ms, seq: window.seq });
}

/** Moves the window's cursor past an accepted page. */
function advance(run: CollectionRun, window: WindowState, page: Page): void {
  window.pages++;
  if (run.spec.acceptsAfter) {
    if (page.lastId !== undefined) window.after = page.lastId;
  } else {
    window.pageNumber = page.nextPageNumber ?? (window.pageNumber ?? 1) + 1;
  }
}

/** Saves the window after a page: open with its cursor, or finished with the watermark moved. */
async function saveWindow(
  run: CollectionRun,
  window: WindowState,
  seen: Seen,
  complete: boolean,
): Promise<void> {
  if (complete) finishWindow(run, window);
  run.state.window = complete ? undefined : window;
  run.state.seen = pruneSeen(run, seen, window, !complete);
  await run.save();
}

export async function pollChanges(run: CollectionRun): Promise<void> {
  const { deps, options, spec, state, result } = run;
  if (run.remaining() < options.minRemainingMs) {
    result.more = state.window !== undefined;
    return;
  }
  const window = state.window ?? startWindow(run);
  state.seq = Math.max(state.seq, window.seq);
  const seen: Seen = new Map(state.seen.map(([id, ms, seq]) => [id, { ms, seq }]));
  let complete = false;
  for await (const page of readPages(run, window)) {
    result.requests++;
    if (window.pages === 0 && page.serverTime !== undefined) {
      const serverMs = Date.parse(page.serverTime);
      if (!Number.isNaN(serverMs)) window.boundMs = serverMs;
    }
    await publishPage(run, window, seen, await pageEvents(run, window, seen, page));
    advance(run, window, page);
    complete = page.last;
    await saveWindow(run, window, seen, complete);
    if (complete) break;
    if (run.remaining() < options.minRemainingMs) {
      result.more = true;
      break;
    }
  }
  // The pages ended without one marked last (an empty result): the window is done.
  if (!complete && !result.more) await saveWindow(run, window, seen, true);
  deps.logger.debug('collection polled', {
    collection: spec.name,
    requests: result.requests,
    published: result.published,
    duplicatesSkipped: result.duplicatesSkipped,
    watermark: state.watermark,
    more: result.more,
  });
}
