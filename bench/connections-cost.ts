/**
 * The monthly cost of one connection, from what the connections benchmark measured per cycle, at
 * the eu-central-1 list prices of `prices.ts`. Free tiers are ignored. One cycle a minute:
 * 60 × 24 × 30 = 43,200 cycles a month.
 */
import { PRICE_LIST, PRICES, SSM_STANDARD_THROUGHPUT_PER_SECOND } from './prices.js';

export { PRICE_LIST, PRICES } from './prices.js';

export const CYCLES_PER_MONTH = 60 * 24 * 30;

/**
 * The fixed monthly costs of a registry deployment, shared out over its connections: the alarms,
 * Lambda's idle polling of the SQS queues and the secrets, as docs/deploy.md's "Monthly cost"
 * counts them (10 alarm metrics; 3 standard queues and 1 FIFO queue long-polled at 648,000
 * requests a month each; 2 secrets), and the KMS key of sealed credentials' data keys. Not measured here.
 */
export const FIXED_MONTHLY = {
  alarmMetrics: 10,
  sqsIdleStandardRequests: 3 * 648_000,
  sqsIdleFifoRequests: 648_000,
  secrets: 2,
  kmsKeys: 1,
} as const;

/** The daily deletion check of each collection: one S3 GET and one PUT of its state a day. */
export const DELETION_CHECK = { getsPerCollectionDay: 1, putsPerCollectionDay: 1 } as const;

/** What one benchmark measured, per steady cycle (averages) unless said otherwise. */
export interface MeasuredUsage {
  connections: number;
  collectionsPerConnection: number;
  pollerInvocations: number;
  /** Billed ms of the invocations (the billing model of connections-billing.ts). */
  pollerBilledMs: number;
  /** Billed INIT ms of the cold starts. */
  initBilledMs: number;
  pollerMemoryMb: number;
  schedulerInvocations: number;
  putEventsEntries: number;
  dynamoDbReadUnits: number;
  dynamoDbWriteUnits: number;
  /**
   * `GetParameters` calls and the SecureStrings they returned, each a KMS decryption: sealed
   * credentials' data key (once per container), or a connection's own parameter.
   */
  credentialCalls: number;
  credentialDecrypts: number;
  /** The most `GetParameters` calls in one second (the cycle's invocations start in the same second). */
  credentialCallsPeakPerSecond: number;
  /** Bytes the functions log (structured lines and EMF). */
  logBytes: number;
  /** Bytes of Lambda's own START, END and REPORT lines. */
  platformLogBytes: number;
  /** Bytes the poller sent to the service (TLS included): internet egress. */
  egressBytes: number;
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
export function costPerConnectionMonth(m: MeasuredUsage): {
  lines: CostLine[];
  totalUsd: number;
  region: string;
  pricesAsOf: string;
  ssmHigherThroughput: boolean;
} {
  const perMonth = (perCycle: number) => (perCycle / m.connections) * CYCLES_PER_MONTH;
  const gb = m.pollerMemoryMb / 1024;
  const gbSeconds = perMonth(m.pollerBilledMs / 1000) * gb;
  const initGbSeconds = perMonth(m.initBilledMs / 1000) * gb;
  const invocations = perMonth(m.pollerInvocations);
  const ssmHigherThroughput = m.credentialCallsPeakPerSecond > SSM_STANDARD_THROUGHPUT_PER_SECOND;
  const ssmPer10k = ssmHigherThroughput
    ? PRICES.ssmHigherThroughputPer10kCalls
    : PRICES.ssmStandardPer10kCalls;
  const egressGb = perMonth(m.egressBytes) / 1024 ** 3;
  const s3Gets = m.collectionsPerConnection * 30 * DELETION_CHECK.getsPerCollectionDay;
  const s3Puts = m.collectionsPerConnection * 30 * DELETION_CHECK.putsPerCollectionDay;
  const fixedUsd =
    FIXED_MONTHLY.alarmMetrics * PRICES.alarmMetricMonth +
    (FIXED_MONTHLY.sqsIdleStandardRequests * PRICES.sqsPerMillionRequests) / 1e6 +
    (FIXED_MONTHLY.sqsIdleFifoRequests * PRICES.sqsFifoPerMillionRequests) / 1e6 +
    FIXED_MONTHLY.secrets * PRICES.secretsManagerSecretMonth +
    FIXED_MONTHLY.kmsKeys * PRICES.kmsKeyMonth;
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
      'Lambda INIT',
      initGbSeconds * PRICES.lambdaGbSecond,
      `${fmt(initGbSeconds)} GB-s (cold starts' INIT ms × ${m.pollerMemoryMb} MB) × $${PRICES.lambdaGbSecond}`,
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
      PRICES.ssmStandardParameterMonth + (perMonth(m.credentialCalls) * ssmPer10k) / 1e4,
      `${fmt(perMonth(m.credentialCalls))} GetParameters calls × $${ssmPer10k}/10k (${ssmHigherThroughput ? `higher throughput: ${fmt(m.credentialCallsPeakPerSecond)} calls in a second > ${SSM_STANDARD_THROUGHPUT_PER_SECOND}` : `standard throughput: at most ${fmt(m.credentialCallsPeakPerSecond)} calls in a second`})`,
    ),
    line(
      'KMS decryptions',
      (perMonth(m.credentialDecrypts) * PRICES.kmsPer10kRequests) / 1e4,
      `${fmt(perMonth(m.credentialDecrypts))} Decrypt calls (SecureStrings read) × $${PRICES.kmsPer10kRequests}/10k`,
    ),
    line(
      'Internet egress',
      egressGb * PRICES.dataTransferOutPerGb,
      `${fmt(perMonth(m.egressBytes) / 1024 ** 2)} MB sent to the service (TLS included) × $${PRICES.dataTransferOutPerGb}/GB`,
    ),
    line(
      'S3 deletion checks',
      (s3Gets * PRICES.s3GetPer1000 + s3Puts * PRICES.s3PutPer1000) / 1000,
      `${s3Gets} GET × $${PRICES.s3GetPer1000}/1k + ${s3Puts} PUT × $${PRICES.s3PutPer1000}/1k (one each per collection and day)`,
    ),
    line(
      'CloudWatch custom metrics',
      (m.metricsPerConnection + m.metricsShared / m.connections) * PRICES.customMetricMonth,
      `(${m.metricsPerConnection} per connection + ${m.metricsShared} shared / ${m.connections}) × $${PRICES.customMetricMonth}`,
    ),
    line(
      'CloudWatch Logs',
      (perMonth(m.logBytes + m.platformLogBytes) / 1024 ** 3) * PRICES.logsPerGbIngested,
      `${fmt(perMonth(m.logBytes) / 1024 ** 2)} MB (logs + EMF) + ${fmt(perMonth(m.platformLogBytes) / 1024 ** 2)} MB (Lambda's START/END/REPORT) × $${PRICES.logsPerGbIngested}/GB`,
    ),
    line(
      'Fixed costs shared out',
      fixedUsd / m.connections,
      `$${fmt(fixedUsd)} a month (${FIXED_MONTHLY.alarmMetrics} alarm metrics, SQS idle polling, ${FIXED_MONTHLY.secrets} secrets, ${FIXED_MONTHLY.kmsKeys} KMS key) / ${m.connections}`,
    ),
  ];
  return {
    lines,
    totalUsd: lines.reduce((n, l) => n + l.usd, 0),
    region: PRICE_LIST.region,
    pricesAsOf: PRICE_LIST.asOf,
    ssmHigherThroughput,
  };
}
