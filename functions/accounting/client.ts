/**
 * The accounting-service client: implements `AccountingApi` over undici's keep-alive agent.
 *
 * Retries live here and only here:
 * - reads (GET) on 429 (honouring `Retry-After`, seconds or HTTP date, up to `retryAfterMaxMs`),
 *   502/503/504, connection resets and deadlines, with exponential backoff and full jitter, at most
 *   `maxAttempts` attempts;
 * - a request on a stale keep-alive socket (reset before any response) is repeated once at once;
 * - requests with a side effect (`create`, `transfer`, `command`) are repeated only when they surely
 *   did not reach the service (connect failure, 429, 401 with a renewed token). Once they may have
 *   reached it (reset, deadline, 5xx, a lost body) the call ends with `OutcomeUnknownError`;
 * - a 401 with a cached OAuth token renews the token once and retries once;
 * - a 401 the credentials in use cannot fix (API key, fresh token) or a refused token request reads
 *   the credentials again (`reloadCredentials`, once per call) and repeats the request once.
 */
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import type { Logger } from '../shared/logger.js';
import { redactText, silentLogger } from '../shared/logger.js';
import { readStream } from '../shared/read-stream.js';
import type {
  AccountingApi,
  ApiRecord,
  CallInput,
  Created,
  Download,
  ListOptions,
  NotReady,
  Page,
  Warning,
} from './api.js';
import { type Authenticator, createAuthenticator, type TokenHttpResponse } from './auth.js';
import { type CollectionName, type CollectionSpec, findCollection } from './collections.js';
import type { AccountingConfig } from './config.js';
import { buildPath, type OperationSpec, resolveOperations } from './endpoints.js';
import {
  ApiError,
  AuthenticationError,
  apiErrorFor,
  ConnectionError,
  InvalidArgumentError,
  OutcomeUnknownError,
  type ProblemDetails,
  type RequestInfo,
  SchemaMismatchError,
  TimeoutError,
} from './errors.js';
import { items as itemsOf, paginate, type RawPage } from './pagination.js';
import { isRecordId, RECORD_ID_EXPECTED } from './record-id.js';
import { createReloadableAuth } from './reloadable-auth.js';
import { requestSchemaFor } from './request-bodies.js';
import { type AttemptFailure, decideRetry } from './retry-policy.js';
import {
  createdEnvelopeSchema,
  expectedOf,
  fieldPath,
  listEnvelopeSchema,
  recordSchemaFor,
  toProblemDetails,
} from './schemas.js';
import { createAgent, type RawResponse, send, TransportFailure } from './transport.js';

export interface ClientDeps {
  clock?: Clock;
  logger?: Logger;
  /** An undici dispatcher (e.g. `MockAgent`, a shared `Agent`); default: the client's own keep-alive agent. */
  dispatcher?: Dispatcher;
  /** Random source in [0, 1) for the backoff jitter. */
  random?: () => number;
  /**
   * Reads the credentials again (e.g. the secret, past its cache). Called once after an
   * authentication failure the current credentials cannot fix; the request is then repeated once.
   */
  reloadCredentials?: () => Promise<AccountingConfig['credentials']>;
  /**
   * Time left for the work this client serves (a Lambda invocation minus a margin), or `undefined`
   * for no bound. No attempt starts, and no backoff waits, past it; each attempt's deadline is the
   * smaller of `requestTimeoutMs` and what is left.
   */
  remainingMs?: () => number | undefined;
}

/** A type alias (not an interface) so it can be logged as `Record<string, unknown>`. */
export type ClientStats = {
  /** HTTP requests sent to the service (token requests included). */
  requests: number;
  /** Requests repeated by the retry policy (stale-socket and 401 repeats included). */
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
  /** 5xx answers received. */
  serverErrors: number;
  tokenRequests: number;
  /** Times the credentials were read again after an authentication failure. */
  credentialReloads: number;
  staleSocketRetries: number;
  /** Times the pooled connections were replaced after a long idle. */
  connectionRefreshes: number;
};

