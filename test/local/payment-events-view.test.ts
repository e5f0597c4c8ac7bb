/**
 * Payment events as they land, in the live view and in the console: the runtime (POLLER_PAYMENTS=true)
 * over a sandbox; an invoice paid in full after the baseline shows in the live view's recent events
 * (type, document number, what was paid and the rest; every line within 80 columns) and in the
 * console's events list and detail, with the same note.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsoleFeed } from '#functions/local/console/console-feed.js';
import { openConsole } from '#functions/local/console/open-console.js';
import { applyUpdate, emptyFrameState, renderFrame, visibleWidth } from '#functions/local/live-frame.js';
import { type Runtime, startRuntime } from '#functions/local/runtime.js';
import type { RuntimeUpdate } from '#functions/local/runtime-update.js';
import { silentLogger } from '#functions/shared/logger.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

let sandbox: Sandbox;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-payment-view-'));
  sandbox = await startSandbox({
    sizes: { documents: 40, partners: 5, perCollection: { IssuedInvoices: 12 } },
  });
});
afterAll(async () => {
  await sandbox?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('an IssuedInvoice.Paid shows in the live view and the console as it lands', async () => {
  const frame = emptyFrameState();
  const feed = createConsoleFeed();
  const updates: RuntimeUpdate[] = [];
  const runtime: Runtime = await startRuntime({
    sandbox: { instance: sandbox },
    env: { POLLER_PAYMENTS: 'true' },
    dataDir,
    intervalMs: 200,
    actions: false,
    backfillProgress: false,
    collections: ['IssuedInvoices'],
    onUpdate: (u) => {
      updates.push(u);
      applyUpdate(frame, u);
      feed.onUpdate(u);
    },
  });
  const server = await openConsole(runtime, feed, { port: 0, logger: silentLogger });
  const controller = new AbortController();
  const running = runtime.run({ signal: controller.signal });
  try {
    await waitFor('the baseline poll', () => updates.find((u) => u.kind === 'poll'));
    const domain = sandbox.server.domain;
    const id = sandbox.state
      .collection('IssuedInvoices')
      .entries.map((e) => e.id)
      .find((i) => (domain.liquidations.restOf('IssuedInvoices', i) ?? 0) > 0) as string;
    const rest = domain.liquidations.restOf('IssuedInvoices', id) as number;
    domain.liquidations.pay('IssuedInvoices', id, rest);
    const number = String(sandbox.state.getLatest('IssuedInvoices', id)?.DocumentNumber);
    const note = `+${rest.toFixed(2)}, rest 0.00`;

    // The live view: a line of the recent events, on an 80×24 terminal.
    await waitFor('the Paid event in the view', () =>
      frame.counters.get('IssuedInvoice.Paid') ? true : undefined,
    );
    const lines = renderFrame(frame, { columns: 80, rows: 24 }, new Date());
    const line = lines.find((l) => l.includes('IssuedInvoice.Paid') && l.includes(number));
    expect(line, lines.join('\n')).toBeDefined();
    expect(line).toContain(note);
    for (const l of lines) expect(visibleWidth(l), l).toBeLessThanOrEqual(80);

    // The console: the events list (filtered by type) and the event's detail.
    const base = server.url.slice(0, server.url.indexOf('/?'));
    const token = new URL(server.url).searchParams.get('token') ?? '';
    const list = (await (
      await fetch(`${base}/api/events?type=IssuedInvoice.Paid`, { headers: { 'x-console-token': token } })
    ).json()) as { id: string; detailType: string; documentNumber?: string; note?: string }[];
    expect(list).toEqual([
      expect.objectContaining({ detailType: 'IssuedInvoice.Paid', documentNumber: number, note }),
    ]);
    const detail = (await (
      await fetch(`${base}/api/events/${encodeURIComponent(list[0]?.id as string)}`, {
        headers: { 'x-console-token': token },
      })
    ).json()) as { event: { detail: Record<string, unknown> }; fields: { path: string }[] };
    expect(detail.event.detail).toMatchObject({ id, change: 'Paid', restToPay: 0, amountPaid: rest });
    expect(detail.fields.map((f) => f.path)).toEqual(expect.arrayContaining(['amountPaid', 'restToPay']));
  } finally {
    controller.abort();
    await running;
    await server.close();
  }
});
