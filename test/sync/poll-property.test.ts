/**
 * Property: over random schedules of creates, edits (also while pages are read), late commits,
 * clock steps, polls with short time budgets, crashes between publish and checkpoint and bus
 * outages, the latest version of every record is published at least once, and a version is
 * published more than once only because of a crash or outage (at most once more per fault).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setup } from './harness.js';

const LOOKBACK = 5 * 60_000;

type Op =
  | { kind: 'create'; lag: number }
  | { kind: 'edit'; pick: number; lag: number }
  | { kind: 'bulk'; count: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'poll'; pages: number; editsWhilePaging: Array<{ at: number; pick: number; advance: number }> }
  | { kind: 'crash'; afterPuts: number }
  | { kind: 'outage' };

const lag = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60_000 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), lag }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), lag }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('bulk' as const), count: fc.integer({ min: 5, max: 25 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1000, max: 15 * 60_000 })),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('poll' as const),
      pages: fc.integer({ min: 1, max: 12 }),
      editsWhilePaging: fc.array(
        fc.record({
          at: fc.integer({ min: 0, max: 4 }),
          pick: fc.nat(),
          advance: fc.integer({ min: 0, max: 20 * 60_000 }),
        }),
        { maxLength: 4 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('crash' as const), afterPuts: fc.integer({ min: 0, max: 2 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('outage' as const) }) },
);

describe('change detector property', () => {
  it('publishes the final version of every record at least once, with duplicates bounded by faults', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 5, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        async (ops, secondPrecision, dateHeader) => {
          const t = setup({
            service: { secondPrecision, dateHeader },
            poll: { lookbackMs: LOOKBACK, pageSize: 5, minRemainingMs: 1_000 },
          });
          const ids: string[] = [];
          let faults = 0;
          const pick = (n: number) => (ids.length > 0 ? ids[n % ids.length] : undefined);
          for (const o of ops) {
            switch (o.kind) {
              case 'create':
                ids.push(t.service.create({ lagMs: o.lag }));
                break;
              case 'edit': {
                const id = pick(o.pick);
                if (id) t.service.edit(id, { lagMs: o.lag });
                break;
              }
              case 'bulk':
                for (let i = 0; i < o.count; i++) ids.push(t.service.create());
                for (const id of ids.slice(0, o.count)) t.service.edit(id);
                break;
              case 'advance':
                t.tick(o.ms);
                break;
              case 'crash':
                t.crash.crashOnPut = t.crash.puts + o.afterPuts;
                faults++;
                break;
              case 'outage':
                t.publisher.failNext = 1;
                faults++;
                break;
              case 'poll': {
                let budget = o.pages;
                t.service.onPage = (_c, index) => {
                  for (const e of o.editsWhilePaging) {
                    const id = pick(e.pick);
                    if (e.at === index && id) {
                      t.service.advance(e.advance);
                      t.service.edit(id);
                    }
                  }
                };
                await t.poll('ReceivedOrders', { remainingTimeMs: () => (budget-- > 0 ? 60_000 : 0) });
                t.service.onPage = undefined;
                break;
              }
            }
          }
          // Quiet period: let late commits land, then poll until the collection is caught up.
          t.crash.crashOnPut = -1;
          t.publisher.failNext = 0;
          t.tick(2 * 60_000);
          for (let i = 0; i < 50; i++) {
            const r = await t.poll();
            if (!r.more && i > 1) break;
            t.tick(1_000);
          }
          expect(t.missing()).toEqual([]);
          for (const [version, n] of t.publisher.versions()) {
            expect(n, version).toBeLessThanOrEqual(1 + faults);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});
