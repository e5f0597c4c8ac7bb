/**
 * The subset of EventBridge content filtering the routing table uses (see `functions/core/routes.ts`),
 * so the local bus routes exactly as the rules on AWS do:
 *
 * - every key of the pattern must match (AND); keys the pattern does not name are ignored;
 * - a leaf is an array of alternatives (OR): a string, number, boolean or null matches an equal
 *   value of the same type; `{ prefix }` a string that starts with it; `{ 'anything-but' }` a
 *   present value outside the list; `{ exists: true }` a present leaf, `{ exists: false }` absence;
 * - when the event's value is an array, the leaf matches if any element matches;
 * - an object in the pattern descends into the same key of the event (`detail` and below);
 * - `$or` (in `detail` or below) holds alternative nested filters: at least one must match.
 *
 * A field that is absent matches nothing but `{ exists: false }`, as on EventBridge.
 */

export type PatternValue =
  | string
  | number
  | boolean
  | null
  | { prefix: string }
  | { 'anything-but': string | string[] }
  | { exists: boolean };

/**
 * A nested filter (`detail` and below): each key a leaf (array of alternatives) or a nested
 * filter; `$or` holds alternative filters of which at least one must match.
 */
export interface NestedPattern {
  [key: string]: PatternValue[] | NestedPattern | NestedPattern[] | undefined;
  $or?: NestedPattern[];
}

export interface EventPatternSpec {
  source?: PatternValue[];
  /** Absent: every detail-type (a pattern on `source` alone is valid in EventBridge). */
  'detail-type'?: string[];
  detail?: NestedPattern;
}

/** The fields of an EventBridge event that patterns look at. */
export interface PatternEvent {
  source: string;
  'detail-type': string;
  detail: unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function matchesOne(alternative: PatternValue, value: unknown): boolean {
  if (alternative === null || typeof alternative !== 'object') return value === alternative;
  if ('prefix' in alternative) return typeof value === 'string' && value.startsWith(alternative.prefix);
  if ('anything-but' in alternative) {
    const excluded = alternative['anything-but'];
    return Array.isArray(excluded) ? !excluded.includes(value as string) : value !== excluded;
  }
  return false;
}

/** Whether one leaf (array of alternatives) accepts the event's value (`undefined` = absent). */
export function matchesLeaf(alternatives: readonly PatternValue[], value: unknown): boolean {
  for (const alternative of alternatives) {
    if (alternative !== null && typeof alternative === 'object' && 'exists' in alternative) {
      const present = value !== undefined && !isPlainObject(value);
      if (alternative.exists ? present : value === undefined) return true;
      continue;
    }
    if (value === undefined || isPlainObject(value)) continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => matchesOne(alternative, v))) return true;
  }
  return false;
}

function matchesObject(pattern: NestedPattern, value: unknown): boolean {
  const object = isPlainObject(value) ? value : undefined;
  for (const [key, sub] of Object.entries(pattern)) {
    if (sub === undefined) continue;
    if (key === '$or') {
      const alternatives = sub as NestedPattern[];
      if (!alternatives.some((alternative) => matchesObject(alternative, value))) return false;
      continue;
    }
    const field = object?.[key];
    const ok = Array.isArray(sub)
      ? matchesLeaf(sub as PatternValue[], field)
      : matchesObject(sub as NestedPattern, field);
    if (!ok) return false;
  }
  return true;
}

/** Whether `event` matches `pattern` under EventBridge's rules (the subset above). */
export function matchesPattern(pattern: EventPatternSpec, event: PatternEvent): boolean {
  if (pattern.source !== undefined && !matchesLeaf(pattern.source, event.source)) return false;
  if (pattern['detail-type'] !== undefined && !matchesLeaf(pattern['detail-type'], event['detail-type'])) {
    return false;
  }
  if (pattern.detail !== undefined && !matchesObject(pattern.detail, event.detail)) return false;
  return true;
}
