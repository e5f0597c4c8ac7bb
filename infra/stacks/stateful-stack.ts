/**
 * Everything that holds data and outlives a code change: tables, buckets, the event bus with its
 * archive, the credentials secret, and the schema registry. The stateless stack receives these
 * resources through `StatefulResources`.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { REJECTED_KEY_PREFIX } from '#functions/core/actions/archive-isdoc/isdoc-key.js';
import { CONNECTION_REGISTRY_TABLE_KEY } from '#functions/core/connections/registry.js';
import { RATE_LIMIT_TABLE_KEY } from '#functions/core/connections/token-bucket.js';
import { namePrefix } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import { EventSchemaRegistry } from '../constructs/event-schema-registry.js';
import { createSealingKey } from '../constructs/sealing-key.js';

/** Key attributes the adapters use. */
export const TABLE_KEYS = {
  /** dynamodb-checkpoint-store: partition key `pk` (string); items never expire unless `ttl` is set. */
  checkpoints: { partitionKey: 'pk', ttl: 'ttl' },
  /** Powertools idempotency defaults: `id` and `expiration`. */
  idempotency: { partitionKey: 'id', ttl: 'expiration' },
  /** Action state (open e-invoice sendings): `pk`, expiring by `ttl`. */
  actionState: { partitionKey: 'pk', ttl: 'ttl' },
  /** The connection registry: one item per connection, partition key `name`; never expires. */
  connections: { partitionKey: CONNECTION_REGISTRY_TABLE_KEY.partitionKey.name },
  /** Token buckets, one per connection (`RATE_LIMIT_TABLE_KEY` of core/connections/token-bucket.ts). */
  rateLimits: RATE_LIMIT_TABLE_KEY,
} as const;

/** Key prefix of archived ISDOC documents (see the archive action). */
export const ARCHIVE_PREFIX = 'isdoc/';
/**
 * Key prefix of ISDOC documents refused by the schema in strict mode (`ACTIONS_ISDOC_SCHEMA_STRICT`),
 * kept for inspection under `rejected/` + the key they would have had.
 */
export const REJECTED_ARCHIVE_PREFIX = `${REJECTED_KEY_PREFIX}${ARCHIVE_PREFIX}`;

/**
 * Default Object Lock retention of an archived ISDOC, in days, for a legal retention of `years`.
 * The legal period starts at the end of the accounting year the document belongs to, not at its
 * upload: a document archived on 1 January must be kept `years` years after the following
 * 31 December. The lock therefore covers `years + 1` calendar years from the upload, with every
 * leap day they can contain (one per four years, rounded up), never less.
 */
export function objectLockRetentionDays(years: number): number {
  const calendarYears = years + 1;
  return 365 * calendarYears + Math.ceil(calendarYears / 4);
}

/** What the stateless stack receives: typed, so a missing resource is a compile error. */
export interface StatefulResources {
  readonly checkpointsTable: dynamodb.ITable;
  readonly idempotencyTable: dynamodb.ITable;
  readonly actionStateTable: dynamodb.ITable;
  readonly archiveBucket: s3.IBucket;
  readonly claimCheckBucket: s3.IBucket;
  readonly eventBus: events.IEventBus;
  readonly credentialsSecret: secretsmanager.ISecret;
  /** With `connectionRegistry`: the registry and the token buckets of the connections. */
  readonly connectionsTable?: dynamodb.ITable;
  readonly rateLimitTable?: dynamodb.ITable;
  /** With `connectionRegistry`: the KMS key of sealed credentials' data keys (sealing-key.ts). */
  readonly sealingKey?: kms.IKey;
}

export interface StatefulStackProps extends StackProps {
  readonly config: InfraConfig;
  /** Folder of the event catalog's JSON Schemas (`events/schemas`). */
  readonly schemasDir: string;
}

