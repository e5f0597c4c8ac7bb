import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, harness, jsonOf } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({
    sizes: { documents: 0, partners: 1, perCollection: { ReceivedOrders: 60 } },
    maxPageSize: 25,
  });
});
afterAll(async () => {
  await h.sandbox.close();
});

async function keysetWalk(pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const body = await h.getJson(
      `/v1/ReceivedOrders?PageSize=${pageSize}&PageNumber=1${after ? `&After=${after}` : ''}`,
    );
    ids.push(...body.Items.map((i: { Id: string }) => i.Id));
    const applied = body.Pagination.PageSize;
    if (body.Items.length < applied) return ids;
    after = body.Items.at(-1).Id;
  }
}

describe('paging properties', () => {
  it('keyset and page-number walks return every record exactly once, in Id order, for any page size', async () => {
    const all = h.sandbox.state.collection('ReceivedOrders').entries.map((e) => e.id);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (pageSize) => {
        const keyset = await keysetWalk(pageSize);
        expect(keyset).toEqual(all);
        const applied = Math.min(pageSize, 25);
        const numbered: string[] = [];
        for (let page = 1; ; page++) {
          const body = await h.getJson(`/v1/ReceivedOrders?PageSize=${pageSize}&PageNumber=${page}`);
          numbered.push(...body.Items.map((i: { Id: string }) => i.Id));
          if (body.Items.length < applied) break;
        }
        expect(numbered).toEqual(all);
      }),
      { numRuns: 15 },
    );
  });

  it('a keyset walk sees each record at most once while records are edited between pages', async () => {
    h.sandbox.setFaults({ editsWhilePaging: { rate: 1, count: 3 } });
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 30 }), async (pageSize) => {
          const ids = await keysetWalk(pageSize);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids.length).toBe(60);
        }),
        { numRuns: 8 },
      );
    } finally {
      h.sandbox.setFaults({ editsWhilePaging: null });
    }
  });

  it('ModifiedSince at the newest ModifiedDate returns exactly the records stamped at that instant', async () => {
    h.clock.advance(60_000);
    const ids = h.sandbox.state.sampleIds('ReceivedOrders', 3);
    for (const id of ids) {
      await fetch(`${h.sandbox.baseUrl}/_sandbox/edit/ReceivedOrders/${id}`, { method: 'POST' });
    }
    const since = new Date(h.clock.ms).toISOString();
    const body = await h.getJson(`/v1/ReceivedOrders?PageSize=25&PageNumber=1&ModifiedSince=${since}`);
    expect(body.Items.map((i: { Id: string }) => i.Id).sort()).toEqual([...new Set(ids)].sort());
    for (const item of body.Items) expect(item.ModificationInfo.ModifiedDate).toBe(since);
    const truth = await jsonOf(
      await fetch(`${h.sandbox.baseUrl}/_sandbox/ground-truth?collection=ReceivedOrders&includeSeed=false`),
    );
    expect(truth.versions.at(-1).modifiedDate).toBe(since);
  });
});
