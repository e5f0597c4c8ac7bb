/**
 * An in-memory `IdempotencyGuard` with the same contract as the Powertools guard
 * (`adapters/aws/powertools-idempotency-guard.ts`): for tests and in-process use only, since its
 * records die with the process. The contract suite runs against both.
 */
import { ActionInProgressError } from '#functions/core/actions/errors.js';
import type { IdempotencyGuard, IdempotencyKeyParts } from '#functions/core/actions/ports.js';

interface GuardRecord {
  done: boolean;
  result?: unknown;
}

export function createMemoryIdempotencyGuard(): IdempotencyGuard {
  const records = new Map<string, GuardRecord>();
  const keyOf = (key: IdempotencyKeyParts) => `${key.action}#${key.connection}#${key.recordId}`;
  return {
    async run<T>(key: IdempotencyKeyParts, fn: () => Promise<T>): Promise<T> {
      const k = keyOf(key);
      const existing = records.get(k);
      if (existing?.done) return existing.result as T;
      if (existing) throw new ActionInProgressError(k);
      records.set(k, { done: false });
      try {
        const result = await fn();
        // Stored as JSON, as the persistent guard stores it, so both return equal values.
        records.set(k, {
          done: true,
          result: result === undefined ? undefined : JSON.parse(JSON.stringify(result)),
        });
        return result;
      } catch (error) {
        records.delete(k);
        throw error;
      }
    },
  };
}
