/**
 * The AWS list prices the benchmarks price their measurements at: eu-central-1 (Frankfurt, the
 * stack's default region), USD, on-demand, free tiers ignored, as published on the AWS pricing
 * pages in the month `PRICE_LIST.asOf`. One place: docs/deploy.md quotes them from here (a test
 * keeps both the same). Check them against the pricing pages before relying on a figure.
 */
export const PRICE_LIST = {
  region: 'eu-central-1',
  asOf: '2025-06',
  prices: {
    /** Lambda, Arm: per GB-second of billed duration (INIT included for on-demand functions). */
    lambdaGbSecond: 0.0000133334,
    lambdaPerMillionRequests: 0.2,
    schedulerPerMillion: 1.0,
    eventBridgePerMillionEvents: 1.0,
    dynamoDbPerMillionWriteUnits: 0.7625,
    dynamoDbPerMillionReadUnits: 0.1525,
    dynamoDbGbMonth: 0.306,
    customMetricMonth: 0.3,
    alarmMetricMonth: 0.1,
    logsPerGbIngested: 0.63,
    /** SSM Parameter Store standard parameters: no storage charge; standard-throughput calls free. */
    ssmStandardParameterMonth: 0,
    ssmStandardPer10kCalls: 0,
    /** Higher throughput (needed above the standard 40 calls per second of `GetParameters`). */
    ssmHigherThroughputPer10kCalls: 0.05,
    /** KMS: each SecureString read is a decryption (the `aws/ssm` key, or the sealing key of the data keys). */
    kmsPer10kRequests: 0.03,
    /** A customer managed KMS key (the sealing key), a month. */
    kmsKeyMonth: 1,
    s3PutPer1000: 0.0054,
    s3GetPer1000: 0.00043,
    /** Data transfer out to the internet, first 10 TB a month (the first 100 GB a month free: ignored). */
    dataTransferOutPerGb: 0.09,
    sqsPerMillionRequests: 0.4,
    sqsFifoPerMillionRequests: 0.5,
    secretsManagerSecretMonth: 0.4,
    /** Quoted by the docs' settings (not in the benchmark's cost): a dashboard beyond the first three, a Cost Explorer request. */
    cloudWatchDashboardMonth: 3,
    /** Cost Explorer API: each request (the day-one checklist's cost query). */
    costExplorerRequest: 0.01,
  },
} as const;

export const PRICES = PRICE_LIST.prices;

/** SSM Parameter Store's standard throughput for `GetParameters` (calls per second, per account and region). */
export const SSM_STANDARD_THROUGHPUT_PER_SECOND = 40;
