/**
 * Grant-and-configure helpers: each gives a function exactly the actions it uses on one resource
 * AND sets the environment variable that names the resource, so a function can never be told about
 * a resource it may not use, nor be allowed one it is not told about.
 */
import { Names, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { DetailType } from '#functions/core/event-catalog.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AppFunction } from './app-function.js';

/** DynamoDB actions per use; each list is what the adapter issues, nothing more. */
export const TABLE_ACCESS = {
  /** dynamodb-checkpoint-store: consistent GetItem, conditional PutItem. */
  checkpoints: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  /** Powertools idempotency persistence layer: conditional put, get, update of the record, delete on failure. */
  idempotency: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  /** Action state (open e-invoice sendings): a dynamodb-checkpoint-store too. */
  state: ['dynamodb:GetItem', 'dynamodb:PutItem'],
} as const satisfies Record<string, readonly string[]>;

export type TableAccess = keyof typeof TABLE_ACCESS;

export function useTable(
  fn: AppFunction,
  table: dynamodb.ITable,
  envName: string,
  access: TableAccess,
): void {
  table.grant(fn.function, ...TABLE_ACCESS[access]);
  fn.setEnv(envName, table.tableName);
}

/** S3 object actions a function may be granted, each named for the SDK commands that need it. */
export type ObjectAction =
  /** `GetObject` and `HeadObject`. */
  | 's3:GetObject'
  /** `PutObject` (conditional too), and the create/upload/complete steps of a multipart upload. */
  | 's3:PutObject'
  /** `lib-storage`'s `Upload` aborts a failed multipart upload. */
  | 's3:AbortMultipartUpload';

/** What a function does under one key prefix of a bucket. */
export interface PrefixAccess {
  /** Object key prefix (`isdoc/`), ending in `/`. */
  readonly prefix: string;
  /** Only the keys under the prefix that end in this (`.einvoice.json`); no wildcard. */
  readonly suffix?: string;
  readonly actions: readonly ObjectAction[];
}

export interface BucketAccess {
  /** Object actions per key prefix: nothing outside these prefixes. */
  readonly objects: readonly PrefixAccess[];
  /**
   * `s3:ListBucket` on the bucket without a condition: a `GetObject`/`HeadObject` of a missing key
   * then answers 404 instead of 403. A GET or HEAD carries no `s3:prefix`, so a prefix-conditioned
   * `ListBucket` would not do. Give it to every function that reads keys which may not exist yet.
   */
  readonly missingKeysAnswer404?: boolean;
}

export function useBucket(fn: AppFunction, bucket: s3.IBucket, envName: string, access: BucketAccess): void {
  if (access.objects.length === 0 || access.objects.some((o) => o.actions.length === 0)) {
    throw new Error(`useBucket(${fn.handler}, ${envName}): expected object actions for every prefix`);
  }
  for (const { prefix, suffix = '', actions } of access.objects) {
    if (!/^[^*?]+\/$/.test(prefix) || /[*?]/.test(suffix)) {
      throw new Error(
        `useBucket(${fn.handler}, ${envName}): prefix '${prefix}' must end in / and hold no wildcard, and suffix '${suffix}' none either`,
      );
    }
    const objects = bucket.arnForObjects(`${prefix}*${suffix}`);
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...new Set(actions)].sort(), resources: [objects] }),
    );
    const keys = suffix ? `the keys ending in ${suffix} under the ${prefix} prefix` : `the ${prefix} prefix`;
    acknowledgeWildcardResource(
      fn.role,
      objects,
      `Object actions (${actions.join(', ')}) need object ARNs: the wildcard covers ${keys} of one bucket only.`,
    );
  }
  if (access.missingKeysAnswer404) {
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
  }
  if (bucket.encryptionKey) {
    const actions = new Set(access.objects.flatMap((o) => o.actions));
    if (actions.has('s3:PutObject')) bucket.encryptionKey.grantEncryptDecrypt(fn.function);
    else if (actions.has('s3:GetObject')) bucket.encryptionKey.grantDecrypt(fn.function);
  }
  fn.setEnv(envName, bucket.bucketName);
}

/** What a function may put on the bus: its `source`, and exact detail-types or patterns of them. */
export interface PutEventsScope {
  /** The source, or a `StringLike` pattern of sources (`accounting.*`: every connection's). */
  readonly source: string;
  /** Exact detail-types (an action's outcomes). */
  readonly detailTypes?: readonly DetailType[];
  /** `StringLike` patterns of detail-types (the poller's `*.Created`, …). */
  readonly detailTypePatterns?: readonly string[];
}

const isPattern = (value: string) => /[*?]/.test(value);

/**
 * The one `events:PutEvents` statement for `sources` and `detailTypes` (exact values or `StringLike`
 * patterns). `events:source` and `events:detail-type` are multi-valued keys (one value per entry of
 * the request), so each is tested with `ForAllValues:` — every entry must match — and a `Null`
 * guard refuses a request that carries no value at all (where `ForAllValues` alone would hold).
 * This is right whether IAM evaluates the keys as a set or as one value per entry.
 */
