/**
 * Reading the service's answers: headers, bounded bodies, JSON, schema checks, `Retry-After`, and
 * problem details scrubbed of anything that could echo a secret.
 */
import type * as z from 'zod';
import { redactText } from '../shared/logger.js';
import { readStream } from '../shared/read-stream.js';
import { type ProblemDetails, type RequestInfo, SchemaMismatchError } from './errors.js';
import { expectedOf, fieldPath } from './schemas.js';
import type { RawResponse } from './transport.js';

/** The most of an error or token body the client reads. */
export const MAX_ERROR_BODY = 64 * 1024;

export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const s = raw.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number.parseFloat(s) * 1000);
  const at = Date.parse(s);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

export function header(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function readText(res: RawResponse, limit = Number.POSITIVE_INFINITY): Promise<string> {
  return (await readStream(res.body, { maxBytes: limit, truncate: true })).toString('utf8');
}

export async function discard(res: RawResponse): Promise<void> {
  try {
    await readText(res, MAX_ERROR_BODY);
  } catch {
    // the body of an answer we do not use
  } finally {
    res.done();
  }
}

export function parseJson(text: string, req: RequestInfo): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SchemaMismatchError(req, '(body)', 'is not valid JSON', { cause: error });
  }
}

/** An error or token body: JSON when it parses, else `undefined` (gateway pages, plain text). */
export function parseJsonOrUndefined(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, req: RequestInfo): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new SchemaMismatchError(req, '(body)', 'is invalid');
  throw new SchemaMismatchError(req, fieldPath(issue.path), expectedOf(issue));
}

/** Problem details may echo what was sent: every string passes the secret redactor. */
export function scrub(problem: ProblemDetails): ProblemDetails {
  const out: ProblemDetails = { ...problem };
  for (const key of ['type', 'title', 'detail', 'instance', 'traceId'] as const) {
    const v = out[key];
    if (v !== undefined) out[key] = redactText(v);
  }
  if (out.errors) {
    out.errors = Object.fromEntries(
      Object.entries(out.errors).map(([k, msgs]) => [redactText(k), msgs.map((m) => redactText(m))]),
    );
  }
  return out;
}
