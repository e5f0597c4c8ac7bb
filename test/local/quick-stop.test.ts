/**
 * The stop of a running runtime does not wait for the whole delivery backlog: the deliveries in
 * flight finish, no queued one starts, and the next start on the same data directory delivers the
 * rest — every journaled event reaches each of its routes at least once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from '#functions/adapters/local/local-bus.js';
import { type Runtime, startRuntime } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

let sandbox: Sandbox;
let dataDir: string;

beforeAll(async () => {
  // Slow answers keep the actions' deliveries queued well after the poll has journaled the events.
  sandbox = await startSandbox({
    sizes: { documents: 300, partners: 3, perCollection: {} },
    faults: { pathPattern: '^/v1/', latency: { baseMs: 20, jitterMs: 0 } },
  });
  dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-quick-stop-'));
});

afterAll(async () => {
  await sandbox.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Which routes each published event matched, and which (route, event) deliveries ended handled. */
function record(runtime: Runtime, expected: Map<string, string[]>, outcomes: DeliveryOutcome[]): void {
  runtime.bus.onEvent((event, routeIds) => expected.set(event.id, routeIds));
  runtime.bus.onDelivery((outcome) => outcomes.push(outcome));
}

const start = () =>
  startRuntime({
    sandbox: { instance: sandbox },
    env: {},
    dataDir,
    intervalMs: 60_000,
    actions: true,
    backfillProgress: false,
  });

const handled = (outcomes: readonly DeliveryOutcome[]) =>
  new Set(outcomes.filter((o) => o.status !== 'retrying').map((o) => `${o.routeId}\n${o.eventId}`));

// Generous time for a busy machine (42 s measured with stress-ng --cpu 8 on 2 cores): no claim on speed.
describe('local runtime: a stop with a delivery backlog', () => {
  it('starts no queued delivery after the stop, and the next start delivers the rest', async () => {
    const expected = new Map<string, string[]>();
    const outcomes: DeliveryOutcome[] = [];
    const first = await start();
    record(first, expected, outcomes);
    await first.pollOnce();
    const atStop = outcomes.length;
    await first.stop();
    // Only the deliveries in flight at the stop can end after it: per route, at most its
    // concurrency (the runtime's own routes: the sandbox's partners switch e-invoicing on).
    const routes = first.routes();
    expect(routes.map((r) => r.id)).toContain('archive-isdoc');
    const inFlightAtMost = routes.reduce((n, r) => n + r.maxConcurrency, 0);
    const afterStop = new Map<string, number>();
    for (const o of outcomes.slice(atStop)) afterStop.set(o.routeId, (afterStop.get(o.routeId) ?? 0) + 1);
    for (const [routeId, n] of afterStop) {
      const route = routes.find((r) => r.id === routeId);
      expect({ routeId, endedAfterStop: n }).toEqual({
        routeId,
        endedAfterStop: Math.min(n, route?.maxConcurrency ?? 0),
      });
    }
    const pairs = [...expected].flatMap(([id, routes]) => routes.map((route) => `${route}\n${id}`));
    const left = pairs.filter((pair) => !handled(outcomes).has(pair));
    // A real backlog was left to the next start.
    expect(left.length).toBeGreaterThan(inFlightAtMost);

    const second = await start();
    record(second, expected, outcomes);
    try {
      await second.drain();
    } finally {
      await second.stop();
    }
    const all = [...expected].flatMap(([id, routes]) => routes.map((route) => `${route}\n${id}`));
    const done = handled(outcomes);
    expect(all.filter((pair) => !done.has(pair))).toEqual([]);
    expect(first.bus.deadLetters()).toEqual([]);
    expect(second.bus.deadLetters()).toEqual([]);
  }, 240_000);
});
