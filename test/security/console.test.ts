/**
 * Issue 33, the console's Low findings, over the real console server and a real archive (s3rver):
 * - `key=isdoc/../sync/…` escaped `isdoc/` (200, 1,811 bytes); keys must have the archive's shape;
 * - a replay filter with an unknown key replayed the latest 100 events (the schema dropped the key);
 * - the policy allowed `'unsafe-inline'`, and the token stayed in every URL the page fetched.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import type { LocalBus } from '#functions/adapters/local/local-bus.js';
import type { IsdocSchema } from '#functions/core/actions/ports.js';
import { createConsoleFeed } from '#functions/local/console/console-feed.js';
import { type ConsoleServer, startConsoleServer } from '#functions/local/console/console-server.js';
import { type LocalStores, startLocalStores } from '#functions/local/local-stores.js';

const SECRET_STATE = '{"checkpoint":"private-sync-state"}';
let dir: string;
let stores: LocalStores;
let server: ConsoleServer;
let base: string;
let token: string;
const published: unknown[][] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-console-'));
  stores = await startLocalStores(join(dir, 'data'));
  await stores.archive.put({
    key: 'isdoc/acme/IssuedInvoice/2026/01/FA1_1.isdoc',
    body: Buffer.from('<Invoice/>'),
    contentType: 'application/xml',
  });
  await stores.archive.put({
    key: 'sync/acme/state.json',
    body: Buffer.from(SECRET_STATE),
    contentType: 'application/json',
  });
  const feed = createConsoleFeed();
  for (let i = 0; i < 5; i++) {
    feed.onEvent(
      {
        version: '0',
        id: `e${i}`,
        'detail-type': 'IssuedInvoice.Created',
        source: 'accounting.acme',
        account: '0',
        time: '2026-01-31T12:00:00Z',
        region: 'local',
        resources: [],
        detail: { connection: 'acme' },
      },
      [],
    );
  }
  const bus = {
    publish: async (events: unknown[]) => {
      published.push(events);
    },
  } as unknown as LocalBus;
  server = await startConsoleServer(
    {
      feed,
      bus,
      deadLetters: { list: async () => [] } as unknown as DeadLetterStore,
      archive: stores.archive,
      isdocSchema: {} as IsdocSchema,
      checkpoints: async () => [],
    },
    { port: 0, logger: { debug() {}, info() {}, warn() {}, error() {} } as never },
  );
  base = server.url.slice(0, server.url.indexOf('/?'));
  token = new URL(server.url).searchParams.get('token') ?? '';
}, 60_000);

afterAll(async () => {
  await server?.close();
  await stores?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string) => request(`${base}${path}`, { headers: { 'x-console-token': token } });
const post = (path: string, body: unknown) =>
  request(`${base}${path}`, {
    method: 'POST',
    headers: { 'x-console-token': token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the console against hostile requests', () => {
  it('serves an archived ISDOC by its key', async () => {
    const res = await get(
      `/api/archive/object?key=${encodeURIComponent('isdoc/acme/IssuedInvoice/2026/01/FA1_1.isdoc')}`,
    );
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('<Invoice/>');
  });

  it.each([
    'isdoc/../sync/acme/state.json',
    'isdoc/acme/../../sync/acme/state.json',
    'isdoc/./acme/IssuedInvoice/2026/01/FA1_1.isdoc',
    'isdoc//acme/IssuedInvoice/2026/01/FA1_1.isdoc',
    'isdoc/acme/IssuedInvoice/2026/01/../../../../sync/acme/state.json',
    'isdoc/acme/IssuedInvoice/2026/01/%2e%2e',
    'isdoc/acme/IssuedInvoice/2026/01/FA1_1.isdoc/..',
    'isdoc\\..\\sync\\acme\\state.json',
  ])('refuses the archive key %s with 400, reading nothing', async (key) => {
    for (const path of ['/api/archive/object', '/api/archive/isdoc']) {
      const res = await get(`${path}?key=${encodeURIComponent(key)}`);
      const text = await res.body.text();
      expect(res.statusCode).toBe(400);
      expect(text).toContain('key:');
      expect(text).not.toContain('private-sync-state');
    }
  });

  it.each([
    [{ filter: { typo: 'IssuedInvoice.Created' } }, 'typo'],
    [{ filter: {} }, 'all: true'],
    [{ filter: { type: '', connection: '  ' } }, 'all: true'],
    [{ filter: { all: false } }, 'all'],
  ])('refuses the replay %j: nothing replayed', async (body, named) => {
    const before = published.length;
    const res = await post('/api/replay', body);
    expect(res.statusCode).toBe(400);
    expect(await res.body.text()).toContain(named);
    expect(published.length).toBe(before);
  });

  it('replays every event only when asked with all: true, and by a criterion', async () => {
    const all = await post('/api/replay', { filter: { all: true } });
    expect(await all.body.json()).toEqual({ replayed: 5 });
    const some = await post('/api/replay', { filter: { connection: 'acme', limit: '2' } });
    expect(await some.body.json()).toEqual({ replayed: 2 });
  });

  it('runs no inline script or style but the page’s own, under a fresh nonce for each load', async () => {
    const pages = await Promise.all([1, 2].map(() => request(`${base}/?token=${token}`)));
    const nonces: string[] = [];
    for (const res of pages) {
      const csp = String(res.headers['content-security-policy']);
      const html = await res.body.text();
      expect(csp).not.toContain('unsafe-inline');
      const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1] as string;
      expect(csp).toContain(`style-src 'nonce-${nonce}'`);
      expect(html).toContain(`<script nonce="${nonce}">`);
      expect(html).toContain(`<style nonce="${nonce}">`);
      expect(html.match(/<script/g)).toHaveLength(1);
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
    const api = await get('/api/events');
    expect(String(api.headers['content-security-policy'])).toContain("script-src 'none'");
    await api.body.dump();
  });

  it('takes the token in the URL for the page only; every other read needs the header', async () => {
    for (const path of ['/api/events', '/api/archive', '/api/stream', '/api/dead-letters']) {
      const res = await request(`${base}${path}?token=${token}`);
      expect(res.statusCode, path).toBe(401);
      await res.body.dump();
    }
    const page = await request(`${base}/?token=${token}`);
    // The page removes the token from the address bar and the history once it has it.
    expect(await page.body.text()).toContain(
      "history.replaceState(null, '', location.pathname + location.hash)",
    );
  });
});
