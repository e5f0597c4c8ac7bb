import { describe, expect, it } from 'vitest';
import {
  type AttemptFailure,
  decideRetry,
  type RetryDecision,
  type RetryState,
} from '#functions/accounting/retry-policy.js';

const read: RetryState = {
  attempt: 1,
  maxAttempts: 4,
  sideEffect: false,
  staleRetried: false,
  retryAfterMaxMs: 60_000,
};
const write: RetryState = { ...read, sideEffect: true };
const last = (s: RetryState): RetryState => ({ ...s, attempt: s.maxAttempts });
const stale = (s: RetryState): RetryState => ({ ...s, staleRetried: true });

const backoff = (reason: string): RetryDecision => ({ action: 'retryAfter', delayMs: undefined, reason });
const fail: RetryDecision = { action: 'fail' };
const unknown: RetryDecision = { action: 'outcomeUnknown' };
const transport = (t: 'connect' | 'reset' | 'timeout' | 'other'): AttemptFailure => ({
  kind: 'transport',
  transport: t,
});
const status = (s: number, retryAfterMs?: number): AttemptFailure => ({
  kind: 'status',
  status: s,
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});

const table: Array<[string, AttemptFailure, RetryState, RetryDecision]> = [
  // Transport failures of a read
  ['read, connect refused', transport('connect'), read, backoff('connect')],
  [
    'read, first reset: fresh socket at once',
    transport('reset'),
    read,
    { action: 'repeatNow', reason: 'stale socket' },
  ],
  ['read, second reset backs off', transport('reset'), stale(read), backoff('reset')],
  ['read, timeout', transport('timeout'), read, backoff('timeout')],
  ['read, other transport failure', transport('other'), read, fail],
  ['read, connect refused on the last attempt', transport('connect'), last(read), fail],
  // Transport failures of a side effect: repeat only what surely never arrived
  ['write, connect refused (never sent)', transport('connect'), write, backoff('connect')],
  ['write, reset (may have arrived)', transport('reset'), write, unknown],
  ['write, timeout', transport('timeout'), write, unknown],
  ['write, other', transport('other'), write, unknown],
  // A 2xx whose body broke off
  ['read, broken body', { kind: 'body' }, read, backoff('body')],
  ['read, broken body on the last attempt', { kind: 'body' }, last(read), fail],
  ['write, broken body', { kind: 'body' }, write, unknown],
  // 429: refused before processing, so safe for side effects too
  [
    'read, 429 with Retry-After',
    status(429, 2_000),
    read,
    { action: 'retryAfter', delayMs: 2_000, reason: 'rate limited' },
  ],
  ['write, 429 without Retry-After', status(429), write, backoff('rate limited')],
  ['429 with a Retry-After beyond the cap', status(429, 120_000), read, fail],
  [
    '429 with a Retry-After of exactly the cap waits',
    status(429, 60_000),
    read,
    { action: 'retryAfter', delayMs: 60_000, reason: 'rate limited' },
  ],
  ['429 on the last attempt', status(429, 1_000), last(read), fail],
  // 5xx
  ['read, 503', status(503), read, backoff('server error')],
  ['read, 502 on the last attempt', status(502), last(read), fail],
  ['read, 500 (not a gateway status)', status(500), read, fail],
  ['write, 503', status(503), write, unknown],
  ['write, 500', status(500), write, unknown],
  // Other statuses are answers, not failures to repeat
  ['read, 404', status(404), read, fail],
  ['write, 422', status(422), write, fail],
  ['read, 401 (after the renewal)', status(401), read, fail],
];

describe('decideRetry', () => {
  it.each(table)('%s', (_name, failure, state, expected) => {
    expect(decideRetry(failure, state)).toEqual(expected);
  });
});
