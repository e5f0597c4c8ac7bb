/** Fault injection: latency, per-credential token buckets, random errors, resets, slow and broken bodies. */
import type { Faults } from './options.js';
import { parseFaults } from './options.js';
import { Rng } from './random.js';

export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'reset' }
  | { kind: 'status'; status: number; retryAfterSeconds?: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class FaultEngine {
  faults: Faults;
  private rng: Rng;
  private buckets = new Map<string, Bucket>();
  private pattern: RegExp;

  constructor(
    initial: Faults,
    seed: number,
    private readonly now: () => number,
  ) {
    this.faults = initial;
    this.rng = new Rng(seed ^ 0xfa017);
    this.pattern = new RegExp(initial.pathPattern);
  }

  /** Merges `patch` into the current faults (validated; unknown keys rejected). */
  set(patch: Partial<Faults>): Faults {
    this.replace(parseFaults({ ...this.faults, ...patch }));
    return this.faults;
  }

  /** Uses `faults` as they are (already validated); the rate-limit buckets start full again. */
  replace(faults: Faults): void {
    this.faults = faults;
    this.pattern = new RegExp(faults.pathPattern);
    this.buckets.clear();
  }

  applies(pathname: string): boolean {
    return this.pattern.test(pathname);
  }

  latencyMs(): number {
    const l = this.faults.latency;
    if (!l) return 0;
    const extra =
      l.distribution === 'exponential'
        ? -Math.log(1 - this.rng.next()) * l.jitterMs
        : this.rng.next() * l.jitterMs;
    return l.baseMs + extra;
  }

  /** Whether the connection should be dropped before answering. */
  reset(): boolean {
    return this.faults.connectionResetRate > 0 && this.rng.chance(this.faults.connectionResetRate);
  }

  /** Token bucket per credential: `undefined` when allowed, else the seconds to wait. */
  rateLimited(credential: string): number | undefined {
    const limit = this.faults.rateLimit;
    if (!limit) return undefined;
    const now = this.now();
    const b = this.buckets.get(credential) ?? { tokens: limit.capacity, updatedAt: now };
    b.tokens = Math.min(limit.capacity, b.tokens + ((now - b.updatedAt) / 1000) * limit.refillPerSecond);
    b.updatedAt = now;
    this.buckets.set(credential, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / limit.refillPerSecond));
  }

  /** Random 429 / 5xx. */
  randomError(): FaultDecision {
    const f = this.faults;
    if (f.random429Rate > 0 && this.rng.chance(f.random429Rate)) {
      return { kind: 'status', status: 429, retryAfterSeconds: f.retryAfterSeconds };
    }
    if (f.random5xxRate > 0 && this.rng.chance(f.random5xxRate)) {
      return { kind: 'status', status: this.rng.pick(f.statuses5xx) };
    }
    return { kind: 'none' };
  }

  slowBody(): { chunks: number; delayMs: number } | undefined {
    const f = this.faults;
    if (f.slowBodyRate > 0 && this.rng.chance(f.slowBodyRate)) {
      return { chunks: f.slowBodyChunks, delayMs: f.slowBodyChunkDelayMs };
    }
    return undefined;
  }

  malformedJson(): boolean {
    return this.faults.malformedJsonRate > 0 && this.rng.chance(this.faults.malformedJsonRate);
  }

  editsWhilePaging(): number {
    const e = this.faults.editsWhilePaging;
    if (!e) return 0;
    return this.rng.chance(e.rate) ? e.count : 0;
  }
}