export class StatefulStack extends Stack implements StatefulResources {
  readonly checkpointsTable: dynamodb.Table;
  readonly idempotencyTable: dynamodb.Table;
  readonly actionStateTable: dynamodb.Table;
  readonly archiveBucket: s3.Bucket;
  readonly claimCheckBucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;
  readonly eventBus: events.EventBus;
  readonly eventArchive: events.Archive;
  readonly credentialsSecret: secretsmanager.Secret;
  readonly schemaRegistry: EventSchemaRegistry;
  readonly connectionsTable?: dynamodb.Table;
  readonly rateLimitTable?: dynamodb.Table;
  readonly sealingKey?: kms.Key;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    const prefix = namePrefix(config);
    const removalPolicy = config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    this.checkpointsTable = this.table('CheckpointsTable', TABLE_KEYS.checkpoints, config);
    this.idempotencyTable = this.table('IdempotencyTable', TABLE_KEYS.idempotency, config);
    this.actionStateTable = this.table('ActionStateTable', TABLE_KEYS.actionState, config);
    if (config.connectionRegistry) {
      // The registry is configuration people edit (`connections add|pause|remove`): PITR undoes a mistake.
      this.connectionsTable = this.table('ConnectionsTable', TABLE_KEYS.connections, config);
      // A table of its own rather than a key prefix in the checkpoints table: the actions and the
      // intake draw from the buckets too, and must not be able to write checkpoints.
      this.rateLimitTable = this.table('RateLimitTable', TABLE_KEYS.rateLimits, config);
      new CfnOutput(this, 'ConnectionsTableName', { value: this.connectionsTable.tableName });
      this.sealingKey = createSealingKey(this, config, removalPolicy);
    }

    this.accessLogsBucket = this.accessLogs();
    this.archiveBucket = this.archive(config);
    this.claimCheckBucket = this.claimChecks(config);

    this.eventBus = new events.EventBus(this, 'EventBus', {
      eventBusName: prefix,
      description: 'Change events of the accounting service and the outcomes of the actions',
    });
    this.eventArchive = this.eventBus.archive('EventArchive', {
      description: 'Every event on the bus, for replay',
      eventPattern: { account: [Stack.of(this).account] },
      retention: Duration.days(config.eventArchiveRetentionDays),
    });

