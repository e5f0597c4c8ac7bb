/** One contract for every `CheckpointStore`: the memory store and the DynamoDB adapter both run it. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CheckpointConflictError } from '#functions/core/errors.js';
import type { CheckpointStore } from '#functions/core/ports.js';

interface Checkpoint {
  watermark: string;
  seen: string[];
}

export function describeCheckpointStoreContract(
  name: string,
  factory: () => CheckpointStore<Checkpoint> | Promise<CheckpointStore<Checkpoint>>,
): void {
  describe(`CheckpointStore contract: ${name}`, () => {
    const key = () => `conn#IssuedInvoices#${randomUUID()}`;
    const value = (watermark: string): Checkpoint => ({ watermark, seen: ['a@1', 'b@2'] });

    it('returns undefined for a key never written', async () => {
      const store = await factory();
      expect(await store.get(key())).toBeUndefined();
    });

    it('creates at version 1 and returns the value as written', async () => {
      const store = await factory();
      const k = key();
      expect(await store.put(k, value('2024-01-01T00:00:00'), undefined)).toBe(1);
      expect(await store.get(k)).toEqual({ value: value('2024-01-01T00:00:00'), version: 1 });
    });

    it('advances the version on each conditional write', async () => {
      const store = await factory();
      const k = key();
      const v1 = await store.put(k, value('t1'), undefined);
      const v2 = await store.put(k, value('t2'), v1);
      const v3 = await store.put(k, value('t3'), v2);
      expect([v1, v2, v3]).toEqual([1, 2, 3]);
      expect(await store.get(k)).toEqual({ value: value('t3'), version: 3 });
    });

    it('refuses a create when the key exists', async () => {
      const store = await factory();
      const k = key();
      await store.put(k, value('t1'), undefined);
      const error = await store.put(k, value('other'), undefined).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointConflictError);
      expect((error as CheckpointConflictError).key).toBe(k);
      expect(await store.get(k)).toEqual({ value: value('t1'), version: 1 });
    });

    it('refuses a write with a stale or future version', async () => {
      const store = await factory();
      const k = key();
      await store.put(k, value('t1'), undefined);
      await store.put(k, value('t2'), 1);
      await expect(store.put(k, value('stale'), 1)).rejects.toBeInstanceOf(CheckpointConflictError);
      await expect(store.put(k, value('future'), 7)).rejects.toBeInstanceOf(CheckpointConflictError);
      expect(await store.get(k)).toEqual({ value: value('t2'), version: 2 });
    });

    it('refuses an update of a key that does not exist', async () => {
      const store = await factory();
      await expect(store.put(key(), value('t1'), 1)).rejects.toBeInstanceOf(CheckpointConflictError);
    });

    it('lets exactly one of two racing writers advance', async () => {
      const store = await factory();
      const k = key();
      await store.put(k, value('t0'), undefined);
      const results = await Promise.allSettled([store.put(k, value('A'), 1), store.put(k, value('B'), 1)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointConflictError);
      const stored = await store.get(k);
      expect(stored?.version).toBe(2);
      expect(['A', 'B']).toContain(stored?.value.watermark);
    });

    it('lets exactly one of many racing creators create', async () => {
      const store = await factory();
      const k = key();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.put(k, value(`w${i}`), undefined)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await store.get(k))?.version).toBe(1);
    });

    it('does not share the stored value with the caller', async () => {
      const store = await factory();
      const k = key();
      const written = value('t1');
      await store.put(k, written, undefined);
      written.seen.push('mutated');
      const read = await store.get(k);
      expect(read?.value.seen).toEqual(['a@1', 'b@2']);
    });
  });
}
