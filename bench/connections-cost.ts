/**
 * The monthly cost of one connection, from what the connections benchmark measured per cycle, at
 * the public prices docs/deploy.md states as assumptions (its "Monthly cost" section; a test keeps
 * both the same). Free tiers are ignored. One cycle a minute: 60 × 24 × 30 = 43,200 cycles a month.
 */

/** USD, AWS list prices (us-east-1), as in docs/deploy.md. */
export const PRICES = {
  lambdaGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  schedulerPerMillion: 1.0,
  eventBridgePerMillionEvents: 1.0,
  /** The standard-queue price docs/deploy.md states; the poll queue is FIFO, priced somewhat higher. */
  sqsPerMillionRequests: 0.4,
  dynamoDbPerMillionWriteUnits: 0.625,
  dynamoDbPerMillionReadUnits: 0.125,
  dynamoDbGbMonth: 0.25,
  customMetricMonth: 0.3,
  logsPerGbIngested: 0.5,
  secretMonth: 0.4,
  secretPer10kCalls: 0.05,
} as const;

export const CYCLES_PER_MONTH = 60 * 24 * 30;

/**
 * Lambda's SQS event source polls an idle queue with long polling: assumed ~5 pollers × 3 receives a
 * minute (20 s waits), as for the action queues in docs/deploy.md. Not measured: no local twin polls.
 */
export const ASSUMED_IDLE_RECEIVES_PER_MONTH = 5 * 3 * CYCLES_PER_MONTH;

/** What one benchmark measured, per steady cycle (averages) unless said otherwise. */
export interface MeasuredUsage {
  connections: number;
  dispatcherInvocations: number;
  pollerInvocations: number;
  dispatcherBilledMs: number;
  pollerBilledMs: number;
  dispatcherMemoryMb: number;
  pollerMemoryMb: number;
  schedulerInvocations: number;
  putEventsEntries: number;
  dynamoDbReadUnits: number;
  dynamoDbWriteUnits: number;
  sqsRequests: number;
  secretReads: number;
  logBytes: number;
  /** Distinct custom metrics per connection (a `connection` dimension) and shared by all. */
  metricsPerConnection: number;
  metricsShared: number;
  /** Bytes stored in the tables at the end (checkpoints, registry, rate limits). */
  storedBytes: number;
  /** One Secrets Manager secret per connection (its credentials). */
  secretsPerConnection: number;
}

export interface CostLine {
  item: string;
  /** USD per connection and month. */
  usd: number;
  arithmetic: string;
}

const fmt = (n: number, digits = 3) => Number(n.toPrecision(digits)).toLocaleString('en-US');

/** Per connection-month, item by item; the sum is the figure. */
export function costPerConnectionMonth(m: MeasuredUsage): { lines: CostLine[]; totalUsd: number } {
  const perMonth = (perCycle: number) => (perCycle / m.connections) * CYCLES_PER_MONTH;
  const gbSeconds =
    perMonth(m.dispatcherBilledMs / 1000) * (m.dispatcherMemoryMb / 1024) +
    perMonth(m.pollerBilledMs / 1000) * (m.pollerMemoryMb / 1024);
  const invocations = perMonth(m.dispatcherInvocations + m.pollerInvocations);
  const sqs = perMonth(m.sqsRequests) + ASSUMED_IDLE_RECEIVES_PER_MONTH / m.connections;
  const line = (item: string, usd: number, arithmetic: string): CostLine => ({ item, usd, arithmetic });
  const lines: CostLine[] = [
    line(
      'Lambda requests',
      (invocations * PRICES.lambdaPerMillionRequests) / 1e6,
      `${fmt(invocations)} invocations × $${PRICES.lambdaPerMillionRequests}/1M`,
    ),
    line(
      'Lambda compute',
      gbSeconds * PRICES.lambdaGbSecond,
      `${fmt(gbSeconds)} GB-s (billed ms × memory) × $${PRICES.lambdaGbSecond}`,
    ),
    line(
      'Scheduler',
      (perMonth(m.schedulerInvocations) * PRICES.schedulerPerMillion) / 1e6,
      `${fmt(perMonth(m.schedulerInvocations))} invocations × $${PRICES.schedulerPerMillion}/1M`,
    ),
    line(
      'EventBridge PutEvents',
      (perMonth(m.putEventsEntries) * PRICES.eventBridgePerMillionEvents) / 1e6,
      `${fmt(perMonth(m.putEventsEntries))} entries × $${PRICES.eventBridgePerMillionEvents}/1M`,
    ),
    line(
      'SQS',
      (sqs * PRICES.sqsPerMillionRequests) / 1e6,
      `${fmt(sqs)} requests (send batches, receives, deletes; idle receives assumed) × $${PRICES.sqsPerMillionRequests}/1M (standard-queue price; FIFO is higher)`,
    ),
    line(
      'DynamoDB reads',
      (perMonth(m.dynamoDbReadUnits) * PRICES.dynamoDbPerMillionReadUnits) / 1e6,
      `${fmt(perMonth(m.dynamoDbReadUnits))} RRU × $${PRICES.dynamoDbPerMillionReadUnits}/1M`,
    ),
    line(
      'DynamoDB writes',
      (perMonth(m.dynamoDbWriteUnits) * PRICES.dynamoDbPerMillionWriteUnits) / 1e6,
      `${fmt(perMonth(m.dynamoDbWriteUnits))} WRU × $${PRICES.dynamoDbPerMillionWriteUnits}/1M`,
    ),
    line(
      'DynamoDB storage',
      (m.storedBytes / m.connections / 1024 ** 3) * PRICES.dynamoDbGbMonth,
      `${fmt(m.storedBytes / m.connections)} bytes × $${PRICES.dynamoDbGbMonth}/GB-month`,
    ),
    line(
      'Secrets Manager',
      m.secretsPerConnection * PRICES.secretMonth +
        (perMonth(m.secretReads) * PRICES.secretPer10kCalls) / 1e4,
      `${m.secretsPerConnection} secret × $${PRICES.secretMonth} + ${fmt(perMonth(m.secretReads))} reads × $${PRICES.secretPer10kCalls}/10k`,
    ),
    line(
      'CloudWatch custom metrics',
      (m.metricsPerConnection + m.metricsShared / m.connections) * PRICES.customMetricMonth,
      `(${m.metricsPerConnection} per connection + ${m.metricsShared} shared / ${m.connections}) × $${PRICES.customMetricMonth}`,
    ),
    line(
      'CloudWatch Logs',
      (perMonth(m.logBytes) / 1024 ** 3) * PRICES.logsPerGbIngested,
      `${fmt(perMonth(m.logBytes) / 1024 ** 2)} MB (logs + EMF) × $${PRICES.logsPerGbIngested}/GB`,
    ),
  ];
  return { lines, totalUsd: lines.reduce((n, l) => n + l.usd, 0) };
}
