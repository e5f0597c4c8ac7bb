/** HTTP plumbing of the sandbox: problem details, JSON bodies, request bodies. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  traceId: string;
  errors?: Record<string, string[]>;
  detail?: string;
}

export function traceId(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
}

export function problem(status: number, errors?: Record<string, string[]>, detail?: string): ProblemDetails {
  return {
    type: `https://httpstatuses.io/${status}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    traceId: traceId(),
    ...(errors ? { errors } : {}),
    ...(detail ? { detail } : {}),
  };
}

/** A handler's outcome, written by the server (which may apply body faults). */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** JSON value (serialised), a string or bytes; `undefined` for an empty body. */
  body?: unknown;
  contentType?: string;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return { status, body, contentType: 'application/json; charset=utf-8', ...(headers ? { headers } : {}) };
}

export function problemReply(
  status: number,
  errors?: Record<string, string[]>,
  headers?: Record<string, string>,
  detail?: string,
): Reply {
  return {
    status,
    body: problem(status, errors, detail),
    contentType: 'application/problem+json; charset=utf-8',
    ...(headers ? { headers } : {}),
  };
}

/** Thrown by handlers to answer with a problem. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  constructor(
    readonly status: number,
    readonly errors?: Record<string, string[]>,
    readonly detail?: string,
  ) {
    super(`problem ${status}`);
  }
}

export function validationError(field: string, message: string): ProblemError {
  return new ProblemError(422, { [field]: [message] });
}

export function notFound(what?: string): ProblemError {
  return new ProblemError(404, undefined, what);
}

const MAX_BODY = 5 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new ProblemError(413);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON request body; malformed JSON → 400 like the real service's model binding. */
export function parseJsonBody(raw: Buffer, required: boolean): unknown {
  const text = raw.toString('utf8').trim();
  if (text === '') {
    if (required) throw new ProblemError(400, { '': ['A non-empty request body is required.'] });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError(400, {
      $: [`The JSON value could not be converted: ${(error as Error).message}`],
    });
  }
}

export function serialise(reply: Reply): Buffer {
  if (reply.body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(reply.body)) return reply.body;
  if (typeof reply.body === 'string' && !reply.contentType?.includes('json')) return Buffer.from(reply.body);
  return Buffer.from(JSON.stringify(reply.body));
}

export function writeHead(res: ServerResponse, reply: Reply, length: number, date?: Date): void {
  const headers: Record<string, string | number> = {
    'Access-Control-Allow-Origin': '*',
    ...(date ? { Date: date.toUTCString() } : {}),
    ...(reply.headers ?? {}),
  };
  if (length > 0 || reply.status !== 204) headers['Content-Length'] = length;
  if (reply.contentType && length > 0) headers['Content-Type'] = reply.contentType;
  res.writeHead(reply.status, headers);
}
