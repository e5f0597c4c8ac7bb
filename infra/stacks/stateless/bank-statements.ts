/**
 * Bank statements dropped into the archive bucket at `bank-statements/<connection>/<file>` (kept
 * there with the accounting records, under the same Object Lock): the bucket sends its
 * `Object Created` events to EventBridge (the default bus), a rule there (this bucket, this prefix)
 * queues them, and the import function turns each statement into `BankTransaction.Received` events
 * on the deployment's bus (functions/handlers/import-bank-statements.ts), which the payment route
 * liquidates. The function may read that prefix only and publish that detail-type only.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { BANK_STATEMENTS_FOLDER } from '#functions/core/bank/statement-drop.js';
import { BANK_TRANSACTION_RECEIVED } from '#functions/core/events/bank-events.js';
import { ENV } from '#functions/shared/env-names.js';
import { eventSourceOf } from '#infra/config/names.js';
import type { InfraConfig } from '#infra/config/schema.js';
import { AppFunction, retentionOf, visibilityTimeoutFor } from '#infra/constructs/app-function.js';
import type { ConnectionsAccess } from '#infra/constructs/connections-access.js';
import { FUNCTION_ENV } from '#infra/constructs/function-env.js';
import { useBucket, useEventBus, useQueueConsume } from '#infra/constructs/grants.js';
import { METRICS_NAMESPACE } from '#infra/constructs/metric-names.js';
import type { StatefulResources } from '../stateful-stack.js';
import { deadLetterQueue, encryptedQueue } from './queues.js';

export const IMPORT_BANK_STATEMENTS_HANDLER = 'import-bank-statements';
const TIMEOUT = Duration.seconds(60);
const MAX_RECEIVE_COUNT = 5;

export interface BankStatementDrop {
  readonly rule: events.Rule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly fn: AppFunction;
}

export function bankStatementDrop(
  scope: Construct,
  props: {
    config: InfraConfig;
    resources: StatefulResources;
    /** The registry (whose entries name the connections a statement may be for), or the registry of one. */
    connections: ConnectionsAccess;
  },
): BankStatementDrop {
  const { config, resources } = props;
  const removalPolicy = config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
  const dlq = deadLetterQueue(scope, 'BankStatements-Dlq', config);
  const queue = encryptedQueue(scope, 'BankStatements-Queue', {
    visibilityTimeout: visibilityTimeoutFor(TIMEOUT),
    retentionPeriod: Duration.days(config.redriveWindowDays),
    deadLetterQueue: { queue: dlq, maxReceiveCount: MAX_RECEIVE_COUNT },
  });
  const bucket = resources.archiveBucket;
  // S3 sends its events to the account's default bus.
  const rule = new events.Rule(scope, 'BankStatements-Rule', {
    eventBus: events.EventBus.fromEventBusName(scope, 'DefaultEventBus', 'default'),
    description: `Statements dropped under ${BANK_STATEMENTS_FOLDER}/ of the archive bucket, to their import`,
    eventPattern: {
      source: ['aws.s3'],
      detailType: ['Object Created'],
      detail: {
        bucket: { name: [bucket.bucketName] },
        object: { key: events.Match.prefix(`${BANK_STATEMENTS_FOLDER}/`) },
      },
    },
    targets: [
      new targets.SqsQueue(queue, {
        deadLetterQueue: dlq,
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
      }),
    ],
  });
  const fn = new AppFunction(scope, 'BankStatements-Function', {
    handler: IMPORT_BANK_STATEMENTS_HANDLER,
    usedBy: 'the bank statement drop',
    description: 'Bank statements dropped into S3: one BankTransaction.Received per credit transaction',
    serviceName: IMPORT_BANK_STATEMENTS_HANDLER,
    memorySize: config.actionMemoryMb,
    timeout: TIMEOUT,
    metricsNamespace: METRICS_NAMESPACE,
    logLevel: config.logLevel,
    logRetention: retentionOf(config.logRetentionDays),
    removalPolicy,
  });
  useBucket(fn, bucket, ENV.bankStatementsBucket, {
    objects: [{ prefix: `${BANK_STATEMENTS_FOLDER}/`, actions: ['s3:GetObject'] }],
  });
  const { connections } = props;
  if (connections.table) {
    connections.grantRegistryRead(fn);
  } else {
    // The deployment's registry of one, read from the environment.
    fn.setEnv(FUNCTION_ENV.connection, config.connection);
    fn.setEnv(FUNCTION_ENV.eventSource, eventSourceOf(config));
    fn.setEnv(FUNCTION_ENV.serviceVariant, config.serviceVariant);
    if (config.accountingBaseUrl) fn.setEnv(FUNCTION_ENV.baseUrl, config.accountingBaseUrl);
    if (config.accountingAuthUrl) fn.setEnv(FUNCTION_ENV.authUrl, config.accountingAuthUrl);
  }
  useEventBus(fn, resources.eventBus, FUNCTION_ENV.eventBusName, {
    source: connections.publishSource,
    detailTypes: [BANK_TRANSACTION_RECEIVED],
  });
  useQueueConsume(fn, queue, { batchSize: 1, maxConcurrency: 2 });
  return { rule, queue, deadLetterQueue: dlq, fn };
}
