/**
 * The connections benchmark's accounting, on a small run (20 connections in shards of 5, a warm-up,
 * a settle cycle, two steady cycles and a tail, no injected latency, plain http, each invocation on
 * a container drawn at random): an idle connection costs one request per polled collection per
 * cycle; every connection is polled once per cycle and never by two invocations at once; an idle
 * cycle writes nothing per connection; every change reaches the bus; the credentials sealed in the
 * entries cost one KMS decryption per new container; the cost adds up its items at the price list.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { maxConcurrent, measureConnections, WARM_UP_CYCLES } from '#bench/connections.js';
import { PRICES } from '#bench/prices.js';

const COUNT = 20;
let run: Awaited<ReturnType<typeof measureConnections>>;
// About 17 s on a quiet two-core machine next to other test files (four cycles of 20 connections
// against embedded dynalite and the sandbox); a busy machine takes several times that.
const MEASURE_TIMEOUT_MS = 300_000;
beforeAll(async () => {
  run = await measureConnections({ count: COUNT, steadyCycles: 2, churn: 0.1, shardSize: 5, latency: null });
}, MEASURE_TIMEOUT_MS);

describe('connections benchmark (20 connections, 2 steady cycles)', () => {
  it('an idle connection costs one request per polled collection per cycle', async () => {
    const { figures, requests, changed } = run;
    const collections = figures.details.collectionsPerConnection;
    expect(collections).toBe(12);
    for (const [cycle, perConnection] of requests.entries()) {
      // The steady cycles only: not the warm-up backfill, the settle cycle after it, or the tail.
      if (cycle <= WARM_UP_CYCLES || cycle === requests.length - 1) continue;
      expect(perConnection.size).toBe(COUNT);
      for (const [connection, n] of perConnection) {
        // One per polled collection, plus the payment detector's reads when it is due (on by default).
        if (!changed[cycle]?.has(connection)) {
          expect(n, `${connection} in cycle ${cycle}`).toBeGreaterThanOrEqual(collections);
          expect(n, `${connection} in cycle ${cycle}`).toBeLessThanOrEqual(collections + 2);
        } else expect(n).toBeGreaterThanOrEqual(collections);
      }
    }
    expect(figures.details.idleRequestsPerConnectionPerCycle).toBeGreaterThanOrEqual(collections);
    expect(figures.details.idleRequestsPerConnectionPerCycle).toBeLessThanOrEqual(collections + 2);
    expect(figures.details.changedConnectionsPerCycle).toBe(2);
    expect(figures.requestsPerConnectionPerCycle).toBeGreaterThanOrEqual(collections);
  });

  it('every connection is polled once per cycle, never twice at once', async () => {
    const { figures, polls } = run;
    for (let cycle = 0; cycle < WARM_UP_CYCLES + 1 + 2 + 1; cycle++) {
      const polled = polls.filter((p) => p.cycle === cycle).map((p) => `${p.connection}:${p.status}`);
      expect(polled.sort()).toEqual(
        Array.from({ length: COUNT }, (_, i) => `sandbox-${i + 1}:polled`).sort(),
      );
    }
    for (let k = 1; k <= COUNT; k++) {
      expect(maxConcurrent(polls.filter((p) => p.connection === `sandbox-${k}`))).toBe(1);
    }
    expect(figures.maxConcurrentPolls).toBeGreaterThanOrEqual(1);
    expect(figures.maxConcurrentPolls).toBeLessThanOrEqual(COUNT);
    // 20 connections in shards of 5: four poller invocations a cycle, one schedule each, no queue.
    expect(figures.details.perCycle).toMatchObject({
      pollerInvocations: 4,
      schedulerInvocations: 4,
      sqsRequests: 0,
    });
  });

  it('the cost per connection-month is the sum of its items; no metric and no write per connection', async () => {
    const { figures } = run;
    const sum = figures.details.cost.reduce((n, l) => n + l.usd, 0);
    expect(figures.costPerConnectionMonthUsd).toBeCloseTo(sum, 3);
    expect(figures.details.metrics.perConnection).toBe(0);
    expect(figures.details.costWithPerConnectionMetricsUsd - figures.costPerConnectionMonthUsd).toBeCloseTo(
      4 * PRICES.customMetricMonth,
      3,
    );
    for (const l of figures.details.cost) expect(l.usd, l.item).toBeGreaterThanOrEqual(0);
    const { perConnection } = figures.details.perCycle;
    expect(perConnection.readUnits).toBeGreaterThan(0);
    // Writes of a steady cycle: the changed connections' checkpoints and the shards' leases only.
    // (plus the settle writes those changes owe, measured in the tail cycle and folded in).
    expect(figures.details.perCycle.dynamoDbWriteUnits).toBeLessThanOrEqual(
      4 * 2 + 2 * figures.details.perCycle.pollerInvocations + figures.details.settleWriteUnitsPerCycle,
    );
    // Credentials: sealed in the entries, so a container reads (and KMS decrypts) the one data key
    // once for its life: a steady cycle decrypts once per new container, whatever the connections.
    expect(figures.details.credentials).toBe('sealed');
    expect(figures.details.perCycle.credentialCalls).toBe(figures.details.perCycle.coldStarts);
    expect(figures.details.perCycle.credentialDecrypts).toBe(figures.details.perCycle.coldStarts);
    expect(figures.details.containerAffinity).toBe(false);
    expect(figures.details.region).toBe('eu-central-1');
  });

  it('every change of a steady cycle reaches the bus within its cycle', async () => {
    const { detection } = run.figures.details;
    expect(detection.changes).toBe(4);
    expect(detection.detected).toBe(detection.changes);
    // Changed during the minute before the cycle, published in it.
    expect(detection.p50Ms).toBeGreaterThan(0);
    expect(detection.maxMs).toBeLessThan(120_000);
  });
});
