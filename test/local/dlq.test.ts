import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileJournal } from '#functions/adapters/local/bus-journal.js';
import { acquireDataDirLock } from '#functions/adapters/local/data-dir-lock.js';
import { openFileDeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import { createLocalBus, type EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import type { Route } from '#functions/core/routes.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { BUS_DIR, DEAD_LETTERS_FILE } from '#functions/local/runtime.js';
import { createLogger } from '#functions/shared/logger.js';
import { cli } from './cli-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlq-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const event = (id: string, number: string): EventBridgeEvent => ({
  version: '0',
  id,
  'detail-type': 'IssuedInvoice.Created',
  source: 'accounting.demo',
  account: '000000000000',
  time: '2026-01-01T00:00:00Z',
  region: 'local',
  resources: [],
  detail: { id: `rec-${id}`, record: { DocumentNumber: number } },
});

const route = (id: string): Route => ({
  id,
  handler: id,
  description: id,
  pattern: { 'detail-type': ['IssuedInvoice.Created'] },
  maxConcurrency: 1,
  maxReceiveCount: 1,
  timeoutSeconds: 30,
  outcomes: [],
});

async function seedLetters() {
  const store = openFileDeadLetterStore(join(dir, BUS_DIR, DEAD_LETTERS_FILE));
  await store.add({
    routeId: 'archive-isdoc',
    event: event('e1', 'FA1'),
    attempts: 5,
    error: 'boom',
    at: new Date('2026-02-01T10:00:00Z'),
  });
  await store.add({
    routeId: 'send-einvoice',
    event: event('e2', 'FA2'),
    attempts: 5,
    error: 'down',
    at: new Date('2026-02-01T10:01:00Z'),
  });
}

describe('dlq', () => {
  it('ls lists the dead letters kept in the data directory (also as JSON)', async () => {
    await seedLetters();
    const table = await cli(['dlq', 'ls', '--data-dir', dir]);
    expect(table.code).toBe(EXIT.ok);
    expect(table.stdout).toContain('archive-isdoc');
    expect(table.stdout).toContain('FA1 rec-e1');
    expect(table.stdout).toContain('2 dead letters');
    // 80 columns, the route whole (what --route takes); --wide: the time in full and the receives.
    expect(Math.max(...table.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(table.stdout).toMatch(/^AT \(UTC\)\s+ROUTE\s+DETAIL-TYPE\s+RECORD\s+ERROR$/m);
    expect(table.stdout).toMatch(/^02-01 10:01:00 {2}send-einvoice /m);
    const wide = await cli(['dlq', 'ls', '--wide', '--data-dir', dir]);
    expect(wide.stdout).toMatch(/^AT\s+ROUTE\s+DETAIL-TYPE\s+RECORD\s+RECEIVES\s+ERROR$/m);
    expect(wide.stdout).toContain('2026-02-01T10:01:00.000Z');
    const json = await cli(['dlq', 'ls', '--json', '--route', 'send-einvoice', '--data-dir', dir]);
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toMatchObject([
      { routeId: 'send-einvoice', attempts: 5, error: 'down', event: { id: 'e2' } },
    ]);
  });

  it("redrive journals a route's dead letters for that route only; the next start delivers them", async () => {
    await seedLetters();
    // The data directory as a run left it: both routes known to the journal.
    const first = createLocalBus({
      routes: [route('archive-isdoc'), route('send-einvoice')],
      deliver: async () => {},
      journal: await openFileJournal(join(dir, BUS_DIR)),
      logger: createLogger({ level: 'silent' }),
    });
    await first.close();

    const run = await cli(['dlq', 'redrive', '--route', 'archive-isdoc', '--data-dir', dir]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain('1 dead letters journaled again for archive-isdoc');
    const left = await cli(['dlq', 'ls', '--json', '--data-dir', dir]);
    expect(
      left.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).routeId),
    ).toEqual(['send-einvoice']);

    const delivered: string[] = [];
    const next = createLocalBus({
      routes: [route('archive-isdoc'), route('send-einvoice')],
      deliver: async (r, e) => {
        delivered.push(`${r.id}:${e.id}`);
      },
      journal: await openFileJournal(join(dir, BUS_DIR)),
      logger: createLogger({ level: 'silent' }),
    });
    await new Promise((r) => setTimeout(r, 10));
    await next.drain();
    await next.close();
    expect(delivered).toEqual(['archive-isdoc:e1']);
  });

  it('redrive needs the data directory: it refuses while another process holds it', async () => {
    await seedLetters();
    const lock = await acquireDataDirLock(dir, 'run');
    try {
      const run = await cli(['dlq', 'redrive', '--data-dir', dir]);
      expect(run.code).toBe(EXIT.failure);
      expect(run.stderr).toContain(`the data directory ${dir} is in use`);
    } finally {
      await lock.release();
    }
  });

  it('a missing data directory or subcommand is a usage error', async () => {
    expect((await cli(['dlq', 'ls', '--data-dir', join(dir, 'nope')])).code).toBe(EXIT.usage);
    const bad = await cli(['dlq', 'purge', '--data-dir', dir]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('expected "ls" or "redrive"');
  });
});
