/**
 * The local poller reads a backfill in time-boxed slices: the progress moves poll by poll, and a
 * stop in the middle of a backfill ends the poll in flight with its checkpoint saved, so the next
 * start goes on from there instead of from the beginning.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointKey } from '#functions/core/sync/checkpoint-state.js';
import type { RuntimeUpdate } from '#functions/local/live-view.js';
import { startRuntime } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

describe('local poller: a backfill in time-boxed slices', () => {
  let sandbox: Sandbox;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-slices-'));
    sandbox = await startSandbox({
      sizes: { documents: 0, partners: 2, perCollection: { IssuedInvoices: 400 } },
      activity: { enabled: false },
      // Every page takes a while, so a short budget ends each poll after a few pages.
      faults: { latency: { baseMs: 20, jitterMs: 0, distribution: 'uniform' } },
    });
  });

  afterAll(async () => {
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  // The change detector's backfill is counted: the payment detector's own events are off here.
  const NO_PAYMENTS = { POLLER_PAGE_SIZE: '10', POLLER_PAYMENTS: 'false' };

  it('reports progress per slice, stops mid-backfill with the checkpoint saved, and resumes', async () => {
    const updates: RuntimeUpdate[] = [];
    const controller = new AbortController();
    const runtime = await startRuntime({
      sandbox: { instance: sandbox },
      env: NO_PAYMENTS,
      dataDir,
      collections: ['IssuedInvoices'],
      intervalMs: 60_000,
      actions: false,
      pollBudgetMs: 100,
      onUpdate: (u) => {
        updates.push(u);
        // Stop once the backfill is under way but not done.
        if (u.kind === 'backfill' && u.done > 0 && u.done < u.total) controller.abort();
      },
    });
    await runtime.run({ signal: controller.signal });
    const progress = updates.filter((u) => u.kind === 'backfill');
    expect(progress[0]).toEqual({ kind: 'backfill', done: 0, total: 400 });
    const moved = progress.find((u) => u.done > 0);
    expect(moved?.done).toBeGreaterThan(0);
    expect(moved?.done).toBeLessThan(400);
    expect(updates.at(-1)?.kind).toBe('stopped');
    // Stopped before the end: the backfill says so (never "done"), at what was published.
    const published = updates.filter((u) => u.kind === 'event' && u.detailType === 'IssuedInvoice.Created');
    expect(progress.some((u) => u.state === 'done')).toBe(false);
    expect(progress.at(-1)).toEqual({
      kind: 'backfill',
      done: published.length,
      total: 400,
      state: 'interrupted',
    });

    // A second start resumes from the saved checkpoint: it publishes the rest, not all 400 again.
    const second = await startRuntime({
      sandbox: { instance: sandbox },
      env: NO_PAYMENTS,
      dataDir,
      collections: ['IssuedInvoices'],
      intervalMs: 60_000,
      actions: false,
      pollBudgetMs: 100,
      backfillProgress: false,
    });
    try {
      const saved = await second.stores.checkpoints.get(checkpointKey('sandbox', 'IssuedInvoices'));
      expect(saved).toBeDefined();
      let published = 0;
      for (;;) {
        const summary = await second.pollOnce();
        published += summary.published;
        if (!summary.more) break;
      }
      expect(published).toBeGreaterThan(0);
      expect(published).toBeLessThan(400);
    } finally {
      await second.stop();
    }
  }, 240_000); // a real backfill in slices against the sandbox and the embedded stores; generous for a busy machine

  it('moves the bar as records are published, within one poll, and says done when the poll ends with nothing left', async () => {
    const updates: RuntimeUpdate[] = [];
    const runtime = await startRuntime({
      sandbox: { instance: sandbox },
      env: NO_PAYMENTS,
      dataDir: join(dataDir, 'one-poll'),
      collections: ['IssuedInvoices'],
      intervalMs: 60_000,
      actions: false,
      // One poll reads the whole backfill (40 pages of 10).
      pollBudgetMs: 600_000,
      onUpdate: (u) => updates.push(u),
    });
    try {
      await runtime.pollOnce();
    } finally {
      await runtime.stop();
    }
    const firstPoll = updates.findIndex((u) => u.kind === 'poll');
    const before = updates.slice(0, firstPoll).filter((u) => u.kind === 'backfill');
    // Before the poll's end the bar had moved, by what had been published.
    expect(before.some((u) => u.done > 0 && u.done < 400)).toBe(true);
    for (const u of before) {
      const publishedThen = updates
        .slice(0, updates.indexOf(u))
        .filter((e) => e.kind === 'event' && e.detailType === 'IssuedInvoice.Created').length;
      expect(u.done).toBeLessThanOrEqual(publishedThen);
    }
    const last = updates.filter((u) => u.kind === 'backfill').at(-1);
    expect(last).toEqual({ kind: 'backfill', done: 400, total: 400, state: 'done' });
  }, 240_000);

  it('reads at least one page a slice however long its setup takes: a budget of 0 reads the backfill page by page', async () => {
    // The budget counts from the first page, not from the start of the poll: with a budget of 0,
    // the setup (checkpoints from the embedded store) takes longer than the budget on any machine,
    // and a budget counted from the start would read no page at all.
    const runtime = await startRuntime({
      sandbox: { instance: sandbox },
      // Only the change detector's pages are counted: the payment detector's baseline is off here.
      env: { POLLER_PAGE_SIZE: '100', POLLER_PAYMENTS: 'false' },
      dataDir: join(dataDir, 'zero-budget'),
      collections: ['IssuedInvoices'],
      intervalMs: 60_000,
      actions: false,
      pollBudgetMs: 0,
      backfillProgress: false,
    });
    try {
      const perSlice: number[] = [];
      for (let slice = 0; slice < 10; slice++) {
        const summary = await runtime.pollOnce();
        perSlice.push(summary.published);
        if (!summary.more) break;
      }
      // One page of 100 a slice; the slice that reads the fourth page finds it is the last one.
      expect(perSlice).toEqual([100, 100, 100, 100]);
    } finally {
      await runtime.stop();
    }
  }, 120_000);
});
