import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { AuthenticationError, SchemaMismatchError, UnauthorizedError } from '#functions/accounting/errors.js';
import { createManualClock } from '#functions/shared/clock.js';
import {
  apiKeyConfig,
  oauthConfig,
  TEST_API_KEY,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
} from '../fakes/accounting-config.js';
import { problem, useFakeServer } from '../fakes/accounting-server.js';

const record = { Id: '11111111-1111-1111-1111-111111111111', Name: 'Bank', Extra: { kept: true } };

describe('accounting client authentication', () => {
  const server = useFakeServer();

  it('sends the Api-Key header and keeps unknown fields', async () => {
    server.route('GET', `/v1/Banks/${record.Id}`, { body: record });
    const client = createAccountingClient(apiKeyConfig(server.url));
    const got = await client.get('Banks', record.Id);
    expect(got).toEqual(record);
    expect(server.requests[0]?.headers['api-key']).toBe(TEST_API_KEY);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    await client.close();
  });

  it('gets an OAuth token with a client-credentials form and uses it as a bearer token', async () => {
    server.route('POST', '/auth/connect/token', {
      body: { access_token: 'tok-1-abcdefgh', expires_in: 3600, token_type: 'Bearer' },
    });
    server.route('GET', `/v1/Banks/${record.Id}`, { body: record });
    const client = createAccountingClient(oauthConfig(server.url));
    await client.get('Banks', record.Id);
    const [token, call] = server.requests;
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token?.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: TEST_CLIENT_ID,
      client_secret: TEST_CLIENT_SECRET,
      scope: 'Service.OpenApi.Access.Sk',
    });
    expect(call?.headers.authorization).toBe('Bearer tok-1-abcdefgh');
    await client.close();
  });

  it('shares one token request among many concurrent calls', async () => {
    server.route('POST', '/auth/connect/token', async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { body: { access_token: 'tok-shared-123456', expires_in: 3600 } };
    });
    server.route('GET', /^\/v1\/Banks\/.+/, { body: record });
    const client = createAccountingClient(oauthConfig(server.url));
    await Promise.all(Array.from({ length: 25 }, () => client.get('Banks', record.Id)));
    expect(server.hits('POST', '/auth/connect/token')).toHaveLength(1);
    expect(server.hits('GET', /^\/v1\/Banks/)).toHaveLength(25);
    expect(client.stats().tokenRequests).toBe(1);
    await client.close();
  });

  it('renews the token when it reaches expires_in minus the margin', async () => {
    let n = 0;
    server.route('POST', '/auth/connect/token', () => ({
      body: { access_token: `tok-${++n}-abcdefgh`, expires_in: 600 },
    }));
    server.route('GET', /^\/v1\/Banks\/.+/, { body: record });
    const clock = createManualClock();
    const client = createAccountingClient(oauthConfig(server.url, { tokenRenewMarginSeconds: 60 }), {
      clock,
    });
    await client.get('Banks', record.Id);
    clock.advance(539_000);
    await client.get('Banks', record.Id);
    expect(n).toBe(1);
    clock.advance(1_000); // 540 s = 600 - 60
    await client.get('Banks', record.Id);
    expect(n).toBe(2);
    const auths = server.hits('GET', /^\/v1\/Banks/).map((r) => r.headers.authorization);
    expect(auths).toEqual(['Bearer tok-1-abcdefgh', 'Bearer tok-1-abcdefgh', 'Bearer tok-2-abcdefgh']);
    await client.close();
  });

  it('on a 401 with a cached token renews once and retries once', async () => {
    let n = 0;
    server.route('POST', '/auth/connect/token', () => ({
      body: { access_token: `tok-${++n}-abcdefgh`, expires_in: 3600 },
    }));
    server.route('GET', /^\/v1\/Banks\/.+/, (req) =>
      req.headers.authorization === 'Bearer tok-1-abcdefgh' ? problem(401) : { body: record },
    );
    const client = createAccountingClient(oauthConfig(server.url));
    await expect(client.get('Banks', record.Id)).resolves.toEqual(record);
    expect(n).toBe(2);
    expect(server.hits('GET', /^\/v1\/Banks/)).toHaveLength(2);
    await client.close();
  });

  it('renews once for many concurrent calls refused with 401', async () => {
    let n = 0;
    server.route('POST', '/auth/connect/token', async () => {
      await new Promise((r) => setTimeout(r, 10));
      return { body: { access_token: `tok-${++n}-abcdefgh`, expires_in: 3600 } };
    });
    server.route('GET', /^\/v1\/Banks\/.+/, { body: record });
    const client = createAccountingClient(oauthConfig(server.url));
    await client.get('Banks', record.Id); // caches tok-1
    // The service stops accepting tok-1 (e.g. revoked before its expiry).
    server.route('GET', /^\/v1\/Banks\/.+/, (req) =>
      req.headers.authorization === 'Bearer tok-1-abcdefgh' ? problem(401) : { body: record },
    );
    const results = await Promise.all(Array.from({ length: 10 }, () => client.get('Banks', record.Id)));
    expect(results).toHaveLength(10);
    expect(n).toBe(2);
    expect(server.hits('GET', /^\/v1\/Banks/)).toHaveLength(21);
    await client.close();
  });

  it('treats a malformed token answer as SchemaMismatchError and a refused renewal as AuthenticationError', async () => {
    server.route('POST', '/auth/connect/token', { body: { token_type: 'Bearer' } });
    const client = createAccountingClient(oauthConfig(server.url));
    const error = await client.get('Banks', record.Id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as SchemaMismatchError).field).toBe('access_token');
    await client.close();

    server.route(
      'POST',
      '/auth/connect/token',
      { body: { access_token: 'tok-1-abcdefgh', expires_in: 3600 } },
      { status: 400, body: { error: 'invalid_client' } },
    );
    server.route('GET', /^\/v1\/Banks\/.+/, problem(401));
    const renewing = createAccountingClient(oauthConfig(server.url));
    const refused = await renewing.get('Banks', record.Id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect((refused as AuthenticationError).oauthError).toBe('invalid_client');
    expect(server.hits('GET', /^\/v1\/Banks/)).toHaveLength(1);
    await renewing.close();
  });

  it('gives up with UnauthorizedError when the renewed token is refused too', async () => {
    let n = 0;
    server.route('POST', '/auth/connect/token', () => ({
      body: { access_token: `tok-${++n}-abcdefgh`, expires_in: 3600 },
    }));
    server.route('GET', /^\/v1\/Banks\/.+/, problem(401));
    const client = createAccountingClient(oauthConfig(server.url));
    await expect(client.get('Banks', record.Id)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(n).toBe(2);
    expect(server.hits('GET', /^\/v1\/Banks/)).toHaveLength(2);
    await client.close();
  });

  it('does not repeat a 401 answered to an API key', async () => {
    server.route('GET', /^\/v1\/Banks\/.+/, problem(401));
    const client = createAccountingClient(apiKeyConfig(server.url));
    const error = await client.get('Banks', record.Id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toContain('check ACCOUNTING_API_KEY');
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it.each([
    ['invalid_client', ['ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET']],
    ['invalid_scope', ['ACCOUNTING_SCOPE']],
    ['unsupported_grant_type', ['ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET', 'ACCOUNTING_SCOPE']],
  ])('turns an OAuth error %s into an AuthenticationError naming the settings', async (code, settings) => {
    server.route('POST', '/auth/connect/token', { status: 400, body: { error: code } });
    const client = createAccountingClient(oauthConfig(server.url));
    const error = await client.get('Banks', record.Id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).settings).toEqual(settings);
    expect((error as Error).message).toContain(settings.join(', '));
    expect(server.hits('GET', /^\/v1/)).toHaveLength(0);
    await client.close();
  });

  it('names the auth URL when the token endpoint does not exist', async () => {
    const client = createAccountingClient(oauthConfig(server.url));
    const error = await client.get('Banks', record.Id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).settings).toEqual(['ACCOUNTING_AUTH_URL']);
    await client.close();
  });
});
