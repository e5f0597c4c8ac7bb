import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { credentialLines, parseSandboxArgs } from '#sandbox/main.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies in assertions
type Json = any;

async function get(sandbox: Sandbox, path: string, headers: Record<string, string>) {
  const res = await fetch(`${sandbox.baseUrl}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Json };
}

async function token(sandbox: Sandbox, clientId: string, clientSecret: string, scope: string) {
  const res = await fetch(`${sandbox.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope,
    }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('sandbox --companies N', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ companies: 3 });
  });
  afterAll(() => sandbox.close());

  const key = (k: number) => ({ 'Api-Key': sandbox.credentialsOf(k).apiKey });

  it('gives each company its own credentials, company 1 the demo ones', () => {
    expect(sandbox.companies).toBe(3);
    expect(sandbox.credentialsOf(1)).toEqual(sandbox.credentials);
    expect(sandbox.credentials.apiKey).toBe('sandbox-api-key');
    const keys = [1, 2, 3].map((k) => sandbox.credentialsOf(k).apiKey);
    expect(new Set(keys).size).toBe(3);
    expect(() => sandbox.credentialsOf(4)).toThrow(RangeError);
  });

  it('seeds a company on its first request only, with data of its own (smaller by default)', async () => {
    expect(sandbox.server.companies.active().map((c) => c.index)).toEqual([1]);
    const one = await get(sandbox, '/v1/IssuedInvoices?PageNumber=1&PageSize=100', key(1));
    const two = await get(sandbox, '/v1/IssuedInvoices?PageNumber=1&PageSize=100', key(2));
    expect(sandbox.server.companies.active().map((c) => c.index)).toEqual([1, 2]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    const ids = (page: Json) => new Set(page.Items.map((r: Json) => r.Id));
    const shared = [...ids(one.body)].filter((id) => ids(two.body).has(id));
    expect(shared).toEqual([]);
    const docs = Object.values(sandbox.server.companies.get(2).state.counts()).reduce((a, b) => a + b, 0);
    expect(docs).toBeGreaterThan(0);
    expect(sandbox.server.companies.get(2).state.counts().BusinessPartners).toBe(8);
  });

  it("a company's key reads only its own records: another company's id is not found", async () => {
    const three = await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', key(3));
    const id = three.body.Items[0].Id as string;
    expect((await get(sandbox, `/v1/BusinessPartners/${id}`, key(3))).status).toBe(200);
    expect((await get(sandbox, `/v1/BusinessPartners/${id}`, key(2))).status).toBe(404);
    expect((await get(sandbox, `/v1/BusinessPartners/${id}`, key(1))).status).toBe(404);
  });

  it("a company's OAuth client sees that company's data; a write stays in it", async () => {
    const c = sandbox.credentialsOf(2);
    const issued = await token(sandbox, c.clientId, c.clientSecret, c.scope);
    expect(issued.status).toBe(200);
    const bearer = { Authorization: `Bearer ${issued.body.access_token}` };
    const viaToken = await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=100', bearer);
    const viaKey = await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=100', key(2));
    expect(viaToken.body.Items).toEqual(viaKey.body.Items);
    const before = (await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', key(1))).body
      .TotalItemCount;
    const created = await fetch(`${sandbox.baseUrl}/v1/BusinessPartners`, {
      method: 'POST',
      headers: { ...key(2), 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'Firma dvojky s.r.o.', City: 'Trnava' }),
    });
    expect(created.status).toBeLessThan(300);
    expect(
      (await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', key(1))).body.TotalItemCount,
    ).toBe(before);
    expect(
      (await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', key(2))).body.TotalItemCount,
    ).toBe(viaKey.body.TotalItemCount + 1);
  });

  it('refuses a key of a company it does not serve, a wrong secret and a read-only write', async () => {
    expect(
      (await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', { 'Api-Key': 'sandbox-4-api-key' }))
        .status,
    ).toBe(401);
    const c = sandbox.credentialsOf(3);
    expect((await token(sandbox, c.clientId, sandbox.credentialsOf(2).clientSecret, c.scope)).status).toBe(
      400,
    );
    const write = await fetch(`${sandbox.baseUrl}/v1/BusinessPartners`, {
      method: 'POST',
      headers: { 'Api-Key': c.readOnlyApiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'x' }),
    });
    expect(write.status).toBe(403);
  });

  it('the admin API addresses a company with ?company=k', async () => {
    const res = await fetch(`${sandbox.baseUrl}/_sandbox/?company=3`);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ companies: 3, company: 3, seed: 3 });
    expect(body.credentials.apiKey).toBe('sandbox-3-api-key');
    expect((await fetch(`${sandbox.baseUrl}/_sandbox/?company=4`)).status).toBe(404);
  });
});

describe('sandbox with one company (the default)', () => {
  it('serves the demo company only: another company’s key is refused', async () => {
    const sandbox = await startSandbox({ sizes: { documents: 20, partners: 2, perCollection: {} } });
    try {
      expect(sandbox.companies).toBe(1);
      expect(
        (
          await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', {
            'Api-Key': 'sandbox-2-api-key',
          })
        ).status,
      ).toBe(401);
      expect(
        (await get(sandbox, '/v1/BusinessPartners?PageNumber=1&PageSize=1', { 'Api-Key': 'sandbox-api-key' }))
          .status,
      ).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});

describe('sandbox CLI --companies', () => {
  it('defaults to smaller companies and prints every company’s credentials, marked as test fixtures', () => {
    const options = parseSandboxArgs(['--companies', '12']);
    expect(options).toMatchObject({ companies: 12, sizes: { documents: 40, partners: 8 } });
    expect(parseSandboxArgs(['--companies', '3', '--documents', '90'])).toMatchObject({
      sizes: { documents: 90 },
    });
    expect(parseSandboxArgs([])).toMatchObject({ companies: 1, sizes: { documents: 300, partners: 40 } });
    const credentialsOf = (k: number) => ({
      apiKey: `k${k}`,
      readOnlyApiKey: '',
      clientId: `c${k}`,
      clientSecret: `s${k}`,
      readOnlyClientId: '',
      readOnlyClientSecret: '',
      scope: 'S',
    });
    const lines = credentialLines({ companies: 12, credentialsOf }).join('\n');
    expect(lines).toContain('test fixtures');
    expect(lines).toContain('company: Api-Key · client id / client secret');
    expect(lines).toContain('    10: k10 · c10 / s10');
    expect(lines).toContain('    11…12: sandbox-k-api-key · sandbox-k-client / sandbox-k-secret');
  });
});
