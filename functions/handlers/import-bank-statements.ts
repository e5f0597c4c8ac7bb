/**
 * Bank statements dropped into S3: the bucket sends `Object Created` to EventBridge, a rule on the
 * default bus (key prefix `bank-statements/`) queues it, and this function imports each statement
 * (core/bank/statement-drop.ts): one `BankTransaction.Received` per credit transaction, which the
 * payment action liquidates once per transaction. Partial batch failures: a statement that could
 * not be read or published is tried again (its transactions keep their ids, nothing is liquidated
 * twice) and lands in the dead-letter queue by the queue's redrive; one refused (an unknown
 * connection, a file no parser reads, another bucket) is logged and not tried again.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { createAwsAdapters, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createEnvConnectionRegistry } from '../adapters/env-connection-registry.js';
import { type DroppedStatementDeps, importDroppedStatement } from '../core/bank/statement-drop.js';
import type { ObjectStore } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import { ConfigError, loadLogLevel } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { lazyHandler } from './lazy-handler.js';

/** The EventBridge event S3 sends for a new object (the fields read here). */
const objectCreatedSchema = z.object({
  source: z.literal('aws.s3'),
  'detail-type': z.literal('Object Created'),
  detail: z.object({
    bucket: z.object({ name: z.string().min(1) }),
    object: z.object({ key: z.string().min(1).max(1024) }),
  }),
});

/** A queued message that is no S3 `Object Created` event of the statements bucket: never tried again. */
export class InvalidStatementMessageError extends Error {
  override readonly name = 'InvalidStatementMessageError';
}

export interface StatementDropPorts extends Omit<DroppedStatementDeps, 'read'> {
  /** The bucket statements are dropped into; events of another are refused. */
  readonly bucket: string;
  readonly objects: ObjectStore;
}

async function bytesOf(objects: ObjectStore, key: string): Promise<Uint8Array | undefined> {
  const stream = await objects.get(key);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return new Uint8Array(Buffer.concat(chunks));
}

export function createHandler(ports: StatementDropPorts) {
  const deps: DroppedStatementDeps = { ...ports, read: (key) => bytesOf(ports.objects, key) };
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      body = undefined;
    }
    const parsed = objectCreatedSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.')}: ${i.message}`);
      ports.logger.error('invalid statement message', { messageId: record.messageId, issues });
      return;
    }
    const { bucket, object } = parsed.data.detail;
    if (bucket.name !== ports.bucket) {
      ports.logger.error('invalid statement message', {
        messageId: record.messageId,
        issues: [`detail.bucket.name: expected ${ports.bucket}, got ${bucket.name}`],
      });
      return;
    }
    // EventBridge carries the key as it is (no URL encoding, unlike S3's own notifications).
    await importDroppedStatement(deps, object.key);
  };
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
}

export async function handlerFromEnv(env: Readonly<Record<string, string | undefined>>) {
  const bucket = env[ENV.bankStatementsBucket]?.trim();
  if (!bucket)
    throw new ConfigError([{ field: ENV.bankStatementsBucket, expected: 'the statements bucket' }]);
  const logger = new LambdaLogger({ level: loadLogLevel(env), service: 'import-bank-statements' });
  const aws = createAwsAdapters(loadAdapterConfig(env, ['eventBus']), {
    clock: systemClock,
    logger,
    instrument: instrumentClient,
  });
  const table = env[ENV.connectionsTable]?.trim();
  // With the connection registry its entries, else the deployment's registry of one.
  const registry = table
    ? createDynamoDbConnectionRegistry({ client: aws.clients.dynamoDb, tableName: table })
    : createEnvConnectionRegistry(env);
  return createHandler({
    bucket,
    objects: aws.objectStore(bucket),
    registry,
    publisher: aws.publisher(),
    clock: systemClock,
    logger,
  });
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
