/**
 * One CloudWatch dashboard for the whole pipeline: events per type, API requests and 429s, poll
 * lag, DLQ depths, action outcomes, plus queue and function health and the alarm states.
 * Per-type and per-collection graphs use SEARCH, so a new detail-type or collection appears
 * without a deployment.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { AppFunction } from './app-function.js';
import { METRIC } from './metric-names.js';

export interface DashboardRoute {
  readonly route: { readonly id: string };
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly fn: AppFunction;
}

export interface OperationsDashboardProps {
  readonly dashboardName: string;
  readonly namespace: string;
  readonly poller: AppFunction;
  readonly routes: readonly DashboardRoute[];
  readonly scheduled: readonly AppFunction[];
  readonly scheduleDeadLetterQueue: sqs.IQueue;
  readonly alarms: readonly cloudwatch.IAlarm[];
  readonly outcomesLogGroup: logs.ILogGroup;
  /** The pollers keep their per-detail-type and per-collection dimensions (`detailedMetrics`). */
  readonly detailedMetrics?: boolean;
  /** Many connections: graphs per connection and a `connection` variable that filters them. */
  readonly connections?: { readonly perConnection: boolean };
}

const PERIOD = Duration.minutes(1);
/** The `connection` value the "selected connection" graph starts with; the dashboard variable replaces it. */
const SELECTED_CONNECTION = 'default';

