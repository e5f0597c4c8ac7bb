/**
 * One exchange with the service: attempts until a value, acting on the retry policy's decision
 * (`retry-policy.ts`) after each failure. An attempt sends once (with credentials when the
 * exchange authenticates), renews a rejected token or re-reads refused credentials once, and
 * turns what went wrong into the policy's input and the typed error to throw.
 */
import type { Clock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import type { Logger } from '../shared/logger.js';
import { redactText } from '../shared/logger.js';
import type { ConnectionPool } from './connection-pool.js';
import type { OperationKind } from './endpoints.js';
import {
  ApiError,
  AuthenticationError,
  apiErrorFor,
  ConnectionError,
  OutcomeUnknownError,
  type RequestInfo,
  SchemaMismatchError,
  TimeoutError,
} from './errors.js';
import type { ReloadableAuth } from './reloadable-auth.js';
import type { RequestLimiter } from './request-limiter.js';
import {
  discard,
  MAX_ERROR_BODY,
  parseJsonOrUndefined,
  parseRetryAfter,
  readText,
  scrub,
} from './responses.js';
import { type AttemptFailure, decideRetry } from './retry-policy.js';
import { toProblemDetails } from './schemas.js';
import { type RawResponse, send, TransportFailure } from './transport.js';

export interface Exchange<T> {
  operationId: string;
  kind: OperationKind;
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal | undefined;
  /** The credentials to send; none for the token request itself. */
  auth?: ReloadableAuth;
  /** Statuses the caller maps itself (token endpoint errors). */
  ownStatuses?: ReadonlySet<number>;
  /** Reads a 2xx (or own-status) response; runs inside the retry loop. */
  consume(res: RawResponse, req: RequestInfo): Promise<T>;
}

export interface ExchangeCounters {
  requests: number;
  retries: number;
  rateLimited: number;
  serverErrors: number;
  staleSocketRetries: number;
}

/** What every exchange of one client shares. */
export interface ExchangeContext {
  readonly config: {
    readonly requestTimeoutMs: number;
    readonly maxAttempts: number;
    readonly retryAfterMaxMs: number;
    readonly retryBaseDelayMs: number;
    readonly retryMaxDelayMs: number;
  };
  readonly clock: Clock;
  readonly logger: Logger;
  /** Random source in [0, 1) for the backoff jitter. */
  readonly random: () => number;
  /** Time left for the work the client serves, or `undefined` for no bound. */
  readonly remainingMs?: (() => number | undefined) | undefined;
  /** The connection's rate limit (`request-limiter.ts`), shared with its other clients. */
  readonly limiter?: RequestLimiter | undefined;
  readonly pool: ConnectionPool;
  readonly counters: ExchangeCounters;
}

const SIDE_EFFECT: ReadonlySet<OperationKind> = new Set<OperationKind>(['create', 'transfer', 'command']);

/** Where one exchange stands between attempts. */
interface ExchangeRun {
  readonly req: RequestInfo;
  readonly log: { operation: string; method: string; path: string };
  attempt: number;
  staleRetried: boolean;
  authRetried: boolean;
  /** The credentials were read again during this exchange (at most once). */
  reloaded: boolean;
}

/** A failed attempt: what the retry policy decides on, the error to throw, and what to log. */
interface Failed {
  failure: AttemptFailure;
  error: Error;
  detail: Record<string, unknown>;
}

type Attempt<T> = { value: T } | { repeat: true } | Failed;

/** One re-read of the credentials per exchange, after an authentication failure. */
async function reloadOnce(ctx: ExchangeContext, auth: ReloadableAuth, run: ExchangeRun): Promise<boolean> {
  if (run.reloaded || !(await auth.reload())) return false;
  run.reloaded = true;
  ctx.counters.retries++;
  return true;
}

async function authHeaders(ctx: ExchangeContext, x: Exchange<unknown>, run: ExchangeRun) {
  const auth = x.auth;
  if (!auth) return undefined;
  try {
    return await auth.current().headers(x.signal);
  } catch (error) {
    if (error instanceof AuthenticationError && (await reloadOnce(ctx, auth, run)))
      return auth.current().headers(x.signal);
    throw error;
  }
}

/** A failed send: its kind for the retry policy and the error to throw if the policy gives up. */
function transportFailure(
  ctx: ExchangeContext,
  error: unknown,
  x: Exchange<unknown>,
  run: ExchangeRun,
): Failed {
  if (!(error instanceof TransportFailure)) throw error;
  if (error.kind === 'aborted') throw x.signal?.reason ?? error.cause;
  const failure =
    error.kind === 'timeout'
      ? new TimeoutError(run.req, ctx.config.requestTimeoutMs, { cause: error.cause })
      : new ConnectionError(run.req, error.code, { cause: error.cause });
  ctx.logger.debug('accounting request failed', {
    ...run.log,
    attempt: run.attempt,
    failure: error.kind,
    code: error.code,
  });
  return {
    failure: { kind: 'transport', transport: error.kind },
    error: failure,
    detail: { code: error.code },
  };
}

/** A 2xx (or own-status) answer read by the caller; a body that breaks off is a failure. */
async function consumed<T>(
  ctx: ExchangeContext,
  x: Exchange<T>,
  res: RawResponse,
  req: RequestInfo,
): Promise<{ value: T } | Failed> {
  try {
    return { value: await x.consume(res, req) };
  } catch (error) {
    res.done();
    if (error instanceof SchemaMismatchError || error instanceof ApiError) throw error;
    if (x.signal?.aborted) throw x.signal.reason;
    const failure = res.timedOut()
      ? new TimeoutError(req, ctx.config.requestTimeoutMs, { cause: error })
      : new ConnectionError(req, (error as { code?: string }).code, { cause: error });
    return { failure: { kind: 'body' }, error: failure, detail: {} };
  }
}

/** The problem details of an error answer, scrubbed, with a hint where the service gave none. */
async function problemOf(x: Exchange<unknown>, res: RawResponse) {
  let text = '';
  try {
    text = await readText(res, MAX_ERROR_BODY);
  } catch {
    text = '';
  } finally {
    res.done();
  }
  const body = parseJsonOrUndefined(text);
  const problem = scrub(toProblemDetails(body));
  if (body === undefined && text.trim()) {
    // Not JSON (an HTML gateway page, plain text): keep a short, scrubbed excerpt.
    problem.detail = redactText(text.replace(/\s+/g, ' ').trim().slice(0, 200));
  }
  if (res.status === 401 && x.auth && !problem.detail) {
    problem.detail =
      x.auth.current().kind === 'apiKey'
        ? `the service refused the API key: check ${ENV.apiKey}`
        : `the service refused a fresh token: check ${ENV.clientId}, ${ENV.clientSecret}, ${ENV.scope}`;
  }
  return problem;
}

/** An error status: its problem details (scrubbed) as a typed error. */
async function statusFailure(
  ctx: ExchangeContext,
  x: Exchange<unknown>,
  res: RawResponse,
  req: RequestInfo,
): Promise<Failed> {
  const problem = await problemOf(x, res);
  const retryAfterMs =
    res.status === 429 ? parseRetryAfter(res.headers['retry-after'], ctx.clock.now()) : undefined;
  if (res.status === 429) ctx.counters.rateLimited++;
  if (res.status >= 500) ctx.counters.serverErrors++;
  if (retryAfterMs !== undefined) await ctx.limiter?.onRateLimited(ctx.clock.now().getTime() + retryAfterMs);
  return {
    failure: { kind: 'status', status: res.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
    error: apiErrorFor(req, res.status, problem, retryAfterMs),
    detail: { status: res.status, traceId: problem.traceId },
  };
}

/** A 401 a renewed token or re-read credentials may fix: the answer is dropped and the request repeated. */
async function repeatAfter401(
  ctx: ExchangeContext,
  x: Exchange<unknown>,
  res: RawResponse,
  credential: Awaited<ReturnType<typeof authHeaders>>,
  run: ExchangeRun,
): Promise<boolean> {
  if (res.status !== 401 || !credential || !x.auth) return false;
  if (!run.authRetried && x.auth.current().unauthorized(credential.credential)) {
    await discard(res);
    run.authRetried = true;
    ctx.counters.retries++;
    ctx.logger.info('accounting token rejected, renewing', run.log);
    return true;
  }
  if (!(await reloadOnce(ctx, x.auth, run))) return false;
  await discard(res);
  return true;
}

/** One attempt: the caller's value, a repeat after a renewed token, or a failure for the policy. */
async function attemptOnce<T>(ctx: ExchangeContext, x: Exchange<T>, run: ExchangeRun): Promise<Attempt<T>> {
  await ctx.limiter?.beforeRequest(x.signal);
  const left = ctx.remainingMs?.();
  // Out of time before sending: nothing reached the service, so this is no unknown outcome.
  if (left !== undefined && left <= 0) throw new TimeoutError(run.req, 0);
  const credential = await authHeaders(ctx, x, run);
  const started = Date.now();
  ctx.counters.requests++;
  let res: RawResponse;
  try {
    res = await send(ctx.pool.dispatcher(), {
      method: x.method,
      url: x.url,
      headers: { 'User-Agent': 'accounting-events', ...x.headers, ...credential?.headers },
      ...(x.body !== undefined ? { body: x.body } : {}),
      timeoutMs:
        left === undefined ? ctx.config.requestTimeoutMs : Math.min(ctx.config.requestTimeoutMs, left),
      ...(x.signal ? { signal: x.signal } : {}),
    });
  } catch (error) {
    return transportFailure(ctx, error, x, run);
  }
  ctx.pool.touch();
  ctx.logger.debug('accounting response', {
    ...run.log,
    attempt: run.attempt,
    status: res.status,
    durationMs: Date.now() - started,
  });
  if (await repeatAfter401(ctx, x, res, credential, run)) return { repeat: true };
  if ((res.status >= 200 && res.status < 300) || x.ownStatuses?.has(res.status))
    return consumed(ctx, x, res, run.req);
  return statusFailure(ctx, x, res, run.req);
}

const backoffMs = (ctx: ExchangeContext, attempt: number) =>
  Math.floor(
    ctx.random() * Math.min(ctx.config.retryMaxDelayMs, ctx.config.retryBaseDelayMs * 2 ** (attempt - 1)),
  );

/** Attempts until a value, acting on the retry policy's decision after each failure. */
export async function exchange<T>(ctx: ExchangeContext, x: Exchange<T>): Promise<T> {
  const req: RequestInfo = { method: x.method, path: x.url.pathname };
  const sideEffect = SIDE_EFFECT.has(x.kind);
  const run: ExchangeRun = {
    req,
    log: { operation: x.operationId, method: x.method, path: req.path },
    attempt: 1,
    staleRetried: false,
    authRetried: false,
    reloaded: false,
  };
  for (;;) {
    const outcome = await attemptOnce(ctx, x, run);
    if ('value' in outcome) return outcome.value;
    if ('repeat' in outcome) continue;
    const decision = decideRetry(outcome.failure, {
      attempt: run.attempt,
      maxAttempts: ctx.config.maxAttempts,
      sideEffect,
      staleRetried: run.staleRetried,
      retryAfterMaxMs: ctx.config.retryAfterMaxMs,
    });
    if (decision.action === 'fail') throw outcome.error;
    if (decision.action === 'outcomeUnknown') {
      throw new OutcomeUnknownError(req, x.operationId, { cause: outcome.error });
    }
    ctx.counters.retries++;
    if (decision.action === 'repeatNow') {
      run.staleRetried = true;
      ctx.counters.staleSocketRetries++;
      ctx.logger.debug('accounting request repeated on a fresh socket', {
        ...run.log,
        attempt: run.attempt,
        ...outcome.detail,
      });
      continue;
    }
    const delayMs = decision.delayMs ?? backoffMs(ctx, run.attempt);
    const left = ctx.remainingMs?.();
    if (left !== undefined && delayMs >= left) throw outcome.error; // no time to wait for another attempt
    ctx.logger.warn('accounting request retried', {
      ...run.log,
      attempt: run.attempt,
      delayMs,
      reason: decision.reason,
      ...outcome.detail,
    });
    run.attempt++;
    await ctx.clock.sleep(delayMs, x.signal);
  }
}
