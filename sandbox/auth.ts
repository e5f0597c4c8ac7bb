/**
 * The sandbox's authorisation server (OAuth 2.0 client credentials) and credential checks:
 * `Api-Key` header or `Authorization: Bearer <token>`; read-only credentials may not write.
 */
import { randomBytes } from 'node:crypto';
import { companyCredentials } from './company.js';
import { DEMO_CREDENTIALS } from './options.js';

export interface Credential {
  /** A name safe to show in counters and logs (never the secret). */
  name: string;
  readOnly: boolean;
  /** The company (1-based) whose data the credential reads and writes. */
  company: number;
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

/** Company 1's credentials keep the single-company sandbox's names; company k's say `sandbox-k`. */
function credentialName(kind: 'api-key' | 'client', company: number, readOnly: boolean): string {
  if (company === 1) {
    if (kind === 'api-key') return readOnly ? 'api-key:sandbox-readonly' : 'api-key:sandbox';
    return `client:${readOnly ? DEMO_CREDENTIALS.readOnlyClientId : DEMO_CREDENTIALS.clientId}`;
  }
  const c = companyCredentials(company);
  return kind === 'api-key'
    ? `api-key:sandbox-${company}${readOnly ? '-readonly' : ''}`
    : `client:${readOnly ? c.readOnlyClientId : c.clientId}`;
}

/** The company a credential string names (`sandbox-<k>-…`), or 1 for the demo credentials. */
function companyNamed(value: string, companies: number): number | undefined {
  const m = /^sandbox-(\d{1,6})-/.exec(value);
  if (!m) return 1;
  const k = Number(m[1]);
  return k >= 2 && k <= companies ? k : undefined;
}

export class AuthServer {
  private tokens = new Map<string, IssuedToken>();

  constructor(
    private readonly now: () => number,
    public tokenLifetimeSeconds: number,
    private readonly companies = 1,
    /** The one scope a token is issued for (the variant's). */
    private readonly scope: string = DEMO_CREDENTIALS.scope,
  ) {}

  /** The client with this id (any company's), or undefined. */
  private client(id: string): { secret: string; credential: Credential } | undefined {
    const company = companyNamed(id, this.companies);
    if (company === undefined) return undefined;
    const c = companyCredentials(company);
    if (id !== c.clientId && id !== c.readOnlyClientId) return undefined;
    const readOnly = id === c.readOnlyClientId;
    return {
      secret: readOnly ? c.readOnlyClientSecret : c.clientSecret,
      credential: { name: credentialName('client', company, readOnly), readOnly, company },
    };
  }

  /** The credential of an API key (any company's), or undefined. */
  private apiKey(key: string): Credential | undefined {
    const company = companyNamed(key, this.companies);
    if (company === undefined) return undefined;
    const c = companyCredentials(company);
    if (key !== c.apiKey && key !== c.readOnlyApiKey) return undefined;
    const readOnly = key === c.readOnlyApiKey;
    return { name: credentialName('api-key', company, readOnly), readOnly, company };
  }

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
    const client = id ? this.client(id) : undefined;
    if (!client || client.secret !== secret) return fail('unknown client or wrong secret');
    const scope = form.get('scope');
    if (scope !== this.scope) return fail('unknown scope');
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
      const credential = this.apiKey(key);
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

export function openIdConfiguration(authUrl: string, scope: string) {
  return {
    issuer: authUrl,
    token_endpoint: `${authUrl}/connect/token`,
    grant_types_supported: ['client_credentials'],
    scopes_supported: [scope],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    response_types_supported: ['token'],
    claims_supported: ['sub', 'client_id', 'scope'],
  };
}