/** A SEARCH over the metric `metricName` with the dimensions `dims`: one line per value. */
function search(ns: string, dims: string, metricName: string, stat: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    label: '',
    expression: `SEARCH('{${ns},${dims}} MetricName="${metricName}"', '${stat}', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    period: PERIOD,
  });
}

export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# accounting-events\nPoller every tick → bus → ${props.routes.length} route(s). Alarms notify the SNS topic.`,
        width: 24,
        height: 2,
      }),
    );
    this.pollerWidgets(props);
    this.queueWidgets(props);
    this.actionWidgets(props);
    if (props.connections?.perConnection) this.connectionWidgets(props.namespace, props.poller.serviceName);
    if (props.alarms.length > 0) {
      this.dashboard.addWidgets(
        new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24 }),
      );
    }
  }

  /** Events per type, API requests and 429s, lag per collection, the poller's own health. */
  private pollerWidgets(props: OperationsDashboardProps): void {
    const ns = props.namespace;
    const pollerService = props.poller.serviceName;
    const custom = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: ns,
        metricName,
        dimensionsMap: { service: pollerService },
        statistic,
        period: PERIOD,
        label,
      });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: props.detailedMetrics ? 'Events published per type' : 'Events published',
        left: [
          props.detailedMetrics
            ? search(ns, 'detailType,service', METRIC.eventsPublished, 'Sum')
            : custom(METRIC.eventsPublished, 'Sum', 'events'),
        ],
        width: 12,
        stacked: true,
      }),
      // Request and 429 counts are published with `detailedMetrics` only.
      props.detailedMetrics
        ? new cloudwatch.GraphWidget({
            title: 'Accounting API requests, 429s, failed collections',
            left: [custom(METRIC.apiRequests, 'Sum', 'requests')],
            right: [
              custom(METRIC.rateLimited, 'Sum', '429 answers'),
              custom(METRIC.collectionsFailed, 'Sum', 'failed collections'),
            ],
            width: 12,
          })
        : new cloudwatch.GraphWidget({
            title: 'Failed collections',
            left: [custom(METRIC.collectionsFailed, 'Sum', 'failed collections')],
            width: 12,
          }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: props.detailedMetrics
          ? 'Watermark lag per collection (ms)'
          : 'Watermark lag, worst collection (ms)',
        left: [
          props.detailedMetrics
            ? search(ns, 'collection,service', METRIC.watermarkLagMs, 'Maximum')
            : custom(METRIC.watermarkLagMs, 'Maximum', 'lag (ms)'),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Poller invocations, errors, duration',
        left: [
          props.poller.function.metricInvocations({ period: PERIOD }),
          props.poller.function.metricErrors({ period: PERIOD }),
          props.poller.function.metricThrottles({ period: PERIOD }),
        ],
        right: [props.poller.function.metricDuration({ period: PERIOD, statistic: 'Maximum' })],
        width: 12,
      }),
    );
  }

  /** Dead-letter queue depths and the action outcomes. */
  private queueWidgets(props: OperationsDashboardProps): void {
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queue depths',
        left: [
          props.scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: 'schedule',
          }),
          ...props.routes.map((r) =>
            r.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              period: PERIOD,
              statistic: 'Maximum',
              label: r.route.id,
            }),
          ),
        ],
        width: 12,
      }),
      new cloudwatch.LogQueryWidget({
        title: 'Action outcomes (events per type)',
        logGroupNames: [props.outcomesLogGroup.logGroupName],
        view: cloudwatch.LogQueryVisualizationType.BAR,
        queryLines: ['stats count(*) as events by `detail-type`'],
        width: 12,
      }),
    );
  }

  /** The action queues and functions. */
  private actionWidgets(props: OperationsDashboardProps): void {
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Action queues: waiting messages',
        left: props.routes.map((r) =>
          r.queue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: r.route.id,
          }),
        ),
        right: props.routes.map((r) =>
          r.queue.metricApproximateAgeOfOldestMessage({
            period: PERIOD,
            statistic: 'Maximum',
            label: `${r.route.id} oldest (s)`,
          }),
        ),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Action functions: invocations and errors',
        left: [...props.routes.map((r) => r.fn), ...props.scheduled].map((fn) =>
          fn.function.metricInvocations({ period: PERIOD, label: fn.serviceName }),
        ),
        right: [...props.routes.map((r) => r.fn), ...props.scheduled].map((fn) =>
          fn.function.metricErrors({ period: PERIOD, label: `${fn.serviceName} errors` }),
        ),
        width: 12,
      }),
    );
  }

  /**
   * Per connection: one line per connection (SEARCH over the `connection` dimension), and the
   * dashboard's `connection` variable (a property variable filled from the same metrics) that
   * narrows the "selected connection" graph to one connection without editing anything.
   */
  private connectionWidgets(ns: string, service: string): void {
    const selected = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: ns,
        metricName,
        dimensionsMap: { connection: SELECTED_CONNECTION, service },
        statistic,
        period: PERIOD,
        label,
      });
    this.dashboard.addVariable(
      new cloudwatch.DashboardVariable({
        id: 'connection',
        type: cloudwatch.VariableType.PROPERTY,
        label: 'Connection',
        inputType: cloudwatch.VariableInputType.SELECT,
        value: 'connection',
        values: cloudwatch.Values.fromSearchComponents({
          namespace: ns,
          dimensions: ['connection', 'service'],
          metricName: METRIC.connectionLagMs,
          populateFrom: 'connection',
        }),
        defaultValue: cloudwatch.DefaultValue.FIRST,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Watermark lag per connection (ms, worst collection)',
        left: [search(ns, 'connection,service', METRIC.connectionLagMs, 'Maximum')],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Unhealthy connections (1 = unhealthy)',
        left: [search(ns, 'connection,service', METRIC.connectionUnhealthy, 'Maximum')],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Events published and failed collections per connection',
        left: [search(ns, 'connection,service', METRIC.connectionEventsPublished, 'Sum')],
        right: [search(ns, 'connection,service', METRIC.connectionCollectionsFailed, 'Sum')],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Selected connection (dashboard variable "connection")',
        left: [
          selected(METRIC.connectionEventsPublished, 'Sum', 'events published'),
          selected(METRIC.connectionCollectionsFailed, 'Sum', 'failed collections'),
          selected(METRIC.connectionUnhealthy, 'Maximum', 'unhealthy'),
        ],
        right: [selected(METRIC.connectionLagMs, 'Maximum', 'lag (ms)')],
        width: 12,
      }),
    );
  }
}
