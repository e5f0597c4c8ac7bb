/** Delivery to HTTP consumers against a real local HTTP server that verifies each signature. */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalBus } from '#functions/adapters/local/local-bus.js';
import { parseTargetSpecs } from '#functions/core/delivery/delivery-targets.js';
import type { DetailType } from '#functions/core/event-catalog.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { createHttpDelivery, type DeliveryOutcome } from '#functions/local/http-delivery.js';
import { startRuntime } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { cli } from './cli-harness.js';

const SECRET = `whsec_${Buffer.from('a test secret of 32 bytes length').toString('base64')}`;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

let server: Server;
let base: string;
const received: Received[] = [];
/** Status codes to answer, in order; 200 once they run out. */
let script: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(SECRET).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      received.push({ path: req.url ?? '', headers: req.headers, body, verified });
      res.statusCode = script.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
  script = [];
});

const FAST = { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, timeoutMs: 2000 };

/** A local bus (journal in memory) with the delivery's subscribers; publishes `[detailType, id]` pairs. */
async function deliverThroughBus(
  specs: string[],
  events: [DetailType, string][],
  policy: Partial<typeof FAST> & { concurrency?: number } = FAST,
): Promise<{
  outcomes: DeliveryOutcome[];
  dead: { id: string; routeId: string; attempts: number; error: string }[];
}> {
  const outcomes: DeliveryOutcome[] = [];
  const delivery = createHttpDelivery({
    targets: parseTargetSpecs(specs),
    secretFor: () => SECRET,
    policy,
    onOutcome: (o) => outcomes.push(o),
  });
  const ids = events.map(([, id]) => id);
  const bus = createLocalBus({
    routes: [],
    deliver: async () => {},
    subscribers: delivery.subscribers,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    newId: () => ids.shift() ?? 'extra',
  });
  for (const [detailType, id] of events) {
    await bus.publish([{ source: 'accounting.test', detailType, detail: { id } }]);
  }
  await bus.drain();
  const dead = bus
    .deadLetters()
    .map((d) => ({ id: d.event.id, routeId: d.routeId, attempts: d.attempts, error: d.error }));
  await bus.close();
  return { outcomes, dead };
}

describe('http delivery (bus subscribers)', () => {
  it('signs per Standard Webhooks, retries a 503 with the same webhook-id, and delivers', async () => {
    script = [503, 503];
    const { outcomes, dead } = await deliverThroughBus([`${base}/hook`], [['IssuedInvoice.Created', 'e-1']]);
    expect(received).toHaveLength(3);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set(['e-1']));
    expect(JSON.parse(received[0]!.body)['detail-type']).toBe('IssuedInvoice.Created');
    expect(outcomes.map((o) => o.result)).toEqual(['retrying', 'retrying', 'delivered']);
    expect(dead).toEqual([]);
  });

  it('dead-letters on the bus after the last attempt, and at once on a 400', async () => {
    script = [503, 503, 503, 400];
    const { dead } = await deliverThroughBus(
      [base],
      [
        ['IssuedInvoice.Created', 'e-2'],
        ['IssuedInvoice.Created', 'e-3'],
      ],
      { ...FAST, concurrency: 1 },
    );
    expect(received.map((r) => r.headers['webhook-id'])).toEqual(['e-2', 'e-2', 'e-2', 'e-3']);
    expect(dead.map((d) => [d.id, d.routeId, d.error])).toEqual([
      ['e-2', 'delivery-1', expect.stringContaining('HTTP 503 (attempt 3)')],
      ['e-3', 'delivery-1', expect.stringContaining('HTTP 400 (attempt 1)')],
    ]);
  });

  it('delivers only what a target pattern matches', async () => {
    await deliverThroughBus(
      [`${base}/invoices,IssuedInvoice.*`, `${base}/orders,ReceivedOrder.Created|ReceivedOrder.Transferred`],
      [
        ['IssuedInvoice.Created', 'a'],
        ['ReceivedOrder.Created', 'b'],
        ['ReceivedOrder.Updated', 'c'],
        ['IssuedInvoice.IsdocArchived', 'd'],
      ],
    );
    const by = (path: string) =>
      received
        .filter((r) => r.path === path)
        .map((r) => r.headers['webhook-id'])
        .sort();
    expect(by('/invoices')).toEqual(['a', 'd']);
    expect(by('/orders')).toEqual(['b']);
  });

  it('rejects a bad target naming it, and a URL with a password', () => {
    expect(() => parseTargetSpecs(['ftp://x', `${base},Not a pattern`, 'http://u:p@127.0.0.1:1/'])).toThrow(
      /"ftp:\/\/x": expected an http:\/\/ or https:\/\/ URL; "Not a pattern" is not a detail-type pattern .*; "127.0.0.1:1": a user or password/,
    );
  });

  it('refuses a pattern that names no detail-type of the catalog, rather than delivering nothing', () => {
    expect(() =>
      parseTargetSpecs([
        `${base}/a,IssuedInvoice.Craeted`,
        `${base}/b,IssuedInvoce.*`,
        `${base}/c,IssuedInvoice.*`,
      ]),
    ).toThrow(
      /expected a detail-type of the event catalog, got "IssuedInvoice.Craeted"; "IssuedInvoce.\*" matches no detail-type of the event catalog$/,
    );
  });
});

