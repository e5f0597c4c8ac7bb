/**
 * Reference lists (no `ModificationInfo`, opt-in): a full scan at most every `referenceIntervalMs`,
 * diffed by content hash against the snapshot stored in the object store. New ids → Created,
 * changed content → Updated, vanished ids → Deleted (only when the scan saw as many ids as the
 * service counted, so a page shift during the scan cannot fake a deletion).
 */
import { createHash } from 'node:crypto';
import type { BusEvent } from '../ports.js';
import { buildRecordEvent } from './build-event.js';
import { deletedEvent, listEveryPage, publishCounted } from './full-scan.js';
import { readSnapshot, writeSnapshot } from './id-list.js';
import type { CollectionRun } from './sync-types.js';

export async function scanReference(run: CollectionRun): Promise<void> {
  const { deps, options, spec, result, state } = run;
  const store = deps.objectStore;
  if (!store) throw new Error(`reference list ${spec.name} needs an object store for its snapshot`);
  const now = deps.clock.now().getTime();
  if (state.scannedAtMs !== undefined && now - state.scannedAtMs < options.referenceIntervalMs) return;
  if (run.remaining() < options.minRemainingMs) return;

  const key = `${options.statePrefix}${options.connection}/${spec.name}/snapshot.json.gz`;
  const previous = await readSnapshot(store, key);
  const current = new Map<string, string>();
  let total = 0;
  for await (const page of listEveryPage(run)) {
    result.requests++;
    total = page.totalItemCount;
    const events: BusEvent[] = [];
    for (const item of page.items) {
      const hash = createHash('sha256').update(JSON.stringify(item)).digest('hex');
      current.set(item.Id, hash);
      const before = previous?.get(item.Id);
      if (before === hash) continue;
      const { event, claimChecked } = await buildRecordEvent(run.eventContext, {
        recordType: spec.recordType,
        id: item.Id,
        change: before === undefined ? 'Created' : 'Updated',
        modifiedDate: null,
        version: `content:${hash}`,
        record: item,
      });
      if (claimChecked) result.claimChecked++;
      events.push(event);
    }
    await publishCounted(run, events);
    if (!page.last && run.remaining() < options.minRemainingMs) {
      result.more = true;
      return;
    }
  }
  if (previous && current.size >= total) {
    const gone: BusEvent[] = [];
    for (const id of previous.keys()) {
      if (!current.has(id)) gone.push(await deletedEvent(run, id));
    }
    await publishCounted(run, gone);
  } else if (previous && current.size < total) {
    deps.logger.warn('reference scan inconsistent', { collection: spec.name, seen: current.size, total });
  }
  await writeSnapshot(store, key, current);
  state.scannedAtMs = now;
  await run.save();
}
