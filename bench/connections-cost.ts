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
  dynamoDbPerMillionWriteUnits: 0.625,
  dynamoDbPerMillionReadUnits: 0.125,
  dynamoDbGbMonth: 0.25,
  customMetricMonth: 0.3,
  logsPerGbIngested: 0.5,
  /** SSM Parameter Store standard parameters: no storage charge; standard-throughput API calls free. */
  ssmStandardParameterMonth: 0,
  ssmStandardPer10kCalls: 0,
  /** KMS: each SecureString read is a decryption with the `aws/ssm` key. */
  kmsPer10kRequests: 0.03,
} as const;

export const CYCLES_PER_MONTH = 60 * 24 * 30;

/** What one benchmark measured, per steady cycle (averages) unless said otherwise. */
export interface MeasuredUsage {
  connections: number;
  pollerInvocations: number;
  pollerBilledMs: number;
  pollerMemoryMb: number;
  schedulerInvocations: number;
  putEventsEntries: number;
  dynamoDbReadUnits: number;
  dynamoDbWriteUnits: number;
  /** `GetParameters` calls and the parameters they returned (each a KMS decryption). */
  credentialCalls: number;
  credentialDecrypts: number;
  logBytes: number;
  /** Distinct custom metrics per connection (a `connection` dimension) and shared by all. */
  metricsPerConnection: number;
  metricsShared: number;
  /** Bytes stored in the tables at the end (checkpoints, leases, registry, rate limits). */
  storedBytes: number;
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
  const gbSeconds = perMonth(m.pollerBilledMs / 1000) * (m.pollerMemoryMb / 1024);
  const invocations = perMonth(m.pollerInvocations);
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
      `${fmt(gbSeconds)} GB-s (billed ms × ${m.pollerMemoryMb} MB) × $${PRICES.lambdaGbSecond}`,
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
      'SSM Parameter Store',
      PRICES.ssmStandardParameterMonth + (perMonth(m.credentialCalls) * PRICES.ssmStandardPer10kCalls) / 1e4,
      `1 standard parameter × $${PRICES.ssmStandardParameterMonth} + ${fmt(perMonth(m.credentialCalls))} GetParameters calls × $${PRICES.ssmStandardPer10kCalls}/10k`,
    ),
    line(
      'KMS decryptions',
      (perMonth(m.credentialDecrypts) * PRICES.kmsPer10kRequests) / 1e4,
      `${fmt(perMonth(m.credentialDecrypts))} SecureString reads × $${PRICES.kmsPer10kRequests}/10k`,
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

/**
 * The cost per connection-month at `count` connections, simulated from a measurement at
 * `measured.connections`: what is counted per connection (service requests, DynamoDB units of its
 * checkpoints, credential reads, log bytes, events) and per shard (invocations, their billed time,
 * schedules, the lease's writes, the registry segment's scan) grows with the connections, shards
 * staying the same size, so both scale by `count / measured.connections`; the shared custom metrics
 * stay as many; storage per connection stays the same.
 */
export function simulateCost(
  measured: MeasuredUsage,
  count: number,
): { lines: CostLine[]; totalUsd: number } {
  const k = count / measured.connections;
  return costPerConnectionMonth({
    ...measured,
    connections: count,
    pollerInvocations: measured.pollerInvocations * k,
    pollerBilledMs: measured.pollerBilledMs * k,
    schedulerInvocations: measured.schedulerInvocations * k,
    putEventsEntries: measured.putEventsEntries * k,
    dynamoDbReadUnits: measured.dynamoDbReadUnits * k,
    dynamoDbWriteUnits: measured.dynamoDbWriteUnits * k,
    credentialCalls: measured.credentialCalls * k,
    credentialDecrypts: measured.credentialDecrypts * k,
    logBytes: measured.logBytes * k,
    storedBytes: measured.storedBytes * k,
  });
}
