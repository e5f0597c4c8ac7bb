/**
 * Connections' credentials in SSM Parameter Store: one SecureString standard parameter per
 * connection holding the credentials JSON (standard parameters cost nothing to store, and their
 * standard-throughput API calls nothing either). The parameters asked for in one turn of the event
 * loop — a shard's connections opening their clients side by side — are fetched together,
 * `GetParameters` with decryption, ten names per call (its limit); each value is then cached for
 * `ttlMs`. A name the store does not have is reported as missing, never mixed up with another's.
 */
import { GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { Clock } from '#functions/core/ports.js';

/** `GetParameters` takes at most ten names. */
export const PARAMETERS_PER_CALL = 10;

/** The parameter does not exist (or this function may not read it: SSM answers alike). */
export class ParameterNotFoundError extends Error {
  override readonly name = 'ParameterNotFoundError';
  constructor(readonly parameter: string) {
    super(`parameter '${parameter}' does not exist in Parameter Store`);
  }
}

export interface SsmParameterStore {
  /** The parameter's value (cached `ttlMs`; `fresh` reads it again). */
  get(name: string, options?: { fresh?: boolean }): Promise<string>;
  /** `GetParameters` calls made so far (what the benchmark counts). */
  readonly calls: number;
}

interface Waiter {
  resolve(value: string): void;
  reject(error: unknown): void;
}

export function createSsmParameterStore(options: {
  client: SSMClient;
  clock: Clock;
  ttlMs: number;
}): SsmParameterStore {
  const { client, clock, ttlMs } = options;
  const cache = new Map<string, { value: string; expiresAt: number }>();
  let pending = new Map<string, Waiter[]>();
  let scheduled = false;
  let calls = 0;

  const fetchBatch = async (names: string[], waiters: Map<string, Waiter[]>) => {
    try {
      calls += 1;
      const out = await client.send(new GetParametersCommand({ Names: names, WithDecryption: true }));
      const found = new Map((out.Parameters ?? []).map((p) => [p.Name ?? '', p.Value]));
      for (const name of names) {
        const value = found.get(name);
        const each = waiters.get(name) ?? [];
        if (value === undefined) {
          for (const w of each) w.reject(new ParameterNotFoundError(name));
          continue;
        }
        cache.set(name, { value, expiresAt: clock.now().getTime() + ttlMs });
        for (const w of each) w.resolve(value);
      }
    } catch (error) {
      for (const name of names) for (const w of waiters.get(name) ?? []) w.reject(error);
    }
  };

  const flush = () => {
    scheduled = false;
    const waiters = pending;
    pending = new Map();
    const names = [...waiters.keys()];
    for (let i = 0; i < names.length; i += PARAMETERS_PER_CALL) {
      void fetchBatch(names.slice(i, i + PARAMETERS_PER_CALL), waiters);
    }
  };

  return {
    get(name, { fresh = false } = {}) {
      const hit = cache.get(name);
      if (!fresh && hit && clock.now().getTime() < hit.expiresAt) return Promise.resolve(hit.value);
      return new Promise<string>((resolve, reject) => {
        const list = pending.get(name) ?? [];
        list.push({ resolve, reject });
        pending.set(name, list);
        if (!scheduled) {
          scheduled = true;
          // Every name asked for in this turn of the event loop goes out together.
          setImmediate(flush);
        }
      });
    },
    get calls() {
      return calls;
    },
  };
}
