/**
 * The connections benchmark's accounting, on a small run (20 connections in shards of 5, a warm-up
 * and two steady cycles, no injected latency): an idle connection costs one request per polled
 * collection per cycle; every connection is polled once per cycle and never by two invocations at
 * once; an idle cycle writes nothing per connection; the cost adds up its items at the prices
 * docs/deploy.md states.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { maxConcurrent, measureConnections, WARM_UP_CYCLES } from '../../bench/connections.js';
import { PRICES } from '../../bench/connections-cost.js';

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
      if (cycle < WARM_UP_CYCLES) continue; // the warm-up backfill
      expect(perConnection.size).toBe(COUNT);
      for (const [connection, n] of perConnection) {
        if (!changed[cycle]?.has(connection)) expect(n, `${connection} in cycle ${cycle}`).toBe(collections);
        else expect(n).toBeGreaterThanOrEqual(collections);
      }
    }
    expect(figures.details.idleRequestsPerConnectionPerCycle).toBe(collections);
    expect(figures.details.changedConnectionsPerCycle).toBe(2);
    expect(figures.requestsPerConnectionPerCycle).toBeGreaterThanOrEqual(collections);
  });

  it('every connection is polled once per cycle, never twice at once', async () => {
    const { figures, polls } = run;
    for (let cycle = 0; cycle < 2 + WARM_UP_CYCLES; cycle++) {
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
    expect(figures.details.perCycle.dynamoDbWriteUnits).toBeLessThanOrEqual(
      4 * 2 + 2 * figures.details.perCycle.pollerInvocations,
    );
    // Credentials: read once per container and cache period, not per cycle.
    expect(figures.details.perCycle.credentialCalls).toBe(0);
  });

  it('prices the cost with the figures docs/deploy.md states', async () => {
    const deploy = await readFile(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const stated = [
      `Lambda Arm $${PRICES.lambdaGbSecond}`,
      `$${PRICES.lambdaPerMillionRequests.toFixed(2)} per million requests`,
      `Scheduler $${PRICES.schedulerPerMillion.toFixed(2)} per million`,
      `EventBridge custom events $${PRICES.eventBridgePerMillionEvents.toFixed(2)} per million`,
      `DynamoDB on-demand $${PRICES.dynamoDbPerMillionWriteUnits} per million write units, $${PRICES.dynamoDbPerMillionReadUnits} per million read units, $${PRICES.dynamoDbGbMonth.toFixed(2)} per GB-month`,
      `CloudWatch custom metric $${PRICES.customMetricMonth.toFixed(2)} per month`,
      `$${PRICES.logsPerGbIngested.toFixed(2)} per GB ingested`,
      `SSM Parameter Store standard parameters $${PRICES.ssmStandardParameterMonth.toFixed(2)} per parameter-month and $${PRICES.ssmStandardPer10kCalls.toFixed(2)} per 10,000 standard-throughput calls`,
      `KMS $${PRICES.kmsPer10kRequests} per 10,000 requests`,
    ];
    const flat = (s: string) => s.replace(/\s+/g, ' ');
    for (const s of stated) expect(flat(deploy)).toContain(flat(s));
  });
});
