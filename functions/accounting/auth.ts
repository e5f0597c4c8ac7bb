/**
 * Credentials on the wire: the `Api-Key` header, or an OAuth client-credentials token
 * (`POST {authUrl}/connect/token`, form encoded) cached until `expires_in` minus a margin.
 * Concurrent callers share one renewal in flight. A 401 answered to a cached token drops it so the
 * next call renews (the client retries such a call once).
 */
import type { Clock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import type { Logger } from '../shared/logger.js';
import type { Credentials } from './config.js';
import { ApiError, AuthenticationError, type RequestInfo, SchemaMismatchError } from './errors.js';
import { fieldPath, oauthErrorSchema, tokenResponseSchema } from './schemas.js';
import { Secret } from './secret.js';

/** A raw answer of the token endpoint, as the client's transport read it. */
export interface TokenHttpResponse {
  status: number;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
}

/** Sends the token request (with the client's transport and retries for 429/5xx/resets). */
export type TokenRequester = (
  url: string,
  form: URLSearchParams,
  signal?: AbortSignal,
) => Promise<TokenHttpResponse>;

export interface AuthHeaders {
  headers: Record<string, string>;
  /** Identity of the credential used (to invalidate exactly that token on a 401). */
  credential: Secret | undefined;
}

export interface Authenticator {
  readonly kind: Credentials['kind'];
  headers(signal?: AbortSignal): Promise<AuthHeaders>;
  /** After a 401: forget `credential` when it is the cached token; `true` when a retry may succeed. */
  unauthorized(credential: Secret | undefined): boolean;
  /** Number of token requests sent so far. */
  tokenRequests(): number;
}

export function createApiKeyAuthenticator(apiKey: Secret): Authenticator {
  return {
    kind: 'apiKey',
    headers: async () => ({ headers: { 'Api-Key': apiKey.reveal() }, credential: apiKey }),
    unauthorized: () => false,
    tokenRequests: () => 0,
  };
}

const ID = ENV.clientId;
const SECRET = ENV.clientSecret;
const SCOPE = ENV.scope;

/** Which settings to check for an OAuth error code. */
export function settingsForOAuthError(code: string | undefined): string[] {
  switch (code) {
    case 'invalid_client':
      return [ID, SECRET];
    case 'invalid_scope':
      return [SCOPE];
    case 'unauthorized_client':
      return [ID, SCOPE];
    default:
      // `unsupported_grant_type` is what the service answers for a wrong secret and for a wrong scope alike.
      return [ID, SECRET, SCOPE];
  }
}

export interface OAuthOptions {
  authUrl: string;
  clientId: Secret;
  clientSecret: Secret;
  scope: string;
  renewMarginSeconds: number;
  clock: Clock;
  logger: Logger;
  request: TokenRequester;
}

interface CachedToken {
  token: Secret;
  /** Epoch ms after which the token is renewed (expiry minus margin). */
  renewAt: number;
}

/** A token answer: the cached token, or the error that names the settings to check. */
function tokenFrom(
  options: OAuthOptions,
  res: TokenHttpResponse,
  req: RequestInfo,
  started: number,
): CachedToken {
  if (res.status >= 200 && res.status < 300) {
    const parsed = tokenResponseSchema.safeParse(res.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SchemaMismatchError(
        req,
        fieldPath(issue?.path ?? []),
        res.json === undefined ? 'expected a JSON token response' : 'expected a token response field',
      );
    }
    const expiresInMs = parsed.data.expires_in * 1000;
    const marginMs = Math.min(options.renewMarginSeconds * 1000, expiresInMs / 2);
    options.logger.info('accounting token acquired', {
      expiresInSeconds: parsed.data.expires_in,
      tokenType: parsed.data.token_type ?? undefined,
    });
    return { token: new Secret(parsed.data.access_token), renewAt: started + expiresInMs - marginMs };
  }
  const oauth = oauthErrorSchema.safeParse(res.json);
  // Only a plain error code is repeated; a description could echo what was sent.
  const code = oauth.success && /^[A-Za-z_]{1,64}$/.test(oauth.data.error) ? oauth.data.error : undefined;
  const settings = settingsForOAuthError(code);
  throw new AuthenticationError(
    `token request refused (${res.status}${code ? ` ${code}` : ''}): check ${settings.join(', ')}`,
    settings,
    code,
    res.status,
  );
}

/** One token request (client credentials, form encoded). */
async function fetchToken(options: OAuthOptions, url: string, req: RequestInfo): Promise<CachedToken> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: options.clientId.reveal(),
    client_secret: options.clientSecret.reveal(),
    scope: options.scope,
  });
  const started = options.clock.now().getTime();
  let res: TokenHttpResponse;
  try {
    res = await options.request(url, form);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new AuthenticationError(
        `token endpoint ${req.path} not found (404): check ${ENV.authUrl}`,
        [ENV.authUrl],
        undefined,
        404,
        { cause: error },
      );
    }
    throw error;
  }
  return tokenFrom(options, res, req, started);
}

export function createOAuthAuthenticator(options: OAuthOptions): Authenticator {
  const url = `${options.authUrl}/connect/token`;
  const req: RequestInfo = { method: 'POST', path: new URL(url).pathname };
  let cached: CachedToken | undefined;
  let inflight: Promise<CachedToken> | undefined;
  let requests = 0;

  return {
    kind: 'oauth',
    tokenRequests: () => requests,
    async headers(signal) {
      const now = options.clock.now().getTime();
      let current = cached;
      if (!current || now >= current.renewAt) {
        if (!inflight) {
          // One renewal for everyone waiting; a caller's abort does not cancel the shared request.
          requests++;
          inflight = fetchToken(options, url, req).finally(() => {
            inflight = undefined;
          });
          inflight.then(
            (t) => {
              cached = t;
            },
            () => {},
          );
        }
        const pending = inflight;
        current = signal ? await abortable(pending, signal) : await pending;
      }
      return { headers: { Authorization: `Bearer ${current.token.reveal()}` }, credential: current.token };
    },
    unauthorized(credential) {
      if (credential && cached?.token === credential) cached = undefined;
      return credential !== undefined;
    },
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function createAuthenticator(
  credentials: Credentials,
  options: Omit<OAuthOptions, 'clientId' | 'clientSecret' | 'scope' | 'authUrl'> & {
    authUrl: string | undefined;
  },
): Authenticator {
  if (credentials.kind === 'apiKey') return createApiKeyAuthenticator(credentials.apiKey);
  if (!options.authUrl) {
    throw new AuthenticationError(`OAuth client credentials need ${ENV.authUrl}`, [ENV.authUrl]);
  }
  return createOAuthAuthenticator({
    ...options,
    authUrl: options.authUrl,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    scope: credentials.scope,
  });
}