export interface AccountingClient extends AccountingApi {
  /** The catalog in use (with configured path overrides). */
  readonly operations: ReadonlyMap<string, OperationSpec>;
  stats(): ClientStats;
  /** Closes the client's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

type Kind = OperationSpec['kind'];
const SIDE_EFFECT: ReadonlySet<Kind> = new Set<Kind>(['create', 'transfer', 'command']);
/** Pooled sockets idle longer than this are not trusted after a pause (undici closes them at this age too). */
const KEEP_ALIVE_MS = 4_000;
const MAX_ERROR_BODY = 64 * 1024;

interface Exchange<T> {
  operationId: string;
  kind: Kind;
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal | undefined;
  authenticate: boolean;
  /** Statuses the caller maps itself (token endpoint errors). */
  ownStatuses?: ReadonlySet<number>;
  /** Reads a 2xx (or own-status) response; runs inside the retry loop. */
  consume(res: RawResponse, req: RequestInfo): Promise<T>;
}

/** Where one exchange stands between attempts. */
interface ExchangeRun {
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

export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const s = raw.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number.parseFloat(s) * 1000);
  const at = Date.parse(s);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

function header(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readText(res: RawResponse, limit = Number.POSITIVE_INFINITY): Promise<string> {
  return (await readStream(res.body, { maxBytes: limit, truncate: true })).toString('utf8');
}

async function discard(res: RawResponse): Promise<void> {
  try {
    await readText(res, MAX_ERROR_BODY);
  } catch {
    // the body of an answer we do not use
  } finally {
    res.done();
  }
}

function parseJson(text: string, req: RequestInfo): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SchemaMismatchError(req, '(body)', 'is not valid JSON', { cause: error });
  }
}

/** An error or token body: JSON when it parses, else `undefined` (gateway pages, plain text). */
function parseJsonOrUndefined(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function validate<S extends z.ZodType>(schema: S, value: unknown, req: RequestInfo): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new SchemaMismatchError(req, '(body)', 'is invalid');
  throw new SchemaMismatchError(req, fieldPath(issue.path), expectedOf(issue));
}

