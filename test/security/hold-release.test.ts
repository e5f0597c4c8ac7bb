/**
 * Issue 33: a hold is cleared only by a person — the CLI's `holds release` and the console's Release
 * — and each release is recorded as `IssuedInvoice.SendingReleased` naming who released it. Nothing
 * else clears it: a release of an invoice that is not held changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import type { LocalBus } from '#functions/adapters/local/local-bus.js';
import { type Hold, holdsKey, readHolds } from '#functions/core/actions/sending-hold.js';
import type { BusEvent } from '#functions/core/ports.js';
import { answerGet, answerPost, ConsoleRequestError } from '#functions/local/console/console-api.js';
import { createConsoleFeed } from '#functions/local/console/console-feed.js';
import { localHolds } from '#functions/local/holds.js';
import { LOCAL_RESOURCES, startLocalStores } from '#functions/local/local-stores.js';
import { cli } from '../local/cli-harness.js';

const CONNECTION = 'sandbox';
let dir: string;

const hold = (id: string): Hold => ({
  recordType: 'IssuedInvoice',
  id,
  documentNumber: `FV-${id.slice(0, 4)}`,
  reason: 'partnerFromCheckout',
  receivedOrder: { id: randomUUID(), documentNumber: 'RO1' },
  eventSource: 'accounting.sandbox',
  action: 'send.einvoice',
  causationId: randomUUID(),
  heldAt: '2026-11-27T10:00:00.000Z',
  status: 'held',
});

const held = [hold(randomUUID()), hold(randomUUID())];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-holds-'));
  const stores = await startLocalStores(join(dir, 'data'));
  try {
    const state = createDynamoDbCheckpointStore({
      client: stores.servers.dynamoDb,
      tableName: LOCAL_RESOURCES.stateTable,
    });
    await state.put(holdsKey(CONNECTION), { holds: held }, undefined);
  } finally {
    await stores.close();
  }
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('only a person clears a hold, and each clearing is an event', () => {
  it('holds release (the CLI): the hold released with the name, SendingReleased published', async () => {
    const target = held[0] as Hold;
    const args = ['--data-dir', 'data', '--events-out', 'events.jsonl'];
    const refused = await cli(['holds', 'release', randomUUID(), '--by', 'jana', ...args], {
      cwd: dir,
      env: {},
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no IssuedInvoice .* is held/);
    const noName = await cli(['holds', 'release', target.id, ...args], { cwd: dir, env: {} });
    expect(noName.code).toBe(2);
    const run = await cli(['holds', 'release', target.id, '--by', 'jana', ...args], { cwd: dir, env: {} });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const events = (await readFile(join(dir, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { 'detail-type': string; detail: Record<string, unknown> });
    expect(
      events.filter((e) => e['detail-type'] === 'IssuedInvoice.SendingReleased').map((e) => e.detail),
    ).toEqual([
      expect.objectContaining({ id: target.id, releasedBy: 'jana', via: 'cli', connection: CONNECTION }),
    ]);
    const listed = await cli(['holds', 'ls', '--json', '--data-dir', 'data'], { cwd: dir, env: {} });
    // With --json the runtime's own lines come too: the holds are the lines with a heldAt.
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Hold)
      .filter((r) => 'heldAt' in r);
    expect(rows.map((r) => [r.id, r.status, r.released?.by])).toEqual([
      [(held[1] as Hold).id, 'held', undefined],
      [target.id, 'released', 'jana'],
    ]);
  }, 120_000);

  it('Release in the console: the same, via console; a second release is refused', async () => {
    const target = held[1] as Hold;
    const stores = await startLocalStores(join(dir, 'data'));
    const published: BusEvent[] = [];
    const bus = {
      publish: async (events: BusEvent[]) => void published.push(...events),
    } as unknown as LocalBus;
    try {
      const src = {
        feed: createConsoleFeed(),
        bus,
        deadLetters: { list: async () => [] } as never,
        archive: stores.archive,
        isdocSchema: {} as never,
        checkpoints: async () => [],
        holds: localHolds({ stores, bus, connection: CONNECTION, connections: () => [CONNECTION] }),
      };
      const listed = (await answerGet(src, '/api/holds', new URL('http://x/api/holds'))) as { json: Hold[] };
      expect(listed.json.map((h) => h.status)).toEqual(['held', 'released']);
      await expect(
        answerPost(src, '/api/holds/release', { connection: CONNECTION, id: target.id }),
      ).rejects.toThrow();
      const reply = await answerPost(src, '/api/holds/release', {
        connection: CONNECTION,
        id: target.id,
        by: 'petr',
      });
      expect(reply).toMatchObject({ status: 200 });
      expect(published.map((e) => [e.detailType, (e.detail as Record<string, unknown>).releasedBy])).toEqual([
        ['IssuedInvoice.SendingReleased', 'petr'],
      ]);
      await expect(
        answerPost(src, '/api/holds/release', { connection: CONNECTION, id: target.id, by: 'petr' }),
      ).rejects.toBeInstanceOf(ConsoleRequestError);
      const state = createDynamoDbCheckpointStore({
        client: stores.servers.dynamoDb,
        tableName: LOCAL_RESOURCES.stateTable,
      });
      expect((await readHolds(state, CONNECTION)).map((h) => [h.status, h.released?.via])).toEqual([
        ['released', 'cli'],
        ['released', 'console'],
      ]);
      expect(published).toHaveLength(1);
    } finally {
      await stores.close();
    }
  }, 60_000);
});
