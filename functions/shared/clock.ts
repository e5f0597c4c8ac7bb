/**
 * Clocks: the system clock for production and a manual clock for tests, so nothing waits for real.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Time, injectable so tests never wait for real. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms, signal) => {
    if (signal?.aborted) throw abortReason(signal);
    try {
      await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw error;
    }
  },
};

export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and resolves every sleeper that is due. */
  advance(ms: number): void;
  /** Sets the time (never backwards for due sleepers: they resolve when passed). */
  set(date: Date | string | number): void;
  /** Every duration passed to `sleep`, in call order. */
  readonly sleeps: readonly number[];
  /** How many sleepers are waiting. */
  pending(): number;
}

export interface ManualClockOptions {
  start?: Date | string | number;
  /**
   * When set, `sleep(ms)` moves time forward by `ms` at once and resolves (after a microtask):
   * code under test runs its backoffs without anyone calling `advance`.
   */
  autoAdvance?: boolean;
}

interface Sleeper {
  due: number;
  resolve: () => void;
}

export function createManualClock(options: ManualClockOptions = {}): ManualClock {
  let now = new Date(options.start ?? '2026-01-01T00:00:00.000Z').getTime();
  const sleepers = new Set<Sleeper>();
  const sleeps: number[] = [];

  const release = () => {
    for (const s of [...sleepers]) {
      if (s.due <= now) {
        sleepers.delete(s);
        s.resolve();
      }
    }
  };

  return {
    now: () => new Date(now),
    sleeps,
    pending: () => sleepers.size,
    advance(ms) {
      now += Math.max(0, ms);
      release();
    },
    set(date) {
      now = new Date(date).getTime();
      release();
    },
    sleep(ms, signal) {
      sleeps.push(ms);
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (options.autoAdvance) {
        now += Math.max(0, ms);
        release();
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const sleeper: Sleeper = {
          due: now + Math.max(0, ms),
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers.delete(sleeper);
          reject(abortReason(signal as AbortSignal));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.add(sleeper);
        release();
      });
    },
  };
}
