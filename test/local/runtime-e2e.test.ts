/**
 * The whole pipeline in process on embedded defaults: sandbox, dynalite + s3rver in a temporary data
 * directory, the local bus with the routing table, the poller on a short interval and every action.
 * An order made by the sandbox's activity generator must travel
 *   ReceivedOrder.Created → transfer → IssueSlip → transfer → IssuedInvoice → ISDOC in S3 → e-invoice status
 * and a restart on the same data directory must not repeat any effect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import type { RuntimeUpdate } from '#functions/local/live-view.js';
import { type Runtime, startRuntime } from '#functions/local/runtime.js';
import { ONCE_POLL_BUDGET_MS } from '#functions/local/runtime-options.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

// Bounds that only end a broken test: a busy machine takes several times as long as a quiet one.
const BOUND_MS = 60_000;

type Detail = Record<string, unknown> & {
  id?: string;
  target?: { id: string; recordType: string };
  archive?: { key: string };
  final?: boolean;
};

function detailOf(e: EventBridgeEvent): Detail {
  return e.detail as Detail;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function start(
  sandbox: Sandbox,
  dataDir: string,
  onUpdate?: (update: RuntimeUpdate) => void,
): Promise<Runtime> {
  return startRuntime({
    ...(onUpdate ? { onUpdate } : {}),
    sandbox: { instance: sandbox },
    env: {},
    dataDir,
    intervalMs: 150,
    trackerIntervalMs: 150,
    actions: true,
    backfillProgress: false,
    // A short lookback keeps the windows moving in a short test; the overlap dedupe still applies.
    poll: { lookbackMs: 1000 },
  });
}

async function objectKeys(runtime: Runtime): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of runtime.stores.archive.list('isdoc/')) keys.push(info.key);
  return keys.sort();
}

describe('local runtime end to end', () => {
  let sandbox: Sandbox;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-e2e-'));
    sandbox = await startSandbox({
      sizes: { documents: 0, partners: 3, perCollection: {} },
      activity: {
        enabled: false,
        ratePerSecond: 1,
        weights: { createOrder: 1, editDocument: 0, issueInvoice: 0 },
      },
      eInvoicing: { stepMs: 50, transportFailureProbability: 0 },
    });
  });

  afterAll(async () => {
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('carries a new order to an archived, e-invoiced invoice, and a restart repeats nothing', async () => {
    // Run 1.
    const first = await start(sandbox, dataDir);
    const controller = new AbortController();
    const running = first.run({ signal: controller.signal });
    let orderId: string;
    let slipId: string;
    let invoiceId: string;
    let isdocKey: string;
    try {
      await waitFor('the first poll', () => (first.bus.publishedCount() > 0 ? true : undefined));
      const made = sandbox.server.activity.tick();
      expect(made.action).toBe('createOrder');
      orderId = made.id as string;
      const events = () => first.bus.events();
      const find = (type: string, id: string) =>
        events().find((e) => e['detail-type'] === type && detailOf(e).id === id);

      await waitFor('ReceivedOrder.Created', () => find('ReceivedOrder.Created', orderId));
      const transferred = await waitFor('ReceivedOrder.Transferred', () =>
        find('ReceivedOrder.Transferred', orderId),
      );
      slipId = detailOf(transferred).target!.id;
      expect(detailOf(transferred).target!.recordType).toBe('IssueSlip');
      await waitFor('IssueSlip.Created', () => find('IssueSlip.Created', slipId));
      const slipTransferred = await waitFor('IssueSlip.Transferred', () =>
        find('IssueSlip.Transferred', slipId),
      );
      invoiceId = detailOf(slipTransferred).target!.id;
      await waitFor('IssuedInvoice.Created', () => find('IssuedInvoice.Created', invoiceId));
      const archived = await waitFor('IssuedInvoice.IsdocArchived', () =>
        find('IssuedInvoice.IsdocArchived', invoiceId),
      );
      isdocKey = detailOf(archived).archive!.key;
      const stored = await first.stores.archive.head(isdocKey);
      expect(stored?.size).toBeGreaterThan(0);
      // Every status of the sending, up to a final one.
      await waitFor('a final e-invoice status', () =>
        events().find(
          (e) =>
            e['detail-type'] === 'IssuedInvoice.EInvoiceStatusChanged' &&
            detailOf(e).id === invoiceId &&
            detailOf(e).final === true,
        ),
      );
      // The actions change their sources too (a transfer finishes the order and the slip): run 1
      // stops only once it has published the latest version of all three records, so that run 2
      // has no change left to see and anything it publishes about them is a repeat.
      const latestMs = (collection: string, id: string) => {
        const info = sandbox.state.getLatest(collection, id)?.ModificationInfo as
          | { ModifiedDate?: string }
          | undefined;
        return Date.parse(info?.ModifiedDate ?? '');
      };
      const observed = (collection: string, id: string) =>
        events().some(
          (e) =>
            detailOf(e).id === id &&
            typeof detailOf(e).modifiedDate === 'string' &&
            Date.parse(detailOf(e).modifiedDate as string) === latestMs(collection, id),
        );
      await waitFor('the latest version of the order, the slip and the invoice', () =>
        observed('ReceivedOrders', orderId) &&
        observed('IssueSlips', slipId) &&
        observed('IssuedInvoices', invoiceId)
          ? true
          : undefined,
      );
      expect(first.bus.deadLetters()).toEqual([]);
    } finally {
      controller.abort();
      await running;
    }
    const countsAfterFirst = sandbox.state.counts();

    // Run 2 on the same data directory and the same service.
    // It runs until it has polled twice, however long that takes.
    let secondPolls = 0;
    const secondStop = new AbortController();
    const second = await start(sandbox, dataDir, (u) => {
      if (u.kind === 'poll' && ++secondPolls >= 2) secondStop.abort();
    });
    await second.run({ signal: secondStop.signal });
    const again = second.bus
      .events()
      .filter((e) => [orderId, slipId, invoiceId].includes(detailOf(e).id ?? ''));
    expect(again.map((e) => e['detail-type'])).toEqual([]);
    expect(sandbox.state.counts()).toEqual(countsAfterFirst);

    // The archive still holds exactly one ISDOC for the invoice and, once its one sending was
    // final, that sending's record beside it (docs/einvoicing.md).
    const third = await start(sandbox, dataDir);
    try {
      const keys = (await objectKeys(third)).filter((k) => k.includes(invoiceId));
      expect(keys.filter((k) => !k.endsWith('.einvoice.json'))).toEqual([isdocKey]);
      const records = keys.filter((k) => k.endsWith('.einvoice.json'));
      expect(records.length).toBeLessThanOrEqual(1);
      for (const k of records) expect(k.startsWith(`${isdocKey}.`), k).toBe(true);
    } finally {
      await third.stop();
    }
  }, 180_000);
});

describe('local runtime: the first start counts the records for the progress bar', () => {
  it('leaves a collection whose count fails out of the total and polls on', async () => {
    const sandbox = await startSandbox({
      sizes: { documents: 20, partners: 3, perCollection: {} },
      faults: { pathPattern: '^/v1/IssuedTaxDocuments$', random5xxRate: 1 },
    });
    const dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-count-'));
    const updates: { kind: string; total?: number }[] = [];
    try {
      const runtime = await startRuntime({
        sandbox: { instance: sandbox },
        env: {},
        dataDir,
        intervalMs: 150,
        actions: false,
        // One poll reaches every collection however slow the machine (the default 2 s slice may end
        // before IssuedTaxDocuments, which then reports no failure).
        pollBudgetMs: ONCE_POLL_BUDGET_MS,
        onUpdate: (u) => updates.push(u as { kind: string; total?: number }),
      });
      try {
        const summary = await runtime.pollOnce();
        expect(summary.published).toBeGreaterThan(0);
        expect(summary.collections.find((c) => c.collection === 'IssuedTaxDocuments')?.status).toBe('failed');
      } finally {
        await runtime.stop();
      }
      expect(updates.find((u) => u.kind === 'backfill')?.total).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
