import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblemShape, type Harness, harness, jsonOf } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ tokenLifetimeSeconds: 60 });
});
afterAll(async () => {
  await h.sandbox.close();
});

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${h.sandbox.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

const good = () => ({
  grant_type: 'client_credentials',
  client_id: h.sandbox.credentials.clientId,
  client_secret: h.sandbox.credentials.clientSecret,
  scope: h.sandbox.credentials.scope,
});

describe('section 5: authentication', () => {
  it('refuses requests without credentials with 401 problem details', async () => {
    const res = await fetch(`${h.sandbox.baseUrl}/v1/Activities?PageSize=1&PageNumber=1`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await jsonOf(res);
    expectProblemShape(body, 401);
    expect(body.title).toBe('Unauthorized');
  });

  it('refuses an unknown API key and accepts the demo key', async () => {
    const bad = await h.api('/v1/Activities?PageSize=1&PageNumber=1', { headers: { 'Api-Key': 'nope' } });
    expect(bad.status).toBe(401);
    expect((await h.api('/v1/Activities?PageSize=1&PageNumber=1')).status).toBe(200);
  });

  it('issues a client-credentials token with the documented fields and no refresh token', async () => {
    const res = await token(good());
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(body).toMatchObject({ expires_in: 60, token_type: 'Bearer', scope: 'Service.OpenApi.Access.Sk' });
    expect(typeof body.access_token).toBe('string');
    expect(body.refresh_token).toBeUndefined();
    const list = await fetch(`${h.sandbox.baseUrl}/v1/Banks?PageSize=5&PageNumber=1`, {
      headers: { Authorization: `Bearer ${body.access_token}` },
    });
    expect(list.status).toBe(200);
  });

  it('accepts client credentials sent with HTTP Basic', async () => {
    const { client_id, client_secret, ...rest } = good();
    const basic = Buffer.from(`${client_id}:${client_secret}`).toString('base64');
    const res = await token(rest, { Authorization: `Basic ${basic}` });
    expect(res.status).toBe(200);
  });

  it.each([
    ['a wrong grant type', { grant_type: 'password' }],
    ['a wrong client secret', { client_secret: 'wrong' }],
    ['an unknown client', { client_id: 'someone' }],
    ['a wrong scope', { scope: 'Other.Scope' }],
  ])('answers an OAuth error body for %s', async (_name, patch) => {
    const res = await token({ ...good(), ...patch });
    expect(res.status).toBe(400);
    const body = await jsonOf(res);
    expect(body.error).toBe('unsupported_grant_type');
    expect(body.access_token).toBeUndefined();
  });

  it('expires tokens after expires_in; a new token request gives a working token', async () => {
    const { access_token } = await jsonOf(await token(good()));
    const call = (t: string) =>
      fetch(`${h.sandbox.baseUrl}/v1/Banks?PageSize=1&PageNumber=1`, {
        headers: { Authorization: `Bearer ${t}` },
      });
    expect((await call(access_token)).status).toBe(200);
    h.clock.advance(61_000);
    const expired = await call(access_token);
    expect(expired.status).toBe(401);
    expectProblemShape(await jsonOf(expired), 401);
    const fresh = (await jsonOf(await token(good()))).access_token;
    expect((await call(fresh)).status).toBe(200);
  });

  it('publishes the server configuration document', async () => {
    const res = await fetch(`${h.sandbox.authUrl}/.well-known/openid-configuration`);
    const body = await jsonOf(res);
    expect(body.token_endpoint).toBe(`${h.sandbox.authUrl}/connect/token`);
    expect(body.grant_types_supported).toEqual(['client_credentials']);
  });

  it('lets a read-only credential read but answers 403 to writes', async () => {
    const headers = { 'Api-Key': h.sandbox.credentials.readOnlyApiKey };
    expect((await h.api('/v1/BusinessPartners?PageSize=1&PageNumber=1', { headers })).status).toBe(200);
    const res = await h.api('/v1/BusinessPartners', { method: 'POST', headers, json: { City: 'Nitra' } });
    expect(res.status).toBe(403);
    expectProblemShape(await jsonOf(res), 403);
  });

  it('supports CORS preflight and sets the allow-origin header', async () => {
    const pre = await fetch(`${h.sandbox.baseUrl}/v1/Activities`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Api-Key/);
    const res = await h.api('/v1/Activities?PageSize=1&PageNumber=1');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('section 7: problem details', () => {
  it('uses lower-case keys, an httpstatuses.io type, the reason phrase and a W3C trace id', async () => {
    const cases: [string, RequestInit & { json?: unknown }, number, string][] = [
      ['/v1/BusinessPartners', { method: 'POST', json: { City: 12 } }, 400, 'Bad Request'],
      ['/v1/Activities/00000000-0000-4000-8000-000000000000', {}, 404, 'Not Found'],
      ['/v1/Activities?PageSize=0&PageNumber=1', {}, 422, 'Unprocessable Entity'],
    ];
    for (const [path, init, status, title] of cases) {
      const res = await h.api(path, init);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = await jsonOf(res);
      expectProblemShape(body, status);
      expect(body.title).toBe(title);
      expect(Object.keys(body).every((k) => /^[a-z]/.test(k))).toBe(true);
    }
  });

  it('answers 429 problem details with Retry-After when a credential runs out of requests', async () => {
    h.sandbox.setFaults({ rateLimit: { capacity: 1, refillPerSecond: 1 } });
    try {
      await h.api('/v1/Activities?PageSize=1&PageNumber=1');
      const res = await h.api('/v1/Activities?PageSize=1&PageNumber=1');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = await jsonOf(res);
      expectProblemShape(body, 429);
      expect(body.title).toBe('Too Many Requests');
    } finally {
      h.sandbox.setFaults({ rateLimit: null });
    }
  });

  it('answers 404 for unknown paths and 405 for a wrong method', async () => {
    expect((await h.api('/v1/Nothing')).status).toBe(404);
    const res = await h.api('/v1/Activities', { method: 'PUT', json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});
