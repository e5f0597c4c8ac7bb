/** The shape of `bench/results/latest.json` (validated before it is written) and its table. */
import * as z from 'zod';
import { round } from './stats.js';

const num = z.number().finite();

export const benchResultsSchema = z
  .object({
    idle: z
      .object({
        requestsPerCollectionPerCycle: num,
        /**
         * With payment detection on (POLLER_PAYMENTS=true): the requests an idle cycle makes for the
         * payment lists, per cycle checking every cycle and on a slower cadence
         * (POLLER_PAYMENT_INTERVAL_SECONDS), besides the change detector's own.
         */
        payments: z
          .object({
            paymentLists: z.number().int(),
            cycles: z.number().int(),
            requestsPerPaymentListPerCycle: num,
            requestsPerCycle: num,
            slowerCadence: z
              .object({
                pollIntervalSeconds: num,
                paymentIntervalSeconds: num,
                cycles: z.number().int(),
                requestsPerPaymentListPerCycle: num,
              })
              .strict(),
          })
          .strict()
          .optional(),
      })
      .strict(),
    backfill: z.array(
      z
        .object({
          documents: z.number().int(),
          pageSize: z.number().int(),
          requests: z.number().int(),
          minimumRequests: z.number().int(),
          seconds: num,
          eventsPerSecond: num,
          peakRssMb: num,
        })
        .strict(),
    ),
    latency: z
      .object({
        p50Ms: num,
        p95Ms: num,
        intervalMs: num,
        /** The distribution: percentile (10, 25, 50, 75, 90, 95, 99, 100) → ms, and the sample count. */
        distribution: z
          .object({ samples: z.number().int(), percentiles: z.record(z.string(), num) })
          .strict()
          .optional(),
      })
      .strict(),
    baseline: z.object({ requestsPerCycle: num, seconds: num }).strict(),
    ratios: z.object({ requestsPerCycle: num }).strict(),
    actions: z.object({ isdocArchivesPerSecond: num, transfersPerSecond: num }).strict(),
    bundles: z.array(
      z
        .object({
          name: z.string(),
          bytes: z.number().int(),
          // Absent from runs made before every file of the asset was counted.
          files: z.record(z.string(), z.number().int()).optional(),
          withinLimit: z.boolean().optional(),
          coldImportMs: num,
        })
        .strict(),
    ),
    /** Many connections on the multi-connection design (bench/connections.ts); absent from older runs. */
    connections: z
      .object({
        count: z.number().int(),
        requestsPerConnectionPerCycle: num,
        cycleP95Ms: num,
        maxConcurrentPolls: z.number().int(),
        costPerConnectionMonthUsd: num,
        /** How it was measured and what the cost is made of (connections.ts, `ConnectionsFigures`). */
        details: z.looseObject({
          collectionsPerConnection: z.number().int(),
          idleRequestsPerConnectionPerCycle: num,
          detection: z.looseObject({ p50Ms: num, p95Ms: num }).optional(),
          cost: z.array(z.object({ item: z.string(), usd: num, arithmetic: z.string() }).strict()),
        }),
        /** The smaller counts measured in the same run (the same figures). */
        alsoMeasured: z
          .array(z.looseObject({ count: z.number().int(), costPerConnectionMonthUsd: num }))
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type BenchResults = z.infer<typeof benchResultsSchema>;

export interface Target {
  name: string;
  measured: string;
  target: string;
  met: boolean;
}

/** The targets of the issue, checked against the figures. */
export function checkTargets(r: BenchResults): Target[] {
  const targets: Target[] = [];
  targets.push({
    name: 'idle requests per collection per cycle',
    measured: String(r.idle.requestsPerCollectionPerCycle),
    target: '1.0',
    met: r.idle.requestsPerCollectionPerCycle <= 1.0,
  });
  const payments = r.idle.payments;
  if (payments) {
    targets.push({
      name: 'idle requests per payment list per cycle',
      measured: String(payments.requestsPerPaymentListPerCycle),
      target: '1.0',
      met: payments.requestsPerPaymentListPerCycle <= 1.0,
    });
    targets.push({
      name: `… checked every ${payments.slowerCadence.paymentIntervalSeconds} s at a ${payments.slowerCadence.pollIntervalSeconds} s poll`,
      measured: String(payments.slowerCadence.requestsPerPaymentListPerCycle),
      target: '< 1.0',
      met: payments.slowerCadence.requestsPerPaymentListPerCycle < 1.0,
    });
  }
  for (const b of r.backfill) {
    targets.push({
      name: `backfill ${b.documents} requests / minimum`,
      measured: `${b.requests} / ${b.minimumRequests} = ${round(b.requests / b.minimumRequests, 3)}`,
      target: '≤ 1.02',
      met: b.requests <= 1.02 * b.minimumRequests,
    });
  }
  const small = r.backfill.find((b) => b.documents === Math.min(...r.backfill.map((x) => x.documents)));
  const large = r.backfill.find((b) => b.documents === Math.max(...r.backfill.map((x) => x.documents)));
  if (small && large && small !== large) {
    targets.push({
      name: `peak RSS ${large.documents} / ${small.documents}`,
      measured: `${large.peakRssMb} / ${small.peakRssMb} MB = ${round(large.peakRssMb / small.peakRssMb, 3)}`,
      target: '≤ 1.2',
      met: large.peakRssMb <= 1.2 * small.peakRssMb,
    });
  }
  targets.push({
    name: 'latency p95',
    measured: `${r.latency.p95Ms} ms`,
    target: `≤ interval + 2 s = ${r.latency.intervalMs + 2000} ms`,
    met: r.latency.p95Ms <= r.latency.intervalMs + 2000,
  });
  targets.push({
    name: 'naive / ours requests per cycle',
    measured: String(r.ratios.requestsPerCycle),
    target: '≥ 100',
    met: r.ratios.requestsPerCycle >= 100,
  });
  if (r.connections) {
    const c = r.connections;
    targets.push({
      name: `${c.count} connections: idle requests per connection per cycle`,
      measured: String(c.details.idleRequestsPerConnectionPerCycle),
      target: `= polled collections (${c.details.collectionsPerConnection})`,
      met: c.details.idleRequestsPerConnectionPerCycle <= c.details.collectionsPerConnection,
    });
    targets.push({
      name: `${c.count} connections: cost per connection-month`,
      measured: `$${c.costPerConnectionMonthUsd}`,
      target: '≤ $0.03 (eu-central-1, egress, KMS and shared fixed costs included)',
      met: c.costPerConnectionMonthUsd <= 0.03,
    });
    const detection = c.details.detection;
    if (detection) {
      targets.push({
        name: `${c.count} connections: change → event on the bus, p95 (1-minute cadence)`,
        measured: `${Math.round(detection.p95Ms / 100) / 10} s (p50 ${Math.round(detection.p50Ms / 100) / 10} s)`,
        target: '≤ 75 s',
        met: detection.p95Ms <= 75_000,
      });
    }
  }
  for (const b of r.bundles) {
    targets.push({
      name: `bundle ${b.name}`,
      measured: `${b.bytes} bytes (${Object.keys(b.files ?? { 'index.mjs': 0 }).join(' + ')}), cold import ${b.coldImportMs} ms`,
      target: '≤ 1,500,000 bytes (every file of the asset), ≤ 200 ms',
      met: b.bytes <= 1_500_000 && b.coldImportMs <= 200,
    });
  }
  return targets;
}
