/**
 * Deletion reconciliation: the service has no deletion feed, so every `reconcileIntervalMs` the
 * poller lists every id of a collection (keyset pages, no `ModifiedSince`), compares them with the
 * id list stored at the previous reconciliation (object store, gzip) and publishes
 * `<RecordType>.Deleted` for ids that vanished. Memory is O(ids) — about 100 bytes per record.
 */
import type { BusEvent } from '../ports.js';
import { deletedEvent, listEveryPage, publishCounted } from './full-scan.js';
import { readIdList, writeIdList } from './id-list.js';
import type { CollectionRun } from './sync-types.js';

const PUBLISH_CHUNK = 100;

export function idListKey(run: CollectionRun): string {
  return `${run.options.statePrefix}${run.options.connection}/${run.spec.name}/ids.txt.gz`;
}

export async function reconcileDeletions(run: CollectionRun): Promise<void> {
  const { deps, options, spec, result, state } = run;
  const store = deps.objectStore;
  if (!store) return;
  const current: string[] = [];
  for await (const page of listEveryPage(run)) {
    result.requests++;
    for (const item of page.items) current.push(item.Id);
    if (!page.last && run.remaining() < options.minRemainingMs) {
      deps.logger.info('reconciliation postponed', {
        collection: spec.name,
        reason: 'time',
        ids: current.length,
      });
      return;
    }
  }
  const key = idListKey(run);
  const previous = await readIdList(store, key);
  let deleted = 0;
  if (previous) {
    const present = new Set(current);
    let batch: BusEvent[] = [];
    const flush = async () => {
      await publishCounted(run, batch);
      batch = [];
    };
    for (const id of previous) {
      if (present.has(id)) continue;
      batch.push(await deletedEvent(run, id));
      deleted++;
      if (batch.length >= PUBLISH_CHUNK) await flush();
    }
    await flush();
    if (deleted > 0) {
      const vanished = new Set(previous.filter((id) => !present.has(id)));
      state.seen = state.seen.filter(([id]) => !vanished.has(id));
    }
  }
  // The list is written only after the Deleted events were accepted: a crash re-detects them.
  await writeIdList(store, key, current);
  state.reconciledAtMs = deps.clock.now().getTime();
  await run.save();
  result.reconciled = true;
  deps.logger.info('deletions reconciled', { collection: spec.name, ids: current.length, deleted });
}
