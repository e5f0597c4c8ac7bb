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
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import type {
  AccountingApi,
  ApiRecord,
  CallInput,
  CollectionMethods,
  Download,
  ListOptions,
  NotReady,
} from './api.js';
import { type Authenticator, createAuthenticator, type TokenHttpResponse } from './auth.js';
import {
  type CallContext,
  callOperation,
  createRecord,
  download,
  getRecord,
  invoke,
  listPages,
} from './calls.js';
import type { CollectionName } from './collections.js';
import type { AccountingConfig } from './config.js';
import { createConnectionPool } from './connection-pool.js';
import { type OperationSpec, resolveOperations } from './endpoints.js';
import { type Exchange, type ExchangeContext, exchange } from './exchange.js';
import { operationMethods } from './operation-methods.js';
import { items as itemsOf } from './pagination.js';
import { createReloadableAuth } from './reloadable-auth.js';
import type { RequestLimiter } from './request-limiter.js';
import { MAX_ERROR_BODY, parseJsonOrUndefined, readText } from './responses.js';

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
  /** The connection's rate limit: waited on before every attempt, told of every 429's `Retry-After`. */
  limiter?: RequestLimiter;
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
  /** Any JSON operation of the catalog by id, its answer unparsed (tools and tests; the product uses the typed methods). */
  call<T = unknown>(operationId: string, input?: CallInput): Promise<T>;
  /** Any file export of the catalog by id (tools and tests); `NotReady` on 204. */
  download(operationId: string, input?: CallInput): Promise<Download | NotReady>;
  stats(): ClientStats;
  /** Closes the client's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

/** The token request: a form POST without credentials, whose error statuses `auth.ts` maps. */
function tokenExchange(
  url: string,
  form: URLSearchParams,
  signal?: AbortSignal,
): Exchange<TokenHttpResponse> {
  return {
    operationId: 'token',
    kind: 'read', // asking for a token again is harmless
    method: 'POST',
    url: new URL(url),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: form.toString(),
    signal,
    ownStatuses: new Set([400, 401, 403]),
    consume: async (res) => {
      const text = await readText(res, MAX_ERROR_BODY);
      return { status: res.status, json: parseJsonOrUndefined(text) };
    },
  };
}

function exchangeContext(config: AccountingConfig, deps: ClientDeps): ExchangeContext {
  const clock = deps.clock ?? systemClock;
  return {
    config,
    clock,
    logger: deps.logger ?? silentLogger,
    random: deps.random ?? Math.random,
    remainingMs: deps.remainingMs,
    limiter: deps.limiter,
    pool: createConnectionPool({ ...config, clock, injected: deps.dispatcher }),
    counters: { requests: 0, retries: 0, rateLimited: 0, serverErrors: 0, staleSocketRetries: 0 },
  };
}

const signalOf = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

/** The typed methods of the per-collection operations, over the client's calls. */
function collectionMethods(c: CallContext): CollectionMethods {
  return {
    listPages: <T extends ApiRecord = ApiRecord>(collection: CollectionName, options?: ListOptions) =>
      listPages<T>(c, collection, options),
    listItems: <T extends ApiRecord = ApiRecord>(collection: CollectionName, options?: ListOptions) => ({
      [Symbol.asyncIterator]: () => itemsOf(listPages<T>(c, collection, options)),
    }),
    get: <T extends ApiRecord = ApiRecord>(collection: CollectionName, id: string, signal?: AbortSignal) =>
      getRecord<T>(c, collection, id, signal),
    pdf: ({ collection, id, language, signal }) =>
      download(c, `${collection}.pdf`, {
        params: { id },
        ...(language ? { query: { Language: language } } : {}),
        ...signalOf(signal),
      }),
    isdoc: ({ collection, id, signal }) =>
      download(c, `${collection}.isdoc`, { params: { id }, ...signalOf(signal) }),
    importDocument: ({ collection, body, signal }) =>
      createRecord(c, `${collection}.create`, { body, ...signalOf(signal) }),
  };
}

export function createAccountingClient(config: AccountingConfig, deps: ClientDeps = {}): AccountingClient {
  const ctx = exchangeContext(config, deps);
  const authFor = (credentials: AccountingConfig['credentials']): Authenticator =>
    createAuthenticator(credentials, {
      authUrl: config.authUrl,
      renewMarginSeconds: config.tokenRenewMarginSeconds,
      clock: ctx.clock,
      logger: ctx.logger,
      request: (url, form, signal) => exchange(ctx, tokenExchange(url, form, signal)),
    });
  const auth = createReloadableAuth(authFor(config.credentials), authFor, ctx.logger, deps.reloadCredentials);
  const c: CallContext = {
    config,
    ops: resolveOperations(config.variant, config.pathOverrides),
    exchange: ctx,
    auth,
  };
  return {
    operations: c.ops,
    ...operationMethods((operationId, input) => invoke(c, operationId, input)),
    ...collectionMethods(c),
    create: <T extends ApiRecord = ApiRecord>(operationId: string, input?: CallInput) =>
      createRecord<T>(c, operationId, input),
    call: <T = unknown>(operationId: string, input?: CallInput) => callOperation<T>(c, operationId, input),
    download: (operationId: string, input?: CallInput) => download(c, operationId, input),
    stats: () => ({
      ...ctx.counters,
      connectionRefreshes: ctx.pool.refreshes(),
      tokenRequests: auth.tokenRequests(),
      credentialReloads: auth.reloads(),
    }),
    close: () => ctx.pool.close(),
  };
}
