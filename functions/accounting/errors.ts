/**
 * Errors of the accounting client. Each sets `name`, keeps `cause`, and is branched on with
 * `instanceof`. Messages carry the method, the path (never the query string), the status and the
 * service's `traceId`; they never carry a credential or a token.
 */

/** Problem details (RFC 7807) as the service sends them, normalised from either key casing. */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  traceId?: string;
  /** Validation errors: property or parameter name → messages. */
  errors?: Record<string, string[]>;
}

export interface RequestInfo {
  method: string;
  /** The request path without its query string. */
  path: string;
}

/** A caller passed an argument the client rejects before sending (e.g. `PageSize` ≤ 0). */
export class InvalidArgumentError extends Error {
  override readonly name = 'InvalidArgumentError';
  constructor(
    readonly argument: string,
    readonly expected: string,
    options?: { cause?: unknown },
  ) {
    super(`invalid argument '${argument}': expected ${expected}`, options);
  }
}

/** Credentials were refused by the token endpoint (or are unusable); names the settings to check. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
  constructor(
    message: string,
    /** The settings to check, e.g. `['ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET']`. */
    readonly settings: readonly string[],
    /** The OAuth `error` code, when the server sent one (`invalid_client`, `unsupported_grant_type`…). */
    readonly oauthError?: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function describe(req: RequestInfo, status?: number, title?: string, traceId?: string): string {
  const parts = [`${req.method} ${req.path}`];
  if (status !== undefined) parts.push(`→ ${status}${title ? ` ${title}` : ''}`);
  if (traceId) parts.push(`(traceId ${traceId})`);
  return parts.join(' ');
}

/** An error of one request; names its method and path (never the query string). */
export abstract class RequestError extends Error {
  readonly method: string;
  readonly path: string;
  constructor(req: RequestInfo, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.method = req.method;
    this.path = req.path;
  }
}

/** The service answered with an error status. */
export class ApiError extends RequestError {
  override readonly name: string = 'ApiError';
  readonly title: string | undefined;
  readonly traceId: string | undefined;
  readonly detail: string | undefined;
  readonly type: string | undefined;
  /** Validation errors (422), property name → messages; empty otherwise. */
  readonly errors: Record<string, string[]>;

  constructor(
    req: RequestInfo,
    readonly status: number,
    problem: ProblemDetails = {},
    options?: { cause?: unknown },
  ) {
    const errors = problem.errors ?? {};
    const details = Object.entries(errors)
      .map(([k, v]) => `${k}: ${v.join(' ')}`)
      .join('; ');
    const suffix = details ? `: ${details}` : problem.detail ? `: ${problem.detail}` : '';
    super(req, `${describe(req, status, problem.title, problem.traceId)}${suffix}`, options);
    this.title = problem.title;
    this.traceId = problem.traceId;
    this.detail = problem.detail;
    this.type = problem.type;
    this.errors = errors;
  }
}

export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
}
export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
}
export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
}
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}
/** 422: `errors` maps property/parameter names to messages. */
export class ValidationError extends ApiError {
  override readonly name = 'ValidationError';
}
/** 429 after the client's own retries (or a `Retry-After` beyond the cap). */
export class RateLimitedError extends ApiError {
  override readonly name = 'RateLimitedError';
  constructor(
    req: RequestInfo,
    status: number,
    problem: ProblemDetails = {},
    /** What the server asked to wait, when it said. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(req, status, problem, options);
  }
}
/** 5xx after the client's own retries. */
export class ServerError extends ApiError {
  override readonly name = 'ServerError';
}

/** Maps a status and its problem details to the most specific `ApiError`. */
export function apiErrorFor(
  req: RequestInfo,
  status: number,
  problem: ProblemDetails,
  retryAfterMs?: number,
): ApiError {
  switch (status) {
    case 400:
      return new BadRequestError(req, status, problem);
    case 401:
      return new UnauthorizedError(req, status, problem);
    case 403:
      return new ForbiddenError(req, status, problem);
    case 404:
      return new NotFoundError(req, status, problem);
    case 422:
      return new ValidationError(req, status, problem);
    case 429:
      return new RateLimitedError(req, status, problem, retryAfterMs);
    default:
      if (status >= 500) return new ServerError(req, status, problem);
      return new ApiError(req, status, problem);
  }
}

/** The connection failed (refused, reset, DNS) before a response arrived. */
export class ConnectionError extends RequestError {
  override readonly name = 'ConnectionError';
  constructor(
    req: RequestInfo,
    /** The low-level code (`ECONNRESET`, `UND_ERR_SOCKET`, `ECONNREFUSED`…). */
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(req, `${describe(req)}: connection failed${code ? ` (${code})` : ''}`, options);
  }
}

/** No response within the per-request deadline. */
export class TimeoutError extends RequestError {
  override readonly name = 'TimeoutError';
  constructor(
    req: RequestInfo,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(req, `${describe(req)}: no response within ${timeoutMs} ms`, options);
  }
}

/**
 * A request with a side effect (create, transfer, command) may have reached the service but no
 * answer came back. It was not repeated: check the domain state (e.g. the order's status) first.
 */
export class OutcomeUnknownError extends RequestError {
  override readonly name = 'OutcomeUnknownError';
  constructor(
    req: RequestInfo,
    readonly operationId: string,
    options?: { cause?: unknown },
  ) {
    const why = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      req,
      `${describe(req)}: outcome unknown for ${operationId} (the request may have been processed; check the domain state before repeating)${why}`,
      options,
    );
  }
}

/** A response body is not what the client relies on: malformed JSON or a missing/mistyped field. */
export class SchemaMismatchError extends RequestError {
  override readonly name = 'SchemaMismatchError';
  constructor(
    req: RequestInfo,
    /** The field path inside the body, e.g. `Items[3].ModificationInfo.ModifiedDate`, or `(body)`. */
    readonly field: string,
    readonly expected: string,
    options?: { cause?: unknown },
  ) {
    super(req, `${describe(req)}: response field '${field}' ${expected}`, options);
  }
}

/** Paging cannot continue safely (e.g. the server ignored `After` and returned the same page again). */
export class PaginationError extends Error {
  override readonly name = 'PaginationError';
  constructor(
    readonly collection: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${collection}: ${message}`, options);
  }
}
