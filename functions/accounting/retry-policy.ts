/**
 * The client's retry policy as one pure decision: given what went wrong with an attempt and where
 * the exchange stands, what to do next. `exchange` in `exchange.ts` is a loop that acts on it; the
 * table of cases is tested on its own (test/accounting/retry-policy.test.ts).
 *
 * The rules:
 * - a side effect (create, transfer, command) is repeated only when it surely never arrived: a
 *   connection that could not be made, or a 429 (refused before processing); once it may have
 *   arrived (reset, timeout, a broken body, 5xx) the outcome is unknown and the caller decides;
 * - a reset on a pooled socket is repeated once at once on a fresh socket (the server closed it);
 * - 429 waits `Retry-After` (or the backoff); a `Retry-After` beyond the cap fails fast;
 * - 502/503/504, connect failures, resets and timeouts of reads back off and try again;
 * - everything stops after `maxAttempts`.
 */
import type { FailureKind } from './transport.js';

/** What went wrong with one attempt. */
export type AttemptFailure =
  | { kind: 'transport'; transport: Exclude<FailureKind, 'aborted'> }
  /** A 2xx whose body broke off while it was read. */
  | { kind: 'body' }
  | { kind: 'status'; status: number; retryAfterMs?: number };

export interface RetryState {
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** The operation creates, transfers or commands something. */
  sideEffect: boolean;
  /** The one immediate repeat after a stale socket was used already. */
  staleRetried: boolean;
  /** Longest `Retry-After` the client waits before it fails fast instead. */
  retryAfterMaxMs: number;
}

export type RetryDecision =
  | { action: 'repeatNow'; reason: 'stale socket' }
  /** `delayMs` undefined: the jittered exponential backoff for this attempt. */
  | { action: 'retryAfter'; delayMs: number | undefined; reason: string }
  | { action: 'outcomeUnknown' }
  | { action: 'fail' };

const RETRY_STATUS = new Set([502, 503, 504]);
const FAIL: RetryDecision = { action: 'fail' };
const UNKNOWN: RetryDecision = { action: 'outcomeUnknown' };

function afterTransport(transport: Exclude<FailureKind, 'aborted'>, s: RetryState): RetryDecision {
  if (s.sideEffect && transport !== 'connect') return UNKNOWN;
  if (transport === 'reset' && !s.staleRetried) return { action: 'repeatNow', reason: 'stale socket' };
  if (transport === 'other' || s.attempt >= s.maxAttempts) return FAIL;
  return { action: 'retryAfter', delayMs: undefined, reason: transport };
}

function afterStatus(status: number, retryAfterMs: number | undefined, s: RetryState): RetryDecision {
  if (status === 429) {
    if (retryAfterMs !== undefined && retryAfterMs > s.retryAfterMaxMs) return FAIL;
    if (s.attempt >= s.maxAttempts) return FAIL;
    return { action: 'retryAfter', delayMs: retryAfterMs, reason: 'rate limited' };
  }
  if (status >= 500) {
    if (s.sideEffect) return UNKNOWN;
    if (RETRY_STATUS.has(status) && s.attempt < s.maxAttempts) {
      return { action: 'retryAfter', delayMs: undefined, reason: 'server error' };
    }
  }
  return FAIL;
}

/** What to do after `failure` on attempt `state.attempt`. */
export function decideRetry(failure: AttemptFailure, state: RetryState): RetryDecision {
  switch (failure.kind) {
    case 'transport':
      return afterTransport(failure.transport, state);
    case 'body':
      if (state.sideEffect) return UNKNOWN;
      return state.attempt >= state.maxAttempts
        ? FAIL
        : { action: 'retryAfter', delayMs: undefined, reason: 'body' };
    case 'status':
      return afterStatus(failure.status, failure.retryAfterMs, state);
  }
}
