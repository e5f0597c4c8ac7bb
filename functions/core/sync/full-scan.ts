/**
 * What the full scans (deletion reconciliation, reference lists) share: every page of the
 * collection without `ModifiedSince`, the `Deleted` event of a vanished id, and publishing a
 * batch of events that are counted as published.
 */
import type { BusEvent } from '../ports.js';
import { buildRecordEvent } from './build-event.js';
import type { CollectionRun } from './sync-types.js';

/** Every page of the run's collection, in keyset order where the collection accepts `after`. */
export function listEveryPage(run: CollectionRun) {
  const { deps, options, spec } = run;
  return deps.api.listPages(spec.name, {
    pageSize: options.pageSize,
    ...(spec.acceptsAfter ? {} : { pageNumber: 1 }),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
}

/** The `<RecordType>.Deleted` event of an id that is no longer listed. */
export async function deletedEvent(run: CollectionRun, id: string): Promise<BusEvent> {
  const { event } = await buildRecordEvent(run.eventContext, {
    recordType: run.spec.recordType,
    id,
    change: 'Deleted',
    modifiedDate: null,
    version: 'deleted',
    record: { Id: id },
  });
  return event;
}

/** Publishes the events (none: nothing) and counts them as published. */
export async function publishCounted(run: CollectionRun, events: readonly BusEvent[]): Promise<void> {
  if (events.length === 0) return;
  await run.deps.publisher.publish(events);
  for (const e of events) run.count(e, false);
}