    this.credentialsSecret = new secretsmanager.Secret(this, 'CredentialsSecret', {
      secretName: `${prefix}/accounting-credentials`,
      description:
        'Credentials of the accounting service as JSON: {"apiKey":"…"} or {"clientId":"…","clientSecret":"…","scope":"…"}. Put the value after deploying (docs/deploy.md).',
      removalPolicy,
    });
    Validations.of(this.credentialsSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The credentials are issued by the accounting service, which offers no API to rotate them; they are replaced by hand (docs/deploy.md).',
    });

    this.schemaRegistry = new EventSchemaRegistry(this, 'SchemaRegistry', {
      registryName: prefix,
      schemasDir: props.schemasDir,
    });
    this.outputs();
  }

  private table(
    tableId: string,
    keys: { partitionKey: string; ttl?: string },
    config: Pick<InfraConfig, 'removalPolicy'>,
  ): dynamodb.Table {
    return new dynamodb.Table(this, tableId, {
      partitionKey: { name: keys.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...(keys.ttl ? { timeToLiveAttribute: keys.ttl } : {}),
      // Encrypted at rest with a key AWS owns: no KMS key to pay for or request (docs/deploy.md).
      encryption: dynamodb.TableEncryption.DEFAULT,
      deletionProtection: config.removalPolicy === 'RETAIN',
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }

  /** Server access logs of both data buckets (an audit trail of who read or wrote accounting records). */
  private accessLogs(): s3.Bucket {
    const bucket = new s3.Bucket(this, 'AccessLogsBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket receives the server access logs of the other buckets; logging it into itself would loop.',
    });
    return bucket;
  }

  /** The ISDOC archive: versioned, under Object Lock, moving to colder storage classes. */
  private archive(config: InfraConfig): s3.Bucket {
    const lock = config.archiveRetentionMode;
    const retention = Duration.days(objectLockRetentionDays(config.archiveRetentionYears));
    const archiveTransitions = transitionsOf(config);
    const bucket = new s3.Bucket(this, 'ArchiveBucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      objectLockEnabled: lock !== 'OFF',
      ...(lock === 'COMPLIANCE'
        ? { objectLockDefaultRetention: s3.ObjectLockRetention.compliance(retention) }
        : {}),
      ...(lock === 'GOVERNANCE'
        ? { objectLockDefaultRetention: s3.ObjectLockRetention.governance(retention) }
        : {}),
      lifecycleRules: [
        ...(archiveTransitions.length > 0
          ? [
              {
                id: 'colder-storage',
                // By default S3 transitions no object under 128 KiB (it would cost more in a colder
                // class): the filter says so, so the rule claims no more than it does.
                objectSizeGreaterThan: MIN_TRANSITION_BYTES,
                transitions: archiveTransitions,
                noncurrentVersionTransitions: archiveTransitions.map((t) => ({
                  storageClass: t.storageClass,
                  transitionAfter: t.transitionAfter ?? Duration.days(0),
                })),
              },
            ]
          : []),
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'archive/',
      // Accounting records: the bucket is never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Bank statements dropped under bank-statements/ are imported on their `Object Created` event
    // (the stateless stack's rule on the default bus). The CloudFormation property, not
    // `eventBridgeEnabled`, which adds a custom resource and its function.
    (bucket.node.defaultChild as s3.CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    if (archiveTransitions.length > 0) {
      // CloudFormation types ObjectSizeGreaterThan as a string (a long); the L2 writes a number.
      (bucket.node.defaultChild as s3.CfnBucket).addPropertyOverride(
        'LifecycleConfiguration.Rules.0.ObjectSizeGreaterThan',
        String(MIN_TRANSITION_BYTES),
      );
    }
    return bucket;
  }

  /** Large event payloads, expiring after `claimCheckExpiryDays`. */
  private claimChecks(config: InfraConfig): s3.Bucket {
    return new s3.Bucket(this, 'ClaimCheckBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'expire-claim-checks',
          expiration: Duration.days(config.claimCheckExpiryDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'claim-check/',
      // CloudFormation cannot delete a bucket that still holds objects: kept, it empties by expiry.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private outputs(): void {
    new CfnOutput(this, 'CredentialsSecretName', {
      description: 'Put the credentials JSON here (docs/deploy.md)',
      value: this.credentialsSecret.secretName,
    });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName });
    new CfnOutput(this, 'EventBusArn', {
      description: 'The destination of a replay',
      value: this.eventBus.eventBusArn,
    });
    new CfnOutput(this, 'EventArchiveArn', {
      description: 'Every event on the bus, for replay: aws events start-replay --event-source-arn <this>',
      value: this.eventArchive.archiveArn,
    });
    new CfnOutput(this, 'ArchiveBucketName', { value: this.archiveBucket.bucketName });
    new CfnOutput(this, 'CheckpointsTableName', { value: this.checkpointsTable.tableName });
    new CfnOutput(this, 'ClaimCheckBucketName', {
      description:
        'Large event payloads (claims/) and the poll state (sync/: id lists of the deletion check)',
      value: this.claimCheckBucket.bucketName,
    });
  }
}

/** Objects at or under this size stay in S3 Standard: S3 transitions none of them (128 KiB). */
export const MIN_TRANSITION_BYTES = 128 * 1024;

/** Archive transitions to colder storage classes (a setting of 0 days leaves its class out). */
function transitionsOf(config: InfraConfig): s3.Transition[] {
  return [
    ...(config.archiveGlacierIrAfterDays > 0
      ? [
          {
            storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL,
            transitionAfter: Duration.days(config.archiveGlacierIrAfterDays),
          },
        ]
      : []),
    ...(config.archiveDeepArchiveAfterDays > 0
      ? [
          {
            storageClass: s3.StorageClass.DEEP_ARCHIVE,
            transitionAfter: Duration.days(config.archiveDeepArchiveAfterDays),
          },
        ]
      : []),
  ];
}
