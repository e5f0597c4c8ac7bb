import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isNotReady } from '#functions/accounting/api.js';
import { createAccountingClient } from '#functions/accounting/client.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { useFakeServer } from '../fakes/accounting-server.js';

const ID = '44444444-4444-4444-4444-444444444444';

describe('binary downloads', () => {
  const server = useFakeServer();

  it('streams a PDF: the first bytes arrive before the server has sent the rest', async () => {
    const first = Buffer.from('%PDF-1.7\n');
    const rest = Buffer.alloc(256 * 1024, 0x41);
    let releaseRest!: () => void;
    const restSent = new Promise<void>((r) => {
      releaseRest = r;
    });
    server.route('GET', `/v1/IssuedInvoices/${ID}/pdf`, {
      headers: { 'content-type': 'application/pdf', 'content-length': first.length + rest.length },
      chunks: [first, rest],
      between: () => restSent,
    });
    const client = createAccountingClient(apiKeyConfig(server.url));
    const result = await client.download('IssuedInvoices.pdf', { params: { id: ID } });
    if (isNotReady(result)) throw new Error('expected a download');
    expect(result.contentType).toBe('application/pdf');
    expect(result.contentLength).toBe(first.length + rest.length);
    const [chunk] = (await once(result.body, 'data')) as [Buffer];
    expect(chunk.subarray(0, 5).toString()).toBe('%PDF-'); // read while the server still holds the rest
    releaseRest();
    let total = chunk.length;
    for await (const c of result.body) total += (c as Buffer).length;
    expect(total).toBe(first.length + rest.length);
    expect(server.requests[0]?.query.get('Language')).toBe('Current');
    await client.close();
  });

  it('returns notReady for an ISDOC answered 204, and the XML stream once ready', async () => {
    const xml = '<?xml version="1.0"?><Invoice xmlns="http://isdoc.cz/namespace/2013"/>';
    server.route(
      'GET',
      `/v1/IssuedInvoices/${ID}/isdoc`,
      { status: 204 },
      {
        headers: { 'content-type': 'application/xml' },
        body: xml,
      },
    );
    const client = createAccountingClient(apiKeyConfig(server.url));
    await expect(client.download('IssuedInvoices.isdoc', { params: { id: ID } })).resolves.toEqual({
      notReady: true,
    });
    const ready = await client.download('IssuedInvoices.isdoc', { params: { id: ID } });
    if (isNotReady(ready)) throw new Error('expected the document');
    expect(ready.contentType).toBe('application/xml');
    let text = '';
    for await (const c of ready.body) text += c;
    expect(text).toBe(xml);
    await client.close();
  });
});

describe('endpoint catalog in the client', () => {
  const server = useFakeServer();

  it('sends an assumed operation to the path configured in ACCOUNTING_PATH_OVERRIDES', async () => {
    server.route('GET', '/v1/Peppol/Sendings/51000000-0000-4000-8000-000000000001/State', {
      body: { State: 'Delivered' },
    });
    const config = apiKeyConfig(server.url, {
      pathOverrides: JSON.stringify({ 'EInvoicing.status': '/v1/Peppol/Sendings/{sendingId}/State' }),
    });
    const client = createAccountingClient(config);
    expect(client.operations.get('EInvoicing.status')).toMatchObject({
      assumed: true,
      path: '/v1/Peppol/Sendings/{sendingId}/State',
    });
    await expect(
      client.call('EInvoicing.status', { params: { sendingId: '51000000-0000-4000-8000-000000000001' } }),
    ).resolves.toEqual({
      State: 'Delivered',
    });
    expect(server.requests[0]?.path).toBe('/v1/Peppol/Sendings/51000000-0000-4000-8000-000000000001/State');
    await client.close();
  });

  it('fills checked path parameters and keeps a base path prefix', async () => {
    server.route('POST', '/api/v1/IssuedInvoices/51000000-0000-4000-8000-000000000001/Send/Email', {
      body: { Sent: true },
    });
    const client = createAccountingClient(apiKeyConfig(`${server.url}/api/`));
    await client.call('Documents.sendEmail', {
      params: { collection: 'IssuedInvoices', id: '51000000-0000-4000-8000-000000000001' },
      body: { To: 'x@y.z' },
    });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ To: 'x@y.z' });
    await client.close();
  });
});
