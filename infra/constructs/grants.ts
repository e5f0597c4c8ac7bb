/**
 * Grant-and-configure helpers: each gives a function exactly the actions it uses on one resource
 * AND sets the environment variable that names the resource, so a function can never be told about
 * a resource it may not use, nor be allowed one it is not told about.
 */
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { DetailType } from '../../functions/core/events/catalog.js';
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

export interface BucketAccess {
  /** Object key prefix the function may use (`isdoc/`); default: the whole bucket. */
  readonly prefix?: string;
  readonly read?: boolean;
  readonly write?: boolean;
  /** `s3:ListBucket` (within the prefix): lets HEAD of a missing key answer 404 instead of 403. */
  readonly list?: boolean;
}

export function useBucket(fn: AppFunction, bucket: s3.IBucket, envName: string, access: BucketAccess): void {
  const prefix = access.prefix ?? '';
  const objects = bucket.arnForObjects(`${prefix}*`);
  const actions = [
    ...(access.read ? ['s3:GetObject'] : []),
    ...(access.write ? ['s3:PutObject', 's3:AbortMultipartUpload'] : []),
  ];
  if (actions.length === 0 && !access.list) {
    throw new Error(`useBucket(${fn.handler}, ${envName}): expected read, write or list access`);
  }
  if (actions.length > 0) {
    fn.function.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [objects] }));
    acknowledgeWildcardResource(
      fn.role,
      objects,
      `Object actions (${actions.join(', ')}) need object ARNs: the wildcard covers ${prefix ? `the ${prefix} prefix of ` : ''}one bucket only.`,
    );
  }
  if (access.list) {
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        ...(prefix ? { conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } } } : {}),
      }),
    );
  }
  if (bucket.encryptionKey) {
    if (access.read) bucket.encryptionKey.grantDecrypt(fn.function);
    if (access.write) bucket.encryptionKey.grantEncryptDecrypt(fn.function);
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

/**
 * `events:PutEvents` on the bus only for the given source and detail-types (IAM conditions on
 * `events:source` and `events:detail-type`): a function can forge no other event.
 */
export function useEventBus(
  fn: AppFunction,
  bus: events.IEventBus,
  envName: string,
  scope: PutEventsScope,
): void {
  const exact = scope.detailTypes ?? [];
  const patterns = scope.detailTypePatterns ?? [];
  if (exact.length === 0 && patterns.length === 0) {
    throw new Error(`useEventBus(${fn.handler}): expected the detail-types the function publishes`);
  }
  const statement = (conditions: Record<string, Record<string, unknown>>) =>
    new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [bus.eventBusArn], conditions });
  const sourceOperator = scope.source.includes('*') ? 'StringLike' : 'StringEquals';
  const conditions = (operator: 'StringEquals' | 'StringLike', types: readonly string[]) => {
    const merged: Record<string, Record<string, unknown>> = {
      [sourceOperator]: { 'events:source': [scope.source] },
    };
    merged[operator] = { ...merged[operator], 'events:detail-type': [...types] };
    return merged;
  };
  if (exact.length > 0) fn.function.addToRolePolicy(statement(conditions('StringEquals', exact)));
  if (patterns.length > 0) fn.function.addToRolePolicy(statement(conditions('StringLike', patterns)));
  fn.setEnv(envName, bus.eventBusName);
}

/**
 * Sending to one queue (a route's DLQ, where invalid events go on their first receive):
 * `sqs:SendMessage` on that queue only (the sink knows its URL, so no `GetQueueUrl`), and KMS
 * encrypt if the queue has a customer key.
 */
export function useQueueSend(fn: AppFunction, queue: sqs.IQueue, envName: string): void {
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
  );
  queue.encryptionMasterKey?.grantEncryptDecrypt(fn.function);
  fn.setEnv(envName, queue.queueUrl);
}

export function useSecret(fn: AppFunction, secret: secretsmanager.ISecret, envName: string): void {
  secret.grantRead(fn.function);
  fn.setEnv(envName, secret.secretArn);
}
