/**
 * Deterministic randomness for the sandbox: every seeded record is a pure function of
 * (seed, collection, index), so the same seed always yields the same company.
 */

/** FNV-1a 32-bit hash of a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes several 32-bit integers into one (murmur3 finaliser per step). */
export function mix(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

const HEX = '0123456789abcdef';
const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A small, fast PRNG (mulberry32) with helpers. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('cannot pick from an empty list');
    return item;
  }

  /** Picks a key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
    let r = this.next() * total;
    for (const [key, w] of entries) {
      r -= Math.max(0, w);
      if (r < 0) return key;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('no weights given');
    return last[0];
  }

  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(Math.floor(this.next() * 10));
    return out;
  }

  hex(count: number): string {
    let out = '';
    while (out.length < count) out += this.word();
    return out.slice(0, count);
  }

  /** Eight hex digits from one draw. */
  private word(): string {
    const x = Math.floor(this.next() * 4294967296);
    return (
      (BYTE_HEX[x >>> 24] as string) +
      BYTE_HEX[(x >>> 16) & 255] +
      BYTE_HEX[(x >>> 8) & 255] +
      BYTE_HEX[x & 255]
    );
  }

  /** A version-4-shaped GUID, lower case. */
  guid(): string {
    const a = this.word();
    const b = this.word();
    const c = this.word();
    const d = this.word();
    const variant = HEX[8 + (Number.parseInt(c[0] as string, 16) & 3)];
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }
}

export const GUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rounds to cents, half away from zero. */
export function money(value: number): number {
  return (Math.sign(value) * Math.round(Math.abs(value) * 100 + 1e-9)) / 100;
}
