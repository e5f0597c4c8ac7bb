/**
 * One HTTP exchange over undici's keep-alive `Agent`, with a per-request deadline. Classifies
 * failures: connect-phase errors (the request never left), resets/socket errors (it may have
 * reached the server), deadline, caller abort. Retries are not here: they live in `exchange.ts`.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Agent, request } from './undici-agent.js';

export interface SendInput {
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Deadline for the answer: runs until the response's `done()` is called (or the request fails). */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** Stops the deadline timer (call when the body was consumed or handed to the caller). */
  done(): void;
  /** `true` once the deadline fired (a body read failing after it is a timeout). */
  timedOut(): boolean;
}

export type FailureKind = 'connect' | 'reset' | 'timeout' | 'aborted' | 'other';

/** Thrown by `send` for failures without a response; `kind` decides whether a retry is safe. */
export class TransportFailure extends Error {
  override readonly name = 'TransportFailure';
  constructor(
    readonly kind: FailureKind,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`transport failure (${kind}${code ? ` ${code}` : ''})`, options);
  }
}

/** Never sent: the connection could not be made. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
]);
/** The socket broke while the request was in flight (stale keep-alive socket, server crash). */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED' && code !== 'ABORT_ERR') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function classify(error: unknown): { kind: FailureKind; code: string | undefined } {
  const code = codeOf(error);
  if (code && CONNECT_CODES.has(code)) return { kind: 'connect', code };
  if (code && RESET_CODES.has(code)) return { kind: 'reset', code };
  if (code && TIMEOUT_CODES.has(code)) return { kind: 'timeout', code };
  return { kind: 'other', code };
}

export interface TransportOptions {
  connectTimeoutMs: number;
  /** Idle time between body chunks before a stream is failed. */
  bodyTimeoutMs: number;
  /** Keep-alive idle time of pooled sockets (the server's `Keep-Alive` hint may lower it). */
  keepAliveTimeoutMs?: number;
  connections?: number;
}

export function createAgent(options: TransportOptions): Agent {
  return new Agent({
    connect: { timeout: options.connectTimeoutMs },
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    keepAliveMaxTimeout: Math.max(60_000, options.keepAliveTimeoutMs ?? 0),
    bodyTimeout: options.bodyTimeoutMs,
    headersTimeout: 0,
    connections: options.connections ?? 32,
  });
}

const DEADLINE = Symbol('deadline');

/** Sends one request. The deadline runs until `done()` (or until a failure). */
export async function send(dispatcher: Dispatcher, input: SendInput): Promise<RawResponse> {
  if (input.signal?.aborted) throw new TransportFailure('aborted', undefined, { cause: input.signal.reason });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(DEADLINE), input.timeoutMs);
  const signal = input.signal ? AbortSignal.any([deadline.signal, input.signal]) : deadline.signal;
  const done = () => clearTimeout(timer);
  try {
    const res = await request(input.url, {
      dispatcher,
      method: input.method,
      headers: input.headers,
      body: input.body,
      signal,
    });
    // The deadline also aborts the body (undici ties the signal to the response stream).
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      done,
      timedOut: () => deadline.signal.aborted,
    };
  } catch (error) {
    done();
    if (input.signal?.aborted)
      throw new TransportFailure('aborted', undefined, { cause: input.signal.reason });
    if (deadline.signal.aborted) throw new TransportFailure('timeout', undefined, { cause: error });
    const { kind, code } = classify(error);
    throw new TransportFailure(kind, code, { cause: error });
  }
}
