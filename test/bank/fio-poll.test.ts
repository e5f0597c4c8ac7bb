/**
 * Polling the Fio API (a local server in its place): one request per 30 s at most, our cursor kept
 * and the server's set back to it after a start, only new movements published, 409 reported
 * without the token, which appears in no error and no log line.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFioApi, FioApiError } from '#functions/adapters/http/fio-api.js';
import { createFioPoller } from '#functions/core/bank/fio-poll.js';
import { fileFioCursor } from '#functions/local/fio-cursor.js';
import { createManualClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';

const TOKEN = 'fio-test-token-0123456789abcdef0123456789abcdef0123456789abcdef';
let server: Server;
let base: string;
let serverCursor = 0;
const requests: string[] = [];
let conflict = false;
/** Movements the bank holds: ids 101…105, credits except 103. */
const movements = [101, 102, 103, 104, 105].map((id) => ({
  column22: { value: id, name: 'ID pohybu', id: 22 },
  column0: { value: '2026-11-20+0100', name: 'Datum', id: 0 },
  column1: { value: id === 103 ? -50 : id, name: 'Objem', id: 1 },
  column14: { value: 'CZK', name: 'Měna', id: 14 },
  column5: { value: String(2026000000 + id), name: 'VS', id: 5 },
}));

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (conflict) {
      res.writeHead(409).end();
      return;
    }
    const set = req.url?.match(/^\/set-last-id\/([^/]+)\/(\d+)\/$/);
    if (set && decodeURIComponent(set[1] ?? '') === TOKEN) {
      serverCursor = Number(set[2]);
      res.writeHead(200).end();
      return;
    }
    if (req.url === `/last/${encodeURIComponent(TOKEN)}/transactions.json`) {
      const fresh = movements.filter((m) => m.column22.value > serverCursor);
      serverCursor = Math.max(serverCursor, ...fresh.map((m) => m.column22.value));
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          accountStatement: {
            info: {
              accountId: '2400222222',
              bankId: '2010',
              currency: 'CZK',
              iban: 'CZ7920100000002400222222',
            },
            transactionList: { transaction: fresh },
          },
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('Fio polling', () => {
  it('publishes new credits once, waits 30 s between requests, and sets the server cursor back after a start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fio-'));
    try {
      const clock = createManualClock({ start: '2026-11-20T10:00:00.000Z' });
      const publisher = recordingPublisher();
      const logger = recordingLogger();
      const make = () =>
        createFioPoller({
          api: createFioApi({ token: TOKEN, baseUrl: base }),
          cursor: fileFioCursor(dir),
          publisher,
          clock,
          logger,
          connection: 'acme',
        });
      const poller = make();
      expect(await poller.poll()).toEqual({ kind: 'downloaded', published: 4, lastId: 105 });
      expect(await poller.poll()).toEqual({ kind: 'waiting', waitMs: 30_000 });
      clock.advance(30_000);
      expect(await poller.poll()).toMatchObject({ kind: 'downloaded', published: 0 });
      // A crash after a download whose events were lost: the server's cursor moved past them.
      serverCursor = 104;
      movements.push({
        ...movements[0],
        column22: { value: 106, name: 'ID pohybu', id: 22 },
      } as (typeof movements)[0]);
      await fileFioCursor(dir).put(103);
      const restarted = make();
      clock.advance(30_000);
      expect(await restarted.poll()).toEqual({ kind: 'rewound', to: 103 });
      clock.advance(30_000);
      // 104, 105 again (published before: the same ids) and 106.
      expect(await restarted.poll()).toEqual({ kind: 'downloaded', published: 3, lastId: 106 });
      const ids = publisher.events.map(
        (e) => (e.detail as { transaction: { transactionId: string } }).transaction.transactionId,
      );
      expect(ids).toEqual(['101', '102', '104', '105', '104', '105', '106']);
      expect(requests.some((r) => r.startsWith('/set-last-id/'))).toBe(true);
      expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a 409 says what it is and carries no token', async () => {
    conflict = true;
    try {
      const error = await createFioApi({ token: TOKEN, baseUrl: base })
        .last()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FioApiError);
      expect((error as Error).message).toBe('fio last: more than one request per 30 s (409)');
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(TOKEN);
    } finally {
      conflict = false;
    }
  });
});
