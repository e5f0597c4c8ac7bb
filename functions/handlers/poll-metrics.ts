/**
 * The metrics sink of the pollers and the dispatcher: counts and durations, optionally with
 * dimensions, flushed once per invocation; Powertools Metrics (EMF) behind it on Lambda.
 *
 * Every distinct metric name and dimension set is a custom metric CloudWatch bills by the month, so
 * by default the pollers' sink folds the per-item dimensions away (`FOLDED_BY_DEFAULT`:
 * `detailType`, `collection`): a value dimensioned only by them becomes one value of the metric
 * without them — counts add up, durations keep the worst (the largest) of the invocation — and it
 * leaves out the metrics no alarm reads (`OMITTED_BY_DEFAULT`: request and 429 counts, unavailable
 * collections; the poller's `shard polled` log line carries the counts). `POLLER_DETAILED_METRICS=true`
 * (infra setting `detailedMetrics`) keeps every metric with every dimension.
 */
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import * as z from 'zod';
import { parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';

/** What the handler reports to its metrics sink. */
export interface PollMetrics {
  count(name: string, value: number, dimensions?: Record<string, string>): void;
  milliseconds(name: string, value: number, dimensions?: Record<string, string>): void;
  flush(): void;
}

/** Dimensions folded away unless detailed metrics are asked for. */
export const FOLDED_BY_DEFAULT: readonly string[] = ['detailType', 'collection'];

/** Metrics left out unless detailed metrics are asked for (no alarm reads them; the log line has them). */
export const OMITTED_BY_DEFAULT: readonly string[] = [
  'ApiRequests',
  'RateLimited',
  'CollectionsUnavailable',
  'CollectionUnavailable',
  'ConnectionsPolled',
  'ConnectionsUnhealthy',
];

/** What the sink folds and leaves out. */
export interface PollMetricsOptions {
  readonly fold?: readonly string[];
  readonly omit?: readonly string[];
}

const metricsEnvSchema = z.object({
  [ENV.pollerDetailedMetrics]: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('false'),
});

/** What to fold and leave out, from the function's environment. */
export function pollMetricsOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): PollMetricsOptions {
  const parsed = parseEnvSection(metricsEnvSchema, env);
  return parsed[ENV.pollerDetailedMetrics] === 'true'
    ? { fold: [], omit: [] }
    : { fold: FOLDED_BY_DEFAULT, omit: OMITTED_BY_DEFAULT };
}

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * Powertools Metrics behind the `PollMetrics` sink (dimensioned values as single metrics); values
 * dimensioned only by `fold` are folded into their metric without dimensions, added at `flush`;
 * metrics named in `omit` are not published.
 */
export function createPowertoolsPollMetrics(metrics: Metrics, options: PollMetricsOptions = {}): PollMetrics {
  const fold = new Set(options.fold ?? []);
  const omit = new Set(options.omit ?? []);
  const folded = new Map<string, { unit: Unit; value: number }>();
  const add = (name: string, unit: Unit, value: number, dimensions?: Record<string, string>) => {
    if (omit.has(name)) return;
    const keys = Object.keys(dimensions ?? {});
    if (keys.length > 0 && keys.every((k) => fold.has(k))) {
      const seen = folded.get(name);
      const merged =
        seen === undefined
          ? value
          : unit === MetricUnit.Count
            ? seen.value + value
            : Math.max(seen.value, value);
      folded.set(name, { unit, value: merged });
    } else if (dimensions && keys.length > 0) {
      metrics.singleMetric().addDimensions(dimensions).addMetric(name, unit, value);
    } else metrics.addMetric(name, unit, value);
  };
  return {
    count: (name, value, dimensions) => add(name, MetricUnit.Count, value, dimensions),
    milliseconds: (name, value, dimensions) => add(name, MetricUnit.Milliseconds, value, dimensions),
    flush: () => {
      for (const [name, { unit, value }] of folded) metrics.addMetric(name, unit, value);
      folded.clear();
      metrics.publishStoredMetrics();
    },
  };
}
