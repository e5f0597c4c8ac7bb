/**
 * The client against the sandbox (the stateful twin of the service): both credential kinds, full
 * walks of keyset and page-number collections under the sandbox's silent page-size cap, get by
 * id, a streamed PDF and an ISDOC export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotReady } from '#functions/accounting/api.js';
import { type AccountingClient, createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

async function ids(it: AsyncIterable<{ Id: string }>): Promise<string[]> {
  const out: string[] = [];
  for await (const x of it) out.push(x.Id);
  return out;
}

describe('client against the sandbox', () => {
  let sandbox: Sandbox;
  let keyClient: AccountingClient;
  let oauthClient: AccountingClient;

  beforeAll(async () => {
    sandbox = await startSandbox({
      sizes: { documents: 260, partners: 15, perCollection: {} },
      maxPageSize: 25,
    });
    keyClient = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey, pageSize: 40 }),
    );
    oauthClient = createAccountingClient(
      parseAccountingConfig({
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        clientId: sandbox.credentials.clientId,
        clientSecret: sandbox.credentials.clientSecret,
        pageSize: 7,
      }),
    );
  });
  afterAll(async () => {
    await keyClient?.close();
    await oauthClient?.close();
    await sandbox?.close();
  });

  it('walks a keyset collection completely with either credential, whatever the page size', async () => {
    const viaKey = await ids(keyClient.listItems('IssuedInvoices')); // asks 40, capped to 25
    const viaToken = await ids(oauthClient.listItems('IssuedInvoices')); // asks 7
    expect(viaKey.length).toBeGreaterThan(25);
    expect(new Set(viaKey).size).toBe(viaKey.length);
    expect(viaToken).toEqual(viaKey);
    const first = await keyClient.listPages('IssuedInvoices')[Symbol.asyncIterator]().next();
    expect(first.value?.totalItemCount).toBe(viaKey.length);
    expect(oauthClient.stats().tokenRequests).toBe(1);
  });

  it('walks a page-number collection (Banks) completely', async () => {
    const viaKey = await ids(keyClient.listItems('Banks'));
    const viaToken = await ids(oauthClient.listItems('Banks'));
    expect(viaKey.length).toBeGreaterThan(0);
    expect(viaToken).toEqual(viaKey);
  });

  it('filters with ModifiedSince and reads records by id', async () => {
    const all = [];
    for await (const inv of keyClient.listItems('IssuedInvoices')) all.push(inv);
    const sorted = all.map((i) => i.ModificationInfo?.ModifiedDate ?? '').sort();
    const since = sorted[Math.floor(sorted.length / 2)] ?? '';
    const recent = await ids(keyClient.listItems('IssuedInvoices', { modifiedSince: since }));
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(all.length);
    const one = all[0];
    if (!one) throw new Error('no invoice');
    const got = await oauthClient.get('IssuedInvoices', one.Id);
    expect(got.Id).toBe(one.Id);
    await expect(
      keyClient.get('IssuedInvoices', '00000000-0000-0000-0000-000000000000'),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('streams a PDF and an ISDOC export', async () => {
    const first = await keyClient.listPages('IssuedInvoices', { pageSize: 1 })[Symbol.asyncIterator]().next();
    const id = first.value?.items[0]?.Id ?? '';
    const pdf = await keyClient.download('IssuedInvoices.pdf', { params: { id } });
    if (isNotReady(pdf)) throw new Error('pdf not ready');
    expect(pdf.contentType).toContain('application/pdf');
    let head = '';
    for await (const chunk of pdf.body) head += Buffer.from(chunk as Buffer).toString('latin1');
    expect(head.startsWith('%PDF')).toBe(true);
    const isdoc = await keyClient.download('IssuedInvoices.isdoc', { params: { id } });
    if (isNotReady(isdoc)) throw new Error('isdoc not ready'); // the sandbox makes it ready at once by default
    let xml = '';
    for await (const chunk of isdoc.body) xml += chunk;
    expect(xml).toContain('<');
  });
});
