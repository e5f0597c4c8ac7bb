/**
 * The intake's signing secrets as they change: read through `read` (Secrets Manager on AWS),
 * cached for `ttlMs`, read again at once after a signature did not match (at most once per
 * `minRereadMs`, so a flood of bad signatures costs one read per interval), and after a secret
 * changed its previous value is still accepted for `graceMs` — then refused. A shop switched to
 * the new secret is accepted on its first delivery; a leaked old secret stops working when the
 * grace window ends, not at the next cold start.
 */
import type { Clock } from '../ports.js';
import { type IntakeSource, intakeSources } from './shop-order.js';

export type SigningSecretValues = Partial<Record<IntakeSource, string>>;

export interface RotatingSecretsOptions {
  read(): Promise<SigningSecretValues>;
  clock: Clock;
  ttlMs: number;
  graceMs: number;
  minRereadMs: number;
  /** Values already read (at cold start), so the first request reads nothing. */
  initial?: SigningSecretValues;
}

export interface RotatingSecrets {
  /** The secrets a delivery of `source` may be signed with now: the current one, then the previous in its grace. */
  accepted(source: IntakeSource): Promise<string[]>;
  /** Reads again after a mismatch; `false` when the last read is too recent to read again. */
  reread(): Promise<boolean>;
}

interface SourceState {
  current?: string;
  previous?: string;
  previousUntil: number;
}

export function createRotatingSecrets(options: RotatingSecretsOptions): RotatingSecrets {
  const { clock } = options;
  const state = new Map<IntakeSource, SourceState>(intakeSources.map((s) => [s, { previousUntil: 0 }]));
  let readAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;

  const apply = (values: SigningSecretValues, now: number) => {
    for (const source of intakeSources) {
      const s = state.get(source) as SourceState;
      const value = values[source];
      if (value === s.current) continue;
      if (s.current !== undefined) {
        s.previous = s.current;
        s.previousUntil = now + options.graceMs;
      }
      s.current = value;
    }
    readAt = now;
  };
  if (options.initial) apply(options.initial, clock.now().getTime());

  const load = () => {
    inFlight ??= options
      .read()
      .then((values) => apply(values, clock.now().getTime()))
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return {
    async accepted(source) {
      if (clock.now().getTime() - readAt >= options.ttlMs) await load();
      const s = state.get(source) as SourceState;
      const now = clock.now().getTime();
      const out = s.current === undefined ? [] : [s.current];
      if (s.previous !== undefined && now < s.previousUntil && s.previous !== s.current) out.push(s.previous);
      return out;
    },
    async reread() {
      if (clock.now().getTime() - readAt < options.minRereadMs) return false;
      await load();
      return true;
    },
  };
}
