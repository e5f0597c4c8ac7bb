/**
 * An EventBridge rule's event pattern as the deployment test reads it: every key and operator is
 * either implemented here or refused, naming the rule and the key, so a pattern the harness does
 * not understand fails the test instead of matching (or not) by accident. The envelope's fields
 * (`account`, `region`, `resources`, `id`, `time`, `version`) are matched like `source`; `detail`
 * and `detail-type` by the same semantics as the local bus (`functions/core/event-pattern.ts`).
 */
import {
  type EventPatternSpec,
  matchesLeaf,
  matchesPattern,
  type PatternValue,
} from '#functions/core/event-pattern.js';
import type { Json } from './assembly.js';

export class UnsupportedPatternError extends Error {
  override readonly name = 'UnsupportedPatternError';
}

const ENVELOPE = ['account', 'region', 'resources', 'id', 'time', 'version'] as const;
const TOP_LEVEL = new Set<string>(['source', 'detail-type', 'detail', ...ENVELOPE]);
const OPERATORS = new Set(['prefix', 'anything-but', 'exists']);

function checkLeaf(rule: string, path: string, leaf: unknown): void {
  if (!Array.isArray(leaf))
    throw new UnsupportedPatternError(`${rule} EventPattern ${path}: a leaf must be an array`);
  for (const alternative of leaf) {
    if (alternative === null || typeof alternative !== 'object') continue;
    const keys = Object.keys(alternative);
    const [op] = keys;
    if (keys.length !== 1 || !op || !OPERATORS.has(op))
      throw new UnsupportedPatternError(
        `${rule} EventPattern ${path}: operator ${JSON.stringify(alternative)} is not implemented by the deployment test`,
      );
    const arg = (alternative as Record<string, unknown>)[op];
    const plain = (v: unknown) => v === null || typeof v !== 'object';
    const argOk =
      op === 'exists'
        ? typeof arg === 'boolean'
        : op === 'prefix'
          ? typeof arg === 'string'
          : plain(arg) || (Array.isArray(arg) && arg.every(plain));
    if (!argOk)
      throw new UnsupportedPatternError(
        `${rule} EventPattern ${path}: ${op} ${JSON.stringify(arg)} is not implemented by the deployment test`,
      );
  }
}

function checkNested(rule: string, path: string, pattern: unknown): void {
  if (pattern === null || typeof pattern !== 'object' || Array.isArray(pattern))
    throw new UnsupportedPatternError(`${rule} EventPattern ${path}: expected an object`);
  for (const [key, sub] of Object.entries(pattern)) {
    if (key === '$or') {
      if (!Array.isArray(sub) || sub.length < 2)
        throw new UnsupportedPatternError(
          `${rule} EventPattern ${path}.$or: needs at least two alternatives`,
        );
      for (const [i, alt] of sub.entries()) checkNested(rule, `${path}.$or[${i}]`, alt);
    } else if (Array.isArray(sub)) checkLeaf(rule, `${path}.${key}`, sub);
    else checkNested(rule, `${path}.${key}`, sub);
  }
}

/** Refuses a pattern with a key or operator the matcher does not implement. */
export function checkPattern(rule: string, pattern: Json): void {
  if (pattern === null || typeof pattern !== 'object' || Array.isArray(pattern))
    throw new UnsupportedPatternError(`${rule} EventPattern: expected an object`);
  for (const [key, value] of Object.entries<Json>(pattern)) {
    if (!TOP_LEVEL.has(key))
      throw new UnsupportedPatternError(
        `${rule} EventPattern: key ${key} is not implemented by the deployment test`,
      );
    if (key === 'detail') checkNested(rule, 'detail', value);
    else checkLeaf(rule, key, value);
  }
}

/** Whether `event` (a full EventBridge envelope) matches the rule's pattern; refuses what it does not implement. */
export function matchesRule(rule: string, pattern: Json, event: Json): boolean {
  checkPattern(rule, pattern);
  for (const key of ENVELOPE) {
    if (pattern[key] !== undefined && !matchesLeaf(pattern[key] as PatternValue[], event[key])) return false;
  }
  return matchesPattern(pattern as EventPatternSpec, event);
}
