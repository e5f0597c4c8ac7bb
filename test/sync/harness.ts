/** Wiring for tests of the change detector: fake service, recording publisher, fault injection. */

import type { CollectionName } from '#functions/accounting/collections.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { PublishError } from '#functions/core/errors.js';
import type { BusEvent, CheckpointStore, EventPublisher } from '#functions/core/ports.js';
import { pollCollection } from '#functions/core/sync/poll-collection.js';
import { type PollOptionsInput, pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import type { SyncDeps } from '#functions/core/sync/sync-types.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { FakeService, type FakeServiceOptions } from './fake-service.js';

export interface PublishedDetail {
  id: string;
  change: string;
  modifiedDate: string | null;
  idempotencyKey: string;
  record?: Record<string, unknown>;
  recordRef?: { key: string; sha256: string; size: number };
}

export class RecordingPublisher implements EventPublisher {
  readonly events: BusEvent[] = [];
  /** Fail the next `publish` calls (count), as a bus that stays down after the adapter's retries. */
  failNext = 0;
  calls = 0;
  async publish(events: readonly BusEvent[]): Promise<void> {
    this.calls++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new PublishError('bus unavailable', events.length);
    }
    this.events.push(...events);
  }
  details(): PublishedDetail[] {
    return this.events.map((e) => e.detail as PublishedDetail);
  }
  /** How often each (id, ModifiedDate) version was published. */
  versions(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const d of this.details()) {
      const k = `${d.id}@${d.modifiedDate}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  }
}

/** A checkpoint store that can crash on a chosen write (after the page's events were published). */
export function crashingCheckpoints(inner: CheckpointStore<unknown>) {
  const control = { crashOnPut: -1, puts: 0 };
  const store: CheckpointStore<unknown> = {
    get: (key) => inner.get(key),
    async put(key, value, version) {
      const n = control.puts++;
      if (n === control.crashOnPut) throw new Error('process died before the checkpoint was saved');
      return inner.put(key, value, version);
    },
  };
  return { store, control };
}

export function setup(
  opts: { service?: FakeServiceOptions; poll?: Partial<PollOptionsInput>; clockStart?: string } = {},
) {
  const service = new FakeService(opts.service);
  const clock = createManualClock({ start: opts.clockStart ?? '2026-05-01T08:00:00Z' });
  const publisher = new RecordingPublisher();
  const memory = createMemoryCheckpointStore<unknown>();
  const { store: checkpoints, control } = crashingCheckpoints(memory);
  const objectStore = createMemoryObjectStore();
  const options = pollOptionsSchema.parse({ connection: 'acme', reconcileIntervalMs: 0, ...opts.poll });
  const deps: SyncDeps = {
    api: service.api(),
    checkpoints,
    publisher,
    clock,
    logger: silentLogger,
    objectStore,
  };
  const poll = (collection: CollectionName = 'ReceivedOrders', extra: Partial<SyncDeps> = {}) =>
    pollCollection({ ...deps, ...extra }, options, collection);
  /** Advances both clocks: the service's and ours (they tick together; skew is an offset). */
  const tick = (ms: number) => {
    service.advance(ms);
    clock.advance(ms);
  };
  /** Every latest version of the service that was never published. */
  const missing = () => {
    const versions = publisher.versions();
    return service.latest().filter((v) => !versions.has(`${v.id}@${v.modifiedDate}`));
  };
  return {
    service,
    clock,
    publisher,
    checkpoints: memory,
    crash: control,
    objectStore,
    options,
    deps,
    poll,
    tick,
    missing,
  };
}
