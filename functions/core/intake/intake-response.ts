/** The intake endpoint's answers and their log line, shared by every source. */
import type * as z from 'zod';

export interface IntakeResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Logs one answer: the status, a constant reason and data (never a body, a header value or a secret). */
export type IntakeLog = (status: number, reason: string, data?: Record<string, unknown>) => void;

/** The log reason of a signed delivery of a topic the intake does not import. */
export const IGNORED = 'topic ignored';

export const reply = (
  status: number,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): IntakeResponse => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

/** A schema failure's problems, `field: expectation`, at most 50. */
export function issuesOf(error: z.ZodError, prefix = ''): string[] {
  return error.issues
    .slice(0, 50)
    .map((i) => `${prefix}${i.path.map(String).join('.') || '(body)'}: ${i.message}`);
}