describe('deliveries test URL', () => {
  it('sends one signed sample event and exits 0 on a 2xx, 1 otherwise', async () => {
    const ok = await cli(['deliveries', 'test', `${base}/t`], { env: { DELIVERY_SIGNING_SECRET: SECRET } });
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.stdout).toContain('HTTP 200');
    expect(ok.stdout).not.toContain(SECRET);
    expect(received).toHaveLength(1);
    expect(received[0]!.verified).toBe(true);
    script = [500];
    const failed = await cli(['deliveries', 'test', `${base}/t`], {
      env: { DELIVERY_SIGNING_SECRET: SECRET },
    });
    expect(failed.code).toBe(EXIT.failure);
    expect(failed.stdout).toContain('HTTP 500');
  });
});

describe('run --deliver-to on the sandbox', () => {
  let sandbox: Sandbox;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-deliver-'));
    sandbox = await startSandbox({
      sizes: { documents: 0, partners: 2, perCollection: { IssuedInvoices: 5 } },
      activity: { enabled: false },
    });
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('POSTs every matching event of a poll, signed', async () => {
    const runtime = await startRuntime({
      sandbox: { instance: sandbox },
      env: { DELIVERY_SIGNING_SECRET: SECRET },
      dataDir,
      intervalMs: 60_000,
      actions: false,
      backfillProgress: false,
      deliverTo: parseTargetSpecs([`${base}/run,IssuedInvoice.Created`]),
    });
    try {
      await runtime.pollOnce();
      await runtime.drain();
    } finally {
      await runtime.stop();
    }
    expect(received).toHaveLength(5);
    expect(received.every((r) => r.verified && r.path === '/run')).toBe(true);
  });

  it('a stop during the backoff keeps the event journaled; the next start delivers it', async () => {
    const failing = new Set<string>();
    // Every first POST of an event fails, so each event sits in its backoff when the stop comes.
    script = Array.from({ length: 5 }, () => 503);
    const start = () =>
      startRuntime({
        sandbox: { instance: sandbox },
        env: { DELIVERY_SIGNING_SECRET: SECRET },
        dataDir: join(dataDir, 'restart'),
        intervalMs: 60_000,
        actions: false,
        backfillProgress: false,
        deliverTo: parseTargetSpecs([`${base}/restart,IssuedInvoice.Created`]),
        deliveryPolicy: { baseDelayMs: 60_000, maxDelayMs: 60_000, concurrency: 5 },
      });
    const first = await start();
    await first.pollOnce();
    for (let i = 0; i < 200 && received.length < 5; i += 1) await new Promise((r) => setTimeout(r, 10));
    for (const r of received) failing.add(String(r.headers['webhook-id']));
    expect(failing.size).toBe(5);
    await first.stop();
    expect(first.bus.deadLetters()).toEqual([]);

    received.length = 0;
    const second = await start();
    try {
      await second.drain();
    } finally {
      await second.stop();
    }
    expect(new Set(received.map((r) => String(r.headers['webhook-id'])))).toEqual(failing);
    expect(received.every((r) => r.verified)).toBe(true);
  });
});
