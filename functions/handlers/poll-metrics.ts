/**
 * The metrics sink of the pollers and the dispatcher: counts and durations, optionally with
 * dimensions, flushed once per invocation; Powertools Metrics (EMF) behind it on Lambda.
 */
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** What the handler reports to its metrics sink. */
export interface PollMetrics {
  count(name: string, value: number, dimensions?: Record<string, string>): void;
  milliseconds(name: string, value: number, dimensions?: Record<string, string>): void;
  flush(): void;
}

/** Powertools Metrics behind the `PollMetrics` sink (dimensioned values as single metrics). */
export function createPowertoolsPollMetrics(metrics: Metrics): PollMetrics {
  const add = (
    name: string,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
    dimensions?: Record<string, string>,
  ) => {
    if (dimensions) metrics.singleMetric().addDimensions(dimensions).addMetric(name, unit, value);
    else metrics.addMetric(name, unit, value);
  };
  return {
    count: (name, value, dimensions) => add(name, MetricUnit.Count, value, dimensions),
    milliseconds: (name, value, dimensions) => add(name, MetricUnit.Milliseconds, value, dimensions),
    flush: () => metrics.publishStoredMetrics(),
  };
}
