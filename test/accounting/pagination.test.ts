import { describe, expect, it } from 'vitest';
import type { ApiRecord, Page } from '#functions/accounting/api.js';
import { createAccountingClient } from '#functions/accounting/client.js';
import { InvalidArgumentError, PaginationError } from '#functions/accounting/errors.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { doc, type RecordedRequest, type Reply, useFakeServer } from '../fakes/accounting-server.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${String(i + 1).padStart(4, '0')}`);

/**
 * A keyset list: records ordered by Id, `After` respected, `PageSize` capped at `cap`.
 * `TotalItemCount` counts all records, or with `totalAfter` only those after `After`.
 */
function keysetServer(all: string[], cap: number, reportSize: boolean, totalAfter = false) {
  return (req: RecordedRequest): Reply => {
    const size = Math.min(Number(req.query.get('PageSize')), cap);
    const after = req.query.get('After');
    const start = after ? all.findIndex((id) => id > after) : 0;
    const slice = start < 0 ? [] : all.slice(start, start + size);
    return {
      body: {
        Items: slice.map((id) => doc(id)),
        TotalItemCount: start < 0 ? 0 : totalAfter ? all.length - start : all.length,
        Pagination: reportSize ? { PageNumber: 1, PageSize: size, After: after } : null,
      },
    };
  };
}

/** A page-number list (`Banks`): offsets computed with the capped size. */
function pagedServer(all: string[], cap: number, reportSize: boolean) {
  return (req: RecordedRequest): Reply => {
    const size = Math.min(Number(req.query.get('PageSize')), cap);
    const page = Number(req.query.get('PageNumber'));
    const slice = all.slice((page - 1) * size, page * size);
    return {
      body: {
        Items: slice.map((id) => ({ Id: id, Name: `Bank ${id}` })),
        TotalItemCount: all.length,
        Pagination: reportSize ? { PageNumber: page, PageSize: size, After: null } : null,
      },
    };
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('paging', () => {
  const server = useFakeServer();
  const client = (pageSize = 10) =>
    createAccountingClient(apiKeyConfig(server.url, { pageSize }), {
      clock: createManualClock({ autoAdvance: true }),
    });

  it('walks keyset pages with After = last Id and passes ModifiedSince', async () => {
    const all = ids(25);
    server.route('GET', '/v1/IssuedInvoices', keysetServer(all, 1000, true));
    const pages = await collect(
      client(10).listPages('IssuedInvoices', { modifiedSince: '2026-01-01T00:00:00Z' }),
    );
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5]);
    expect(pages.map((p) => p.last)).toEqual([false, false, true]);
    expect(pages[1]?.lastId).toBe('id-0020');
    const qs = server.requests.map((r) => Object.fromEntries(r.query));
    expect(qs[0]).toEqual({ PageSize: '10', PageNumber: '1', ModifiedSince: '2026-01-01T00:00:00Z' });
    expect(qs[1]).toMatchObject({ After: 'id-0010', PageNumber: '1' });
    expect(qs[2]).toMatchObject({ After: 'id-0020' });
  });

  it('ends a keyset walk without a closing request when TotalItemCount says the page holds the rest', async () => {
    const all = ids(20);
    server.route('GET', '/v1/IssuedInvoices', keysetServer(all, 1000, true, true));
    const pages = await collect(client(10).listPages('IssuedInvoices'));
    expect(pages.flatMap((p) => p.items.map((i) => i.Id))).toEqual(all);
    expect(pages.map((p) => p.last)).toEqual([false, true]);
    expect(server.requests).toHaveLength(2);
  });

  it('reads on when TotalItemCount counts every match, not only those after After', async () => {
    const all = ids(20);
    server.route('GET', '/v1/IssuedInvoices', keysetServer(all, 1000, true, false));
    const items = await collect(client(10).listItems('IssuedInvoices'));
    expect(items.map((i) => i.Id)).toEqual(all);
    expect(server.requests).toHaveLength(3); // the closing empty page
  });

  it("carries the service's clock (its Date header) on each page", async () => {
    server.route('GET', '/v1/IssuedInvoices', keysetServer(ids(3), 1000, true));
    const before = Math.floor(Date.now() / 1000) * 1000;
    const [page] = await collect(client(10).listPages('IssuedInvoices'));
    const serverMs = Date.parse(page?.serverTime ?? '');
    expect(serverMs).toBeGreaterThanOrEqual(before);
    expect(serverMs % 1000).toBe(0); // HTTP dates have whole seconds
  });

  it('stays correct when the server caps PageSize and says so', async () => {
    const all = ids(23);
    server.route('GET', '/v1/IssuedInvoices', keysetServer(all, 5, true));
    const items = await collect(client(10).listItems('IssuedInvoices'));
    expect(items.map((i) => i.Id)).toEqual(all);
    expect(server.requests).toHaveLength(5);
  });

  it('does not stop early when the server caps PageSize silently (keyset)', async () => {
    const all = ids(23);
    server.route('GET', '/v1/IssuedInvoices', keysetServer(all, 5, false));
    const items = await collect(client(10).listItems('IssuedInvoices'));
    expect(items.map((i) => i.Id)).toEqual(all);
    expect(server.requests.at(-1)?.query.get('After')).toBe('id-0023'); // the empty page ended it
  });

  it('uses page numbers for Banks (no After), also under a cap', async () => {
    const all = ids(17);
    server.route('GET', '/v1/Banks', pagedServer(all, 4, true));
    const pages: Page<ApiRecord>[] = await collect(client(10).listPages('Banks'));
    expect(pages.flatMap((p) => p.items.map((i) => i.Id))).toEqual(all);
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4, 5]);
    expect(pages[0]?.pageSize).toBe(4);
    for (const r of server.requests) {
      expect(r.query.has('After')).toBe(false);
      expect(r.query.get('PageSize')).toBe('10');
    }
  });

  it('uses page numbers under a silent cap, ending at TotalItemCount', async () => {
    const all = ids(12);
    server.route('GET', '/v1/Banks', pagedServer(all, 4, false));
    const items = await collect(client(10).listItems('Banks'));
    expect(items.map((i) => i.Id)).toEqual(all);
    expect(server.requests).toHaveLength(3);
  });

  it('starts from a given cursor or page number', async () => {
    const all = ids(12);
    server.route('GET', '/v1/BusinessPartners', keysetServer(all, 100, true));
    server.route('GET', '/v1/Banks', pagedServer(all, 100, true));
    const after = await collect(client(5).listItems('BusinessPartners', { after: 'id-0010' }));
    expect(after.map((i) => i.Id)).toEqual(['id-0011', 'id-0012']);
    const fromPage = await collect(client(5).listItems('Banks', { pageNumber: 3 }));
    expect(fromPage.map((i) => i.Id)).toEqual(['id-0011', 'id-0012']);
  });

  it('checks PageSize, PageNumber, After and ModifiedSince before sending', async () => {
    const c = client();
    await expect(collect(c.listPages('Banks', { pageSize: 0 }))).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(collect(c.listPages('Banks', { pageNumber: -1 }))).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(collect(c.listPages('Banks', { pageSize: 1.5 }))).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(collect(c.listPages('Banks', { after: 'x' }))).rejects.toThrow(/After/);
    await expect(collect(c.listPages('IssuedInvoices', { modifiedSince: 'yesterday' }))).rejects.toThrow(
      /ModifiedSince/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('sends nothing before iteration starts', async () => {
    server.route('GET', '/v1/Banks', pagedServer(ids(3), 10, true));
    const pages = client().listPages('Banks');
    expect(server.requests).toHaveLength(0);
    await collect(pages);
    expect(server.requests).toHaveLength(1);
  });

  it('fails instead of looping when the server ignores After', async () => {
    server.route('GET', '/v1/IssuedInvoices', {
      body: { Items: ids(10).map((id) => doc(id)), TotalItemCount: 99 },
    });
    await expect(collect(client(10).listItems('IssuedInvoices'))).rejects.toBeInstanceOf(PaginationError);
  });
});
