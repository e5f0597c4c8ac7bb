/**
 * The sandbox's authorisation server (OAuth 2.0 client credentials) and credential checks:
 * `Api-Key` header or `Authorization: Bearer <token>`; read-only credentials may not write.
 */
import { randomBytes } from 'node:crypto';
import { DEMO_CREDENTIALS } from './options.js';

export interface Credential {
  /** A name safe to show in counters and logs (never the secret). */
  name: string;
  readOnly: boolean;
}

interface IssuedToken {
  credential: Credential;
  expiresAt: number;
}

export type AuthResult =
  | { ok: true; credential: Credential }
  | { ok: false; status: 401; reason: 'missing' | 'invalid' | 'expired' };

export type TokenResult =
  | { ok: true; body: { access_token: string; expires_in: number; token_type: 'Bearer'; scope: string } }
  | { ok: false; status: number; body: { error: string; error_description: string } };

const clients: Record<string, { secret: string; credential: Credential }> = {
  [DEMO_CREDENTIALS.clientId]: {
    secret: DEMO_CREDENTIALS.clientSecret,
    credential: { name: `client:${DEMO_CREDENTIALS.clientId}`, readOnly: false },
  },
  [DEMO_CREDENTIALS.readOnlyClientId]: {
    secret: DEMO_CREDENTIALS.readOnlyClientSecret,
    credential: { name: `client:${DEMO_CREDENTIALS.readOnlyClientId}`, readOnly: true },
  },
};

const apiKeys: Record<string, Credential> = {
  [DEMO_CREDENTIALS.apiKey]: { name: 'api-key:sandbox', readOnly: false },
  [DEMO_CREDENTIALS.readOnlyApiKey]: { name: 'api-key:sandbox-readonly', readOnly: true },
};

export class AuthServer {
  private tokens = new Map<string, IssuedToken>();

  constructor(
    private readonly now: () => number,
    public tokenLifetimeSeconds: number,
  ) {}

  /** Handles a token request form (`application/x-www-form-urlencoded`), with optional Basic auth. */
  token(form: URLSearchParams, basic?: { id: string; secret: string }): TokenResult {
    // The public documentation shows `unsupported_grant_type` for a wrong grant, secret and scope alike.
    const fail = (description: string): TokenResult => ({
      ok: false,
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: description },
    });
    if (form.get('grant_type') !== 'client_credentials') return fail('only client_credentials is supported');
    const id = form.get('client_id') ?? basic?.id;
    const secret = form.get('client_secret') ?? basic?.secret;
    const client = id ? clients[id] : undefined;
    if (!client || client.secret !== secret) return fail('unknown client or wrong secret');
    const scope = form.get('scope');
    if (scope !== DEMO_CREDENTIALS.scope) return fail('unknown scope');
    const accessToken = `sbx.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(accessToken, {
      credential: client.credential,
      expiresAt: this.now() + this.tokenLifetimeSeconds * 1000,
    });
    this.prune();
    return {
      ok: true,
      body: { access_token: accessToken, expires_in: this.tokenLifetimeSeconds, token_type: 'Bearer', scope },
    };
  }

  /** Identifies the credential of a request without counting it as valid (for rate limits). */
  authenticate(headers: Record<string, string | string[] | undefined>): AuthResult {
    const key = headers['api-key'];
    if (typeof key === 'string' && key !== '') {
      const credential = apiKeys[key];
      return credential ? { ok: true, credential } : { ok: false, status: 401, reason: 'invalid' };
    }
    const authorization = headers.authorization;
    if (typeof authorization === 'string') {
      const m = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!m) return { ok: false, status: 401, reason: 'invalid' };
      const token = this.tokens.get(m[1] as string);
      if (!token) return { ok: false, status: 401, reason: 'invalid' };
      if (token.expiresAt <= this.now()) return { ok: false, status: 401, reason: 'expired' };
      return { ok: true, credential: token.credential };
    }
    return { ok: false, status: 401, reason: 'missing' };
  }

  reset(): void {
    this.tokens.clear();
  }

  private prune(): void {
    if (this.tokens.size < 10_000) return;
    const now = this.now();
    for (const [t, v] of this.tokens) if (v.expiresAt <= now) this.tokens.delete(t);
  }
}

export function openIdConfiguration(authUrl: string) {
  return {
    issuer: authUrl,
    token_endpoint: `${authUrl}/connect/token`,
    grant_types_supported: ['client_credentials'],
    scopes_supported: [DEMO_CREDENTIALS.scope],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    response_types_supported: ['token'],
    claims_supported: ['sub', 'client_id', 'scope'],
  };
}