/** Problem details may echo what was sent: every string passes the secret redactor. */
function scrub(problem: ProblemDetails): ProblemDetails {
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

export function createAccountingClient(config: AccountingConfig, deps: ClientDeps = {}): AccountingClient {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? silentLogger;
  const random = deps.random ?? Math.random;
  const ops = resolveOperations(config.variant, config.pathOverrides);
  const ownsDispatcher = deps.dispatcher === undefined;
  const newAgent = () =>
    createAgent({
      connectTimeoutMs: config.connectTimeoutMs,
      bodyTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
    });
  let dispatcher: Dispatcher = deps.dispatcher ?? newAgent();
  let lastActivity = 0;
  const counters = {
    requests: 0,
    retries: 0,
    rateLimited: 0,
    serverErrors: 0,
    staleSocketRetries: 0,
    connectionRefreshes: 0,
  };

  /**
   * After a long idle (a thawed Lambda) the pooled sockets may all be dead while undici's own idle
   * timers have not fired yet: start over with fresh connections, so no request (above all no side
   * effect, which must not be repeated) is sent on a socket the server already closed.
   */
  const dispatcherFor = (): Dispatcher => {
    const now = clock.now().getTime();
    if (ownsDispatcher && lastActivity > 0 && now - lastActivity > KEEP_ALIVE_MS) {
      counters.connectionRefreshes++;
      const old = dispatcher;
      dispatcher = newAgent();
      old.close().catch(() => {});
    }
    return dispatcher;
  };

  const backoffMs = (attempt: number) =>
    Math.floor(random() * Math.min(config.retryMaxDelayMs, config.retryBaseDelayMs * 2 ** (attempt - 1)));

  const tokenRequest = (url: string, form: URLSearchParams, signal?: AbortSignal) =>
    exchange<TokenHttpResponse>({
      operationId: 'token',
      kind: 'read', // asking for a token again is harmless
      method: 'POST',
      url: new URL(url),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: form.toString(),
      signal,
      authenticate: false,
      ownStatuses: new Set([400, 401, 403]),
      consume: async (res) => {
        const text = await readText(res, MAX_ERROR_BODY);
        return { status: res.status, json: parseJsonOrUndefined(text) };
      },
    });

  const authFor = (credentials: AccountingConfig['credentials']): Authenticator =>
    createAuthenticator(credentials, {
      authUrl: config.authUrl,
      renewMarginSeconds: config.tokenRenewMarginSeconds,
      clock,
      logger,
      request: tokenRequest,
    });
  const auths = createReloadableAuth(authFor(config.credentials), authFor, logger, deps.reloadCredentials);

  /** One re-read of the credentials per exchange, after an authentication failure. */
  async function reloadOnce(run: ExchangeRun): Promise<boolean> {
    if (run.reloaded || !(await auths.reload())) return false;
    run.reloaded = true;
    counters.retries++;
    return true;
  }

  async function authHeaders(x: Exchange<unknown>, run: ExchangeRun) {
    try {
      return await auths.current().headers(x.signal);
    } catch (error) {
      if (error instanceof AuthenticationError && (await reloadOnce(run)))
        return auths.current().headers(x.signal);
      throw error;
    }
  }

  /** A failed send: its kind for the retry policy and the error to throw if the policy gives up. */
  function transportFailure(error: unknown, x: Exchange<unknown>, req: RequestInfo, logData: object): Failed {
    if (!(error instanceof TransportFailure)) throw error;
    if (error.kind === 'aborted') throw x.signal?.reason ?? error.cause;
    const failure =
      error.kind === 'timeout'
        ? new TimeoutError(req, config.requestTimeoutMs, { cause: error.cause })
        : new ConnectionError(req, error.code, { cause: error.cause });
    logger.debug('accounting request failed', { ...logData, failure: error.kind, code: error.code });
    return {
      failure: { kind: 'transport', transport: error.kind },
      error: failure,
      detail: { code: error.code },
    };
  }

  /** A 2xx (or own-status) answer read by the caller; a body that breaks off is a failure. */
  async function consumed<T>(
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
        ? new TimeoutError(req, config.requestTimeoutMs, { cause: error })
        : new ConnectionError(req, (error as { code?: string }).code, { cause: error });
      return { failure: { kind: 'body' }, error: failure, detail: {} };
    }
  }

  /** An error status: its problem details (scrubbed) as a typed error. */
  async function statusFailure(x: Exchange<unknown>, res: RawResponse, req: RequestInfo): Promise<Failed> {
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
    if (res.status === 401 && x.authenticate && !problem.detail) {
      problem.detail =
        auths.current().kind === 'apiKey'
          ? `the service refused the API key: check ${ENV.apiKey}`
          : `the service refused a fresh token: check ${ENV.clientId}, ${ENV.clientSecret}, ${ENV.scope}`;
    }
    const retryAfterMs =
      res.status === 429 ? parseRetryAfter(res.headers['retry-after'], clock.now()) : undefined;
    if (res.status === 429) counters.rateLimited++;
    if (res.status >= 500) counters.serverErrors++;
    return {
      failure: {
        kind: 'status',
        status: res.status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
      error: apiErrorFor(req, res.status, problem, retryAfterMs),
      detail: { status: res.status, traceId: problem.traceId },
    };
  }

  /** One attempt: the caller's value, a repeat after a renewed token, or a failure for the policy. */
  async function attemptOnce<T>(x: Exchange<T>, req: RequestInfo, run: ExchangeRun): Promise<Attempt<T>> {
    const logData = { ...run.log, attempt: run.attempt };
    const left = deps.remainingMs?.();
    // Out of time before sending: nothing reached the service, so this is no unknown outcome.
    if (left !== undefined && left <= 0) throw new TimeoutError(req, 0);
    const credential = x.authenticate ? await authHeaders(x, run) : undefined;
    const started = Date.now();
    counters.requests++;
    let res: RawResponse;
    try {
      res = await send(dispatcherFor(), {
        method: x.method,
        url: x.url,
        headers: { 'User-Agent': 'accounting-events', ...x.headers, ...credential?.headers },
        ...(x.body !== undefined ? { body: x.body } : {}),
        timeoutMs: left === undefined ? config.requestTimeoutMs : Math.min(config.requestTimeoutMs, left),
        ...(x.signal ? { signal: x.signal } : {}),
      });
    } catch (error) {
      return transportFailure(error, x, req, logData);
    }
    lastActivity = clock.now().getTime();
    logger.debug('accounting response', { ...logData, status: res.status, durationMs: Date.now() - started });
    if (
      res.status === 401 &&
      credential &&
      !run.authRetried &&
      auths.current().unauthorized(credential.credential)
    ) {
      await discard(res);
      run.authRetried = true;
      counters.retries++;
      logger.info('accounting token rejected, renewing', run.log);
      return { repeat: true };
    }
    if (res.status === 401 && credential && (await reloadOnce(run))) {
      await discard(res);
      return { repeat: true };
    }
    if ((res.status >= 200 && res.status < 300) || x.ownStatuses?.has(res.status))
      return consumed(x, res, req);
    return statusFailure(x, res, req);
  }

  /** Attempts until a value, acting on the retry policy's decision after each failure. */
  async function exchange<T>(x: Exchange<T>): Promise<T> {
    const req: RequestInfo = { method: x.method, path: x.url.pathname };
    const sideEffect = SIDE_EFFECT.has(x.kind);
    const run: ExchangeRun = {
      log: { operation: x.operationId, method: x.method, path: req.path },
      attempt: 1,
      staleRetried: false,
      authRetried: false,
      reloaded: false,
    };
    for (;;) {
      const outcome = await attemptOnce(x, req, run);
      if ('value' in outcome) return outcome.value;
      if ('repeat' in outcome) continue;
      const decision = decideRetry(outcome.failure, {
        attempt: run.attempt,
        maxAttempts: config.maxAttempts,
        sideEffect,
        staleRetried: run.staleRetried,
        retryAfterMaxMs: config.retryAfterMaxMs,
      });
      if (decision.action === 'fail') throw outcome.error;
      if (decision.action === 'outcomeUnknown') {
        throw new OutcomeUnknownError(req, x.operationId, { cause: outcome.error });
      }
      counters.retries++;
      if (decision.action === 'repeatNow') {
        run.staleRetried = true;
        counters.staleSocketRetries++;
        logger.debug('accounting request repeated on a fresh socket', {
          ...run.log,
          attempt: run.attempt,
          ...outcome.detail,
        });
        continue;
      }
      const delayMs = decision.delayMs ?? backoffMs(run.attempt);
      const left = deps.remainingMs?.();
      if (left !== undefined && delayMs >= left) throw outcome.error; // no time to wait for another attempt
      logger.warn('accounting request retried', {
        ...run.log,
        attempt: run.attempt,
        delayMs,
        reason: decision.reason,
        ...outcome.detail,
      });
      run.attempt++;
      await clock.sleep(delayMs, x.signal);
    }
  }

  const operation = (operationId: string): OperationSpec => {
    const op = ops.get(operationId);
    if (!op)
      throw new InvalidArgumentError(
        'operationId',
        `an operation of the endpoint catalog, not '${operationId}'`,
      );
    return op;
  };

  const urlFor = (op: OperationSpec, input: CallInput = {}): URL => {
    let path: string;
    try {
      path = buildPath(op.path, input.params);
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw error;
      throw new InvalidArgumentError('params', `the path parameters of ${op.id} (${op.path})`, {
        cause: error,
      });
    }
    const url = new URL(config.baseUrl + path);
    for (const [k, v] of Object.entries(input.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    return url;
  };

  /** A body the variant's DTO refuses never leaves: the error names the first bad field. */
  const checkBody = (op: OperationSpec, body: unknown) => {
    const schema = requestSchemaFor(config.variant, op.id);
    if (!schema || body === undefined) return;
    const parsed = schema.safeParse(body);
    if (parsed.success) return;
    const issue = parsed.error.issues[0];
    const where = issue ? fieldPath(issue.path) : '(body)';
    const what = issue
      ? issue.code === 'unrecognized_keys'
        ? 'no property the DTO lacks'
        : expectedOf(issue)
      : '';
    throw new InvalidArgumentError('body', `a request body of ${op.id} (${where}: ${what})`, {
      cause: parsed.error,
    });
  };

  const jsonExchange = <T>(
    op: OperationSpec,
    input: CallInput,
    consume: (value: unknown, req: RequestInfo, status: number, res: RawResponse) => T,
  ): Promise<T> => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    let body: string | undefined;
    checkBody(op, input.body);
    if (input.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    return exchange({
      operationId: op.id,
      kind: op.kind,
      method: op.method,
      url: urlFor(op, input),
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: input.signal,
      authenticate: true,
      consume: async (res, req) => {
        const text = await readText(res);
        res.done();
        return consume(parseJson(text, req), req, res.status, res);
      },
    });
  };

  const collectionSpec = (collection: string): CollectionSpec => {
    const spec = findCollection(collection, config.variant);
    if (!spec || spec.name !== collection) {
      throw new InvalidArgumentError(
        'collection',
        `a collection of the ${config.variant} catalog, not '${collection}'`,
      );
    }
    return spec;
  };

  function listPages<T extends ApiRecord = ApiRecord>(
    collection: CollectionName,
    options: ListOptions = {},
  ): AsyncIterable<Page<T>> {
    const spec = collectionSpec(collection);
    const op = operation(`${spec.name}.list`);
    const envelope = listEnvelopeSchema(recordSchemaFor(spec));
    return {
      [Symbol.asyncIterator]: () =>
        paginate<T>(spec, options, config.pageSize, (query, signal) =>
          jsonExchange(
            op,
            { query, ...(signal ? { signal } : {}) },
            (value, req, _status, res): RawPage<T> => {
              const page = validate(envelope, value, req);
              const date = Date.parse(header(res, 'date') ?? '');
              return {
                items: page.Items as T[],
                totalItemCount: page.TotalItemCount ?? undefined,
                appliedPageSize: page.Pagination?.PageSize ?? undefined,
                ...(Number.isNaN(date) ? {} : { serverTime: new Date(date).toISOString() }),
              };
            },
          ),
        ),
    };
  }

  const client: AccountingClient = {
    operations: ops,
    listPages,
    listItems<T extends ApiRecord = ApiRecord>(collection: CollectionName, options?: ListOptions) {
      return { [Symbol.asyncIterator]: () => itemsOf(listPages<T>(collection, options)) };
    },
    async get<T extends ApiRecord = ApiRecord>(collection: CollectionName, id: string, signal?: AbortSignal) {
      const spec = collectionSpec(collection);
      if (!spec.getById)
        throw new InvalidArgumentError('collection', `a collection with get by id (${spec.name} has none)`);
      if (!isRecordId(id)) throw new InvalidArgumentError('id', RECORD_ID_EXPECTED);
      const op = operation(`${spec.name}.get`);
      return jsonExchange(
        op,
        { params: { id }, ...(signal ? { signal } : {}) },
        (value, req) => validate(recordSchemaFor(spec), value, req) as T,
      );
    },
    async create<T extends ApiRecord = ApiRecord>(
      operationId: string,
      input: CallInput = {},
    ): Promise<Created<T>> {
      const op = operation(operationId);
      if (op.method === 'GET')
        throw new InvalidArgumentError('operationId', `an operation that creates (${op.id} reads)`);
      return jsonExchange(op, input, (value, req) => {
        if (value === undefined) return { data: null, warnings: [] };
        const created = validate(createdEnvelopeSchema, value, req);
        return {
          data: (created.Data ?? null) as T | null,
          warnings: (created.Warnings ?? []).map(
            (w): Warning => ({ Code: w.Code, Message: w.Message ?? '' }),
          ),
        };
      });
    },
    async call<T = unknown>(operationId: string, input: CallInput = {}): Promise<T> {
      const op = operation(operationId);
      if (op.kind === 'binary')
        throw new InvalidArgumentError('operationId', `a JSON operation (${op.id} is a file: use download)`);
      return jsonExchange(op, input, (value) => value as T);
    },
    async download(operationId: string, input: CallInput = {}): Promise<Download | NotReady> {
      const op = operation(operationId);
      if (op.kind !== 'binary')
        throw new InvalidArgumentError('operationId', `a file export (${op.id} is not)`);
      const query = { ...input.query };
      if (op.id.endsWith('.pdf') && query.Language === undefined) query.Language = 'Current';
      return exchange<Download | NotReady>({
        operationId: op.id,
        kind: op.kind,
        method: op.method,
        url: urlFor(op, { ...input, query }),
        headers: {
          Accept: op.id.endsWith('.pdf')
            ? 'application/pdf'
            : 'application/xml, application/octet-stream, */*',
        },
        signal: input.signal,
        authenticate: true,
        consume: async (res) => {
          if (res.status === 204) {
            await discard(res);
            return { notReady: true };
          }
          // The deadline covered the wait for headers; the stream is bounded by the idle body timeout.
          res.done();
          const length = header(res, 'content-length');
          const contentLength = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
          return {
            body: res.body,
            contentType: header(res, 'content-type') ?? 'application/octet-stream',
            ...(contentLength !== undefined ? { contentLength } : {}),
          };
        },
      });
    },
    stats: () => ({ ...counters, tokenRequests: auths.tokenRequests(), credentialReloads: auths.reloads() }),
    async close() {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
  return client;
}
