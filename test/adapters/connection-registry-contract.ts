/** One contract for every `ConnectionRegistry`: the JSON file and DynamoDB (dynalite) both run it. */
import { describe, expect, it } from 'vitest';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import {
  type ConnectionRegistry,
  ConnectionRegistryError,
  DuplicateConnectionError,
  UnknownConnectionError,
} from '#functions/core/connections/registry.js';

export interface RegistryUnderTest {
  registry: ConnectionRegistry;
  /** The stored state, byte for byte (the file's bytes; the table's items in key order). */
  snapshot(): Promise<string>;
  /** Stores `item` as it is, bypassing the adapter's validation (a hand edit, another writer). */
  storeRaw(item: Record<string, unknown>): Promise<void>;
}

export const entry = (name: string, extra: Record<string, unknown> = {}) =>
  parseConnectionEntry({
    name,
    variant: 'cz',
    credentialsSecret: `env:${name.toUpperCase().replace(/\W/g, '_')}_CREDENTIALS`,
    ...extra,
  });

async function refusedUnchanged(r: RegistryUnderTest, write: () => Promise<unknown>): Promise<unknown> {
  const before = await r.snapshot();
  const error = await write().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(await r.snapshot()).toBe(before);
  return error;
}

export function describeConnectionRegistryContract(
  name: string,
  factory: () => Promise<RegistryUnderTest>,
): void {
  describe(`ConnectionRegistry contract: ${name}`, () => {
    it('starts empty', async () => {
      const { registry } = await factory();
      expect(await registry.list()).toEqual([]);
      expect(await registry.get('acme')).toBeUndefined();
    });

    it('adds entries and lists them by name, defaults filled', async () => {
      const { registry } = await factory();
      await registry.add(entry('zeta', { collections: ['IssuedInvoices'], paused: true }));
      await registry.add(entry('acme', { rateLimit: { requestsPerSecond: 0.5, burst: 2 } }));
      expect((await registry.list()).map((e) => e.name)).toEqual(['acme', 'zeta']);
      expect(await registry.get('zeta')).toEqual(
        entry('zeta', { collections: ['IssuedInvoices'], paused: true }),
      );
      expect(await registry.get('acme')).toMatchObject({
        variant: 'cz',
        pollIntervalSeconds: 60,
        paused: false,
        actions: {},
        rateLimit: { requestsPerSecond: 0.5, burst: 2 },
      });
    });

    it('refuses a duplicate name and changes nothing', async () => {
      const r = await factory();
      await r.registry.add(entry('acme'));
      const error = await refusedUnchanged(r, () => r.registry.add(entry('acme', { paused: true })));
      expect(error).toBeInstanceOf(DuplicateConnectionError);
      expect((error as Error).message).toContain("'acme'");
    });

    it('refuses a malformed entry, naming it and the setting, and changes nothing', async () => {
      const r = await factory();
      await r.registry.add(entry('acme'));
      const bad = { ...entry('beta'), variant: 'de' } as never;
      const error = await refusedUnchanged(r, () => r.registry.add(bad));
      expect(error).toBeInstanceOf(ConnectionEntryError);
      expect((error as Error).message).toMatch(/connection 'beta'.*variant/);
    });

    it('pauses and resumes one entry only', async () => {
      const { registry } = await factory();
      await registry.add(entry('acme'));
      await registry.add(entry('beta'));
      expect(await registry.setPaused('acme', true)).toMatchObject({ name: 'acme', paused: true });
      expect(await registry.get('acme')).toMatchObject({ paused: true });
      expect(await registry.get('beta')).toEqual(entry('beta'));
      expect(await registry.setPaused('acme', false)).toEqual(entry('acme'));
      expect(await registry.list()).toEqual([entry('acme'), entry('beta')]);
    });

    it('removes one entry only', async () => {
      const { registry } = await factory();
      await registry.add(entry('acme'));
      await registry.add(entry('beta'));
      await registry.remove('acme');
      expect(await registry.list()).toEqual([entry('beta')]);
    });

    it('refuses to pause, resume or remove an unknown connection and changes nothing', async () => {
      const r = await factory();
      await r.registry.add(entry('acme'));
      for (const write of [
        () => r.registry.setPaused('nope', true),
        () => r.registry.setPaused('nope', false),
        () => r.registry.remove('nope'),
      ]) {
        const error = await refusedUnchanged(r, write);
        expect(error).toBeInstanceOf(UnknownConnectionError);
        expect((error as Error).message).toContain("'nope'");
      }
    });

    it('validates what it reads: a malformed stored entry is named with its setting', async () => {
      const r = await factory();
      await r.registry.add(entry('acme'));
      await r.storeRaw({ name: 'broken', credentialsSecret: 'env:X', variant: 'cz', pollIntervalSeconds: 5 });
      const error = await r.registry.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionRegistryError);
      expect((error as Error).message).toMatch(/connection 'broken'.*pollIntervalSeconds/);
      await expect(r.registry.get('broken')).rejects.toBeInstanceOf(ConnectionRegistryError);
      const refused = await refusedUnchanged(r, () => r.registry.setPaused('broken', true));
      expect(refused).toBeInstanceOf(ConnectionRegistryError);
    });

    it('keeps every one of concurrent adds, and exactly one of a name added twice at once', async () => {
      const { registry } = await factory();
      const names = Array.from({ length: 8 }, (_, i) => `c-${i}`);
      await Promise.all(names.map((n) => registry.add(entry(n))));
      expect((await registry.list()).map((e) => e.name)).toEqual(names);
      const results = await Promise.allSettled([registry.add(entry('twin')), registry.add(entry('twin'))]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(DuplicateConnectionError);
    });
  });
}
