/**
 * The time an SQS action invocation has left, minus a margin to report its batch: the accounting
 * client bounds every attempt and backoff by it, and the SQS handler stops a record that cannot
 * finish in time and reports it as a failed batch item — a Lambda timeout would drop the whole
 * partial-failure report, and every message of the batch would use up a receive.
 */
import { RetryLaterError } from '../core/actions/errors.js';

/** Kept free at the end of an invocation to return the batch report. */
export const REPORT_MARGIN_MS = 3_000;

export interface InvocationDeadline {
  /** Milliseconds left before the report must be returned; `undefined` outside an invocation. */
  remainingMs(): number | undefined;
  begin(context: { getRemainingTimeInMillis(): number }): void;
  end(): void;
}

export function createInvocationDeadline(marginMs = REPORT_MARGIN_MS): InvocationDeadline {
  let context: { getRemainingTimeInMillis(): number } | undefined;
  return {
    remainingMs: () => (context ? context.getRemainingTimeInMillis() - marginMs : undefined),
    begin(c) {
      context = c;
    },
    end() {
      context = undefined;
    },
  };
}

/**
 * `work`, or a `RetryLaterError` once `ms` have passed (the work keeps running unobserved; its
 * idempotency record, in progress, expires with the invocation and the redelivery re-reads the state).
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) throw new RetryLaterError('no time left in this invocation');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RetryLaterError('the invocation ends before this record could finish')),
      ms,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
