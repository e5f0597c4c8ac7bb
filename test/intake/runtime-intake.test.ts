/**
 * End to end in the local runtime: a signed shop webhook posted to `run --intake-port` becomes
 * EshopOrder.Imported → ReceivedOrder.Created (the poller) → ReceivedOrder.Transferred (the chain),
 * and `--events-out` holds one EshopOrder.Imported per shop order however many deliveries there were.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import { type Runtime, startRuntime } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { SECRETS } from './support.js';

// A bound on the wait for the transfers, there only to end a broken test: the chain takes a few
// seconds on a quiet machine and several times that on a busy one.
const BOUND_MS = 90_000;

describe('e-shop order intake in the local runtime', () => {
  let sandbox: Sandbox;
  let dataDir: string;
  let runtime: Runtime | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-intake-'));
    sandbox = await startSandbox({ sizes: { documents: 0, partners: 3, perCollection: {} } });
  });
  afterAll(async () => {
    await runtime?.stop();
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('turns a shop webhook into an imported, transferred received order, once', async () => {
    const eventsOut = join(dataDir, 'events.jsonl');
    const started = await startRuntime({
      sandbox: { instance: sandbox },
      env: { ...SECRETS },
      dataDir: join(dataDir, 'data'),
      intervalMs: 150,
      actions: true,
      backfillProgress: false,
      eventsOut,
      poll: { lookbackMs: 1000 },
      intake: { port: 0 },
    });
    runtime = started;
    const intake = started.intake;
    if (!intake) throw new Error('no intake');
    expect(intake.sources).toEqual(['shopify', 'woocommerce', 'generic']);
    const stopper = new AbortController();
    // Stopped by the test once it has seen what it waits for, not after a fixed duration.
    const running = started.run({ signal: stopper.signal });

    // Subscribed before the first delivery: the import may publish before the answer arrives.
    const transferredIds = new Set<string>();
    const importedIds = new Map<string, string>();
    started.bus.onEvent((e) => {
      const d = e.detail as { id?: string; receivedOrderId?: string; shopOrderId?: string };
      if (e['detail-type'] === 'EshopOrder.Imported' && d.receivedOrderId && d.shopOrderId)
        importedIds.set(d.shopOrderId, d.receivedOrderId);
      if (e['detail-type'] === 'ReceivedOrder.Transferred' && d.id) transferredIds.add(d.id);
    });
    const shopify = sampleOrder('shopify', 11);
    const woo = sampleOrder('woocommerce', 12);
    const deliveries = await Promise.all([
      postSignedOrder({
        baseUrl: intake.url,
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body: JSON.stringify(shopify),
      }),
      postSignedOrder({
        baseUrl: intake.url,
        source: 'shopify',
        secret: SECRETS.INTAKE_SHOPIFY_SECRET,
        body: JSON.stringify(shopify),
      }),
      postSignedOrder({
        baseUrl: intake.url,
        source: 'woocommerce',
        secret: SECRETS.INTAKE_WOOCOMMERCE_SECRET,
        body: JSON.stringify(woo),
      }),
    ]);
    expect(deliveries.map((d) => d.status)).toEqual([202, 202, 202]);
    const again = await postSignedOrder({
      baseUrl: intake.url,
      source: 'shopify',
      secret: SECRETS.INTAKE_SHOPIFY_SECRET,
      body: JSON.stringify(shopify),
    });
    expect(again.status).toBe(202);

    // The poller sees the new orders and the chain transfers them.
    const deadline = Date.now() + BOUND_MS;
    const want = [String(shopify.id), String(woo.id)];
    try {
      while (!want.every((id) => transferredIds.has(importedIds.get(id) ?? '-'))) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out: imported ${[...importedIds.keys()]}, transferred ${transferredIds.size}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      stopper.abort();
      await running;
    }

    const lines = (await readFile(eventsOut, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { 'detail-type': string; detail: Record<string, unknown> });
    const imported = lines.filter((l) => l['detail-type'] === 'EshopOrder.Imported');
    expect(imported.map((l) => l.detail.shopOrderId).sort()).toEqual(want.sort());
    for (const id of want) {
      const receivedOrderId = importedIds.get(id);
      expect(
        lines.filter((l) => l['detail-type'] === 'ReceivedOrder.Created' && l.detail.id === receivedOrderId),
      ).toHaveLength(1);
    }
  }, 120_000);
});

describe('e-shop order intake of many connections in the local runtime', () => {
  let sandbox: Sandbox;
  let dataDir: string;
  let runtime: Runtime | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-intake-many-'));
    sandbox = await startSandbox({ companies: 2, sizes: { documents: 0, partners: 3, perCollection: {} } });
  });
  afterAll(async () => {
    await runtime?.stop();
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('imports an order into the company its path names; /intake/<source> names none of many', async () => {
    const started = await startRuntime({
      sandbox: { instance: sandbox },
      companies: 2,
      env: { ...SECRETS },
      dataDir: join(dataDir, 'data'),
      intervalMs: 150,
      actions: true,
      backfillProgress: false,
      poll: { lookbackMs: 1000 },
      intake: { port: 0 },
    });
    runtime = started;
    const intake = started.intake;
    if (!intake) throw new Error('no intake');
    expect(intake.named).toBe(true);
    const stopper = new AbortController();
    const running = started.run({ signal: stopper.signal });
    const imported = new Map<string, { source: string; connection: unknown }>();
    started.bus.onEvent((e) => {
      const d = e.detail as { shopOrderId?: string; connection?: string };
      if (e['detail-type'] === 'EshopOrder.Imported' && d.shopOrderId)
        imported.set(d.shopOrderId, { source: e.source, connection: d.connection });
    });
    const post = (n: number, connection?: string) =>
      postSignedOrder({
        baseUrl: intake.url,
        source: 'generic',
        ...(connection ? { connection } : {}),
        secret: SECRETS.INTAKE_GENERIC_SECRET,
        body: JSON.stringify(sampleOrder('generic', n)),
      });
    const unnamed = await post(20);
    expect(unnamed.status).toBe(404);
    expect(unnamed.body).toContain('/intake/<connection>/<source>');
    expect((await post(21, 'sandbox-3')).status).toBe(404);
    expect((await post(22, 'sandbox-2')).status).toBe(202);
    expect((await post(23, 'sandbox-1')).status).toBe(202);
    const deadline = Date.now() + BOUND_MS;
    try {
      while (imported.size < 2) {
        if (Date.now() > deadline) throw new Error(`timed out: imported ${[...imported.keys()]}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      stopper.abort();
      await running;
    }
    const id = (n: number) => String(sampleOrder('generic', n).id);
    expect(imported.get(id(22))).toEqual({ source: 'accounting.sandbox-2', connection: 'sandbox-2' });
    expect(imported.get(id(23))).toEqual({ source: 'accounting.sandbox-1', connection: 'sandbox-1' });
    expect(imported.has(id(20))).toBe(false);
  }, 120_000);
});