export function putEventsStatement(
  bus: events.IEventBus,
  sources: readonly string[],
  detailTypes: readonly string[],
): iam.PolicyStatement {
  if (sources.length === 0 || detailTypes.length === 0) {
    throw new Error('putEventsStatement: expected at least one source and one detail-type');
  }
  const operator = (values: readonly string[]) =>
    values.some(isPattern) ? 'ForAllValues:StringLike' : 'ForAllValues:StringEquals';
  const conditions: Record<string, Record<string, unknown>> = {
    Null: { 'events:source': 'false', 'events:detail-type': 'false' },
  };
  const add = (op: string, key: string, values: readonly string[]) => {
    conditions[op] = { ...conditions[op], [key]: [...new Set(values)] };
  };
  add(operator(sources), 'events:source', sources);
  add(operator(detailTypes), 'events:detail-type', detailTypes);
  return new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [bus.eventBusArn], conditions });
}

/**
 * `events:PutEvents` on the bus only for the given source and detail-types (IAM conditions on
 * `events:source` and `events:detail-type`, see `putEventsStatement`): a function can forge no
 * other event. One statement, so one request may mix every detail-type the function publishes.
 */
export function useEventBus(
  fn: AppFunction,
  bus: events.IEventBus,
  envName: string,
  scope: PutEventsScope,
): void {
  const detailTypes = [...(scope.detailTypes ?? []), ...(scope.detailTypePatterns ?? [])];
  if (detailTypes.length === 0) {
    throw new Error(`useEventBus(${fn.handler}): expected the detail-types the function publishes`);
  }
  fn.function.addToRolePolicy(putEventsStatement(bus, [scope.source], detailTypes));
  fn.setEnv(envName, bus.eventBusName);
}

/**
 * Sending to one queue (a route's DLQ, where invalid events go on their first receive):
 * `sqs:SendMessage` on that queue only (the sink knows its URL, so no `GetQueueUrl`), and KMS
 * encrypt if the queue has a customer key.
 */
export function useQueueSend(fn: AppFunction, queue: sqs.IQueue, envName: string): void {
  grantQueueSend(fn, queue);
  fn.setEnv(envName, queue.queueUrl);
}

/**
 * `sqs:SendMessage` on one queue (and KMS encrypt with a customer key), for a function told the
 * queue's URL some other way (the delivery function's target list).
 */
export function grantQueueSend(fn: AppFunction, queue: sqs.IQueue): void {
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
  );
  queue.encryptionMasterKey?.grantEncryptDecrypt(fn.function);
}

/**
 * `sqs:ChangeMessageVisibility` on a queue `fn` consumes: a retry's backoff is the message's new
 * visibility timeout.
 */
export function grantQueueBackoff(fn: AppFunction, queue: sqs.IQueue): void {
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:ChangeMessageVisibility'], resources: [queue.queueArn] }),
  );
}

/**
 * Reading one secret: `secretsmanager:GetSecretValue` on it, the one call the functions make
 * (`secret.grantRead` would add `DescribeSecret`, which none makes), and `kms:Decrypt` through
 * Secrets Manager when the secret has a customer key (the AWS-managed key needs no grant).
 */
/** What an SQS event source mapping needs of its queue, and no more (what Lambda's poller calls). */
export const QUEUE_CONSUME_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

export interface QueueConsumeOptions {
  readonly batchSize: number;
  readonly maxConcurrency?: number;
}

/**
 * `fn` consumes `queue` through an event source mapping with partial batch failures. As
 * `SqsEventSource` does (same construct id, so the same logical id), but the role gets only
 * `ReceiveMessage`, `DeleteMessage` and `GetQueueAttributes`: `grantConsumeMessages` adds
 * `ChangeMessageVisibility` and `GetQueueUrl`, which neither Lambda's poller nor the handlers call.
 */
export function useQueueConsume(fn: AppFunction, queue: sqs.IQueue, options: QueueConsumeOptions): void {
  fn.function.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
    eventSourceArn: queue.queueArn,
    batchSize: options.batchSize,
    ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    reportBatchItemFailures: true,
  });
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: QUEUE_CONSUME_ACTIONS, resources: [queue.queueArn] }),
  );
  queue.encryptionMasterKey?.grantDecrypt(fn.function);
}

export function useSecret(fn: AppFunction, secret: secretsmanager.ISecret, envName: string): void {
  grantSecretRead(fn, secret);
  fn.setEnv(envName, secret.secretArn);
}

/** Reading one secret (as `useSecret`), for a function told the secret's ARN some other way. */
export function grantSecretRead(fn: AppFunction, secret: secretsmanager.ISecret): void {
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
  );
  if (secret.encryptionKey) {
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [secret.encryptionKey.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(fn).region}.amazonaws.com` },
        },
      }),
    );
  }
}
