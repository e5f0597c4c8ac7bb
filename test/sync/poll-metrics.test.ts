import type { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import {
  createPowertoolsPollMetrics,
  FOLDED_BY_DEFAULT,
  OMITTED_BY_DEFAULT,
  pollMetricsOptionsFromEnv,
} from '#functions/handlers/poll-metrics.js';

/** The part of Powertools Metrics the sink calls, recording what it is given. */
function recordingMetrics() {
  const added: { name: string; unit: string; value: number; dimensions?: Record<string, string> }[] = [];
  let published = 0;
  const metrics = {
    addMetric: (name: string, unit: string, value: number) => added.push({ name, unit, value }),
    singleMetric: () => {
      let dimensions: Record<string, string> = {};
      const single = {
        addDimensions: (d: Record<string, string>) => {
          dimensions = d;
          return single;
        },
        addMetric: (name: string, unit: string, value: number) =>
          added.push({ name, unit, value, dimensions }),
      };
      return single;
    },
    publishStoredMetrics: () => {
      published += 1;
    },
  };
  return { metrics: metrics as unknown as Metrics, added, published: () => published };
}

describe('the pollers metrics sink', () => {
  it('by default folds per-type and per-collection values (counts add up, durations keep the worst) and leaves out what no alarm reads', () => {
    const r = recordingMetrics();
    const sink = createPowertoolsPollMetrics(r.metrics, pollMetricsOptionsFromEnv({}));
    sink.count('EventsPublished', 3, { detailType: 'IssuedInvoice.Created' });
    sink.count('EventsPublished', 2, { detailType: 'ReceivedOrder.Updated' });
    sink.milliseconds('WatermarkLagMs', 900, { collection: 'IssuedInvoices' });
    sink.milliseconds('WatermarkLagMs', 4_000, { collection: 'ReceivedOrders' });
    sink.milliseconds('WatermarkLagMs', 1_000, { collection: 'Partners' });
    sink.count('CollectionsFailed', 1);
    sink.count('ApiRequests', 12);
    sink.count('RateLimited', 2);
    sink.count('CollectionUnavailable', 1, { collection: 'Partners' });
    // A dimension that is not folded keeps its series.
    sink.count('ConnectionEventsPublished', 5, { connection: 'acme' });
    expect(r.added).toHaveLength(2);
    sink.flush();
    expect(r.published()).toBe(1);
    expect(r.added).toEqual([
      { name: 'CollectionsFailed', unit: 'Count', value: 1 },
      { name: 'ConnectionEventsPublished', unit: 'Count', value: 5, dimensions: { connection: 'acme' } },
      { name: 'EventsPublished', unit: 'Count', value: 5 },
      { name: 'WatermarkLagMs', unit: 'Milliseconds', value: 4_000 },
    ]);
    // The next invocation starts from nothing.
    sink.flush();
    expect(r.added).toHaveLength(4);
  });

  it('keeps every metric and every dimension with detailed metrics', () => {
    const r = recordingMetrics();
    const sink = createPowertoolsPollMetrics(
      r.metrics,
      pollMetricsOptionsFromEnv({ POLLER_DETAILED_METRICS: 'true' }),
    );
    sink.count('EventsPublished', 3, { detailType: 'IssuedInvoice.Created' });
    sink.milliseconds('WatermarkLagMs', 900, { collection: 'IssuedInvoices' });
    sink.count('ApiRequests', 12);
    sink.flush();
    expect(r.added).toEqual([
      {
        name: 'EventsPublished',
        unit: 'Count',
        value: 3,
        dimensions: { detailType: 'IssuedInvoice.Created' },
      },
      {
        name: 'WatermarkLagMs',
        unit: 'Milliseconds',
        value: 900,
        dimensions: { collection: 'IssuedInvoices' },
      },
      { name: 'ApiRequests', unit: 'Count', value: 12 },
    ]);
  });

  it('reads the setting from the environment: lean by default, refused when not true or false', () => {
    const lean = { fold: FOLDED_BY_DEFAULT, omit: OMITTED_BY_DEFAULT };
    expect(pollMetricsOptionsFromEnv({})).toEqual(lean);
    expect(pollMetricsOptionsFromEnv({ POLLER_DETAILED_METRICS: 'false' })).toEqual(lean);
    expect(() => pollMetricsOptionsFromEnv({ POLLER_DETAILED_METRICS: 'yes' })).toThrow(
      /POLLER_DETAILED_METRICS: expected true or false/,
    );
  });
});
