import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileJournal } from '#functions/adapters/local/bus-journal.js';
import { openFileDeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import { createLocalBus, type EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import type { Route } from '#functions/core/routes.js';
import { openEventsOut } from '#functions/local/events-out.js';
import { createLogger } from '#functions/shared/logger.js';

const logger = createLogger({ level: 'silent' });
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const event = (n: number): EventBridgeEvent => ({
  version: '0',
  id: `e${n}`,
  'detail-type': 'IssuedInvoice.Created',
  source: 's',
  account: '0',
  time: '2026-01-01T00:00:00Z',
  region: 'local',
  resources: [],
  detail: { n },
});

const route: Route = {
  id: 'a',
  handler: 'a',
  description: 'a',
  pattern: { 'detail-type': ['IssuedInvoice.Created'] },
  maxConcurrency: 1,
  maxReceiveCount: 2,
  timeoutSeconds: 30,
  outcomes: [],
};

describe('file journal', () => {
  it('keeps appended entries and offsets across a reopen, and drops a torn last line', async () => {
    const journal = await openFileJournal(dir);
    expect(await journal.append([event(1), event(2)])).toMatchObject([{ seq: 1 }, { seq: 2 }]);
    journal.commit(new Map([['a', 1]]));
    await journal.close();
    // A crash mid-append: half a line, never acknowledged.
    const [segment] = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
    await appendFile(join(dir, segment as string), '{"seq":3,"event":{"ver');

    const reopened = await openFileJournal(dir);
    // Retained until compaction; the subscriber's offset says where it goes on.
    expect(reopened.entries().map((e) => e.seq)).toEqual([1, 2]);
    expect(reopened.offset('a')).toBe(1);
    expect(await reopened.append([event(3)])).toMatchObject([{ seq: 3 }]);
    await reopened.close();
    const again = await openFileJournal(dir);
    expect(again.entries().map((e) => e.event.id)).toEqual(['e1', 'e2', 'e3']);
    await again.close();
  });

  it('is compacted: segments every subscriber has moved past are deleted', async () => {
    const first = await openFileJournal(dir);
    await first.append([event(1), event(2)]);
    await first.close();
    const second = await openFileJournal(dir);
    await second.append([event(3)]);
    second.commit(
      new Map([
        ['a', 3],
        ['b', 2],
      ]),
    );
    await second.flush();
    const segments = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
    // The first segment (seqs 1–2) is gone; the active one stays.
    expect(segments).toEqual(['000000000003.jsonl']);
    expect(second.entries().map((e) => e.seq)).toEqual([3]);
    await second.close();
  });
});

describe('local bus on a file journal', () => {
  it('a restart delivers what was journaled but not handled; handled events are not delivered again', async () => {
    const seen: string[] = [];
    let block = true;
    const bus1 = createLocalBus({
      routes: [route],
      deliver: async (_r, e) => {
        if (block && (e.detail as { n: number }).n >= 2) throw new Error('not now');
        seen.push(e.id);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
      newId: (() => {
        let i = 0;
        return () => `id-${++i}`;
      })(),
    });
    await bus1.publish([
      { source: 's', detailType: 'IssuedInvoice.Created', detail: { n: 1 } },
      { source: 's', detailType: 'IssuedInvoice.Created', detail: { n: 2 } },
      { source: 's', detailType: 'IssuedInvoice.Created', detail: { n: 3 } },
    ]);
    // `close` while event 2 keeps failing: it is not dead-lettered, it stays journaled.
    const closing = bus1.close();
    await closing;
    expect(seen).toEqual(['id-1']);
    expect(bus1.deadLetters()).toEqual([]);

    block = false;
    const bus2 = createLocalBus({
      routes: [route],
      deliver: async (_r, e) => {
        seen.push(e.id);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
    });
    await new Promise((r) => setTimeout(r, 10));
    await bus2.drain();
    await bus2.close();
    expect(seen).toEqual(['id-1', 'id-2', 'id-3']);
  });

  it('a restart delivers again only the events not handled, not everything after a stuck one', async () => {
    const seen: number[] = [];
    let stuck = true;
    const wide = { ...route, maxConcurrency: 2, maxReceiveCount: 10 };
    const bus1 = createLocalBus({
      routes: [wide],
      deliver: async (_r, e) => {
        const { n } = e.detail as { n: number };
        if (stuck && n === 1) throw new Error('record in progress elsewhere');
        seen.push(n);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
      retryDelayMs: 60_000,
    });
    await bus1.publish(
      [1, 2, 3, 4, 5].map((n) => ({ source: 's', detailType: 'IssuedInvoice.Created', detail: { n } })),
    );
    for (let i = 0; i < 50 && seen.length < 4; i += 1) await new Promise((r) => setTimeout(r, 10));
    await bus1.close();
    expect(seen).toEqual([2, 3, 4, 5]);
    const stored = JSON.parse(await readFile(join(dir, 'bus', 'offsets.json'), 'utf8'));
    expect(stored.a).toEqual({ offset: 0, known: 5, unhandled: [[1, 1]] });

    stuck = false;
    const bus2 = createLocalBus({
      routes: [wide],
      deliver: async (_r, e) => {
        seen.push((e.detail as { n: number }).n);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
    });
    await new Promise((r) => setTimeout(r, 10));
    await bus2.drain();
    await bus2.publish([{ source: 's', detailType: 'IssuedInvoice.Created', detail: { n: 6 } }]);
    await bus2.drain();
    await bus2.close();
    expect(seen).toEqual([2, 3, 4, 5, 1, 6]);
    // Everything handled: a bare offset again, and compaction can drop the segment's entries.
    expect(JSON.parse(await readFile(join(dir, 'bus', 'offsets.json'), 'utf8')).a).toBe(6);
  });

  it('close waits for a hung delivery only its grace; it and the queued ones stay journaled for the next start', async () => {
    const seen: number[] = [];
    const hang = new Promise<void>(() => {});
    const bus1 = createLocalBus({
      routes: [route],
      deliver: async (_r, e) => {
        const { n } = e.detail as { n: number };
        if (n === 2) await hang;
        seen.push(n);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
      stopGraceMs: 20,
    });
    await bus1.publish(
      [1, 2, 3, 4].map((n) => ({ source: 's', detailType: 'IssuedInvoice.Created', detail: { n } })),
    );
    for (let i = 0; i < 50 && seen.length < 1; i += 1) await new Promise((r) => setTimeout(r, 10));
    await bus1.close();
    expect(seen).toEqual([1]);
    expect(JSON.parse(await readFile(join(dir, 'bus', 'offsets.json'), 'utf8')).a).toEqual({
      offset: 1,
      known: 4,
      unhandled: [[2, 4]],
    });

    const bus2 = createLocalBus({
      routes: [route],
      deliver: async (_r, e) => {
        seen.push((e.detail as { n: number }).n);
      },
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
    });
    await new Promise((r) => setTimeout(r, 10));
    await bus2.drain();
    await bus2.close();
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('keeps dead letters in a file that survives, and redelivers one to its subscriber only', async () => {
    const store = openFileDeadLetterStore(join(dir, 'bus', 'dead-letters.jsonl'));
    const other: Route = { ...route, id: 'b' };
    const seen: string[] = [];
    let fail = true;
    const make = async () =>
      createLocalBus({
        routes: [route, other],
        deliver: async (r, e) => {
          if (fail && r.id === 'a') throw new Error('boom');
          seen.push(`${r.id}:${e.id}`);
        },
        journal: await openFileJournal(join(dir, 'bus')),
        deadLetterStore: store,
        logger,
        newId: () => 'id-1',
      });
    const bus1 = await make();
    await bus1.publish([{ source: 's', detailType: 'IssuedInvoice.Created', detail: { n: 1 } }]);
    await bus1.drain();
    await bus1.close();
    const letters = await openFileDeadLetterStore(join(dir, 'bus', 'dead-letters.jsonl')).list();
    expect(letters).toMatchObject([{ routeId: 'a', attempts: 2, error: 'boom', event: { id: 'id-1' } }]);

    fail = false;
    const bus2 = await make();
    await bus2.redeliver('a', [letters[0]?.event as EventBridgeEvent]);
    await bus2.drain();
    await bus2.close();
    expect(seen).toEqual(['b:id-1', 'a:id-1']);
  });

  it('events-out is a subscriber: every journaled event is in the file, a torn line is cut', async () => {
    const path = join(dir, 'events.jsonl');
    await appendFile(
      path,
      '{"source":"s","detail-type":"IssuedInvoice.Created","time":"2026-01-01T00:00:00Z","detail":{"n":0}}\n{"sou',
    );
    const out = await openEventsOut(path);
    const bus = createLocalBus({
      routes: [],
      deliver: async () => {},
      subscribers: [out],
      journal: await openFileJournal(join(dir, 'bus')),
      logger,
    });
    await bus.publish(
      [1, 2, 3].map((n) => ({ source: 's', detailType: 'IssuedInvoice.Created', detail: { n } })),
    );
    await bus.drain();
    await bus.close();
    await out.close();
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).detail.n)).toEqual([0, 1, 2, 3]);
  });
});
