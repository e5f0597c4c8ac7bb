/** One contract for every `IdempotencyGuard`: the in-memory guard and the Powertools (dynalite) guard both run it. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ActionInProgressError } from '#functions/core/actions/errors.js';
import type { IdempotencyGuard, IdempotencyKeyParts } from '#functions/core/actions/ports.js';

export function describeIdempotencyGuardContract(
  name: string,
  factory: () => IdempotencyGuard | Promise<IdempotencyGuard>,
): void {
  describe(`IdempotencyGuard contract: ${name}`, () => {
    const key = (): IdempotencyKeyParts => ({
      action: 'transfer',
      connection: 'demo',
      recordId: randomUUID(),
    });

    it('runs the effect once and returns its stored result to a repeated key', async () => {
      const guard = await factory();
      const k = key();
      let runs = 0;
      const effect = async () => ({ targetId: `t-${++runs}` });
      expect(await guard.run(k, effect)).toEqual({ targetId: 't-1' });
      expect(await guard.run(k, effect)).toEqual({ targetId: 't-1' });
      expect(runs).toBe(1);
    });

    it('keeps keys apart by action, connection and record id', async () => {
      const guard = await factory();
      const k = key();
      let runs = 0;
      const effect = async () => ++runs;
      await guard.run(k, effect);
      await guard.run({ ...k, action: 'archive' }, effect);
      await guard.run({ ...k, connection: 'other' }, effect);
      await guard.run({ ...k, recordId: randomUUID() }, effect);
      expect(runs).toBe(4);
    });

    it('forgets a key whose effect threw, so a later delivery may try again', async () => {
      const guard = await factory();
      const k = key();
      await expect(guard.run(k, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await guard.run(k, async () => 'second')).toBe('second');
    });

    it('refuses a key whose effect is still in progress with ActionInProgressError', async () => {
      const guard = await factory();
      const k = key();
      let release: () => void = () => {};
      const first = guard.run(k, () => new Promise<string>((resolve) => (release = () => resolve('first'))), {
        remainingTimeMs: 60_000,
      });
      await new Promise((r) => setTimeout(r, 50));
      const error = await guard.run(k, async () => 'second').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ActionInProgressError);
      release();
      expect(await first).toBe('first');
      expect(await guard.run(k, async () => 'third')).toBe('first');
    });
  });
}
