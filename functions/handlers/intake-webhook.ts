/**
 * Intake endpoint Lambda behind the HTTP API (`ANY /intake/{connection}/{source}` and `ANY
 * /intake/{source}`, payload format 2.0): only verifies, validates, queues and answers 202; the
 * import Lambda creates the order. The connection is looked up in the deployment's registry: the
 * DynamoDB table (`POLLER_CONNECTIONS_TABLE`), or its own connection only. The raw body
 * (base64-decoded when API Gateway encoded it) is what the signature is checked on. An order too
 * large for a queue message is claim-checked in the claim-check bucket (`CLAIM_CHECK_BUCKET`).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createAwsAdapters, loadAdapterConfig } from '../adapters/aws/adapter-config.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { readSigningSecrets, signingSecretsAsEnv } from '../adapters/aws/intake-secrets.js';
import { createSqsIntakeQueue } from '../adapters/aws/sqs-intake-queue.js';
import { requireSetting } from '../core/actions/config.js';
import { loadIntakeConfig } from '../core/intake/intake-config.js';
import { ownConnectionRegistry, registryIntakeConnections } from '../core/intake/intake-connections.js';
import { type ReceiveDeps, receiveWebhook } from '../core/intake/receive-webhook.js';
import { createRotatingSecrets } from '../core/intake/rotating-secrets.js';
import { systemClock } from '../shared/clock.js';
import { loadLogLevel, loadSections } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';
import { INTAKE_ENV } from '../shared/intake-env-names.js';
import { createLogger } from '../shared/logger.js';
import { lazyHandler } from './lazy-handler.js';

/** At most one read of the signing secrets per this interval after mismatches (a flood costs one read). */
const MIN_REREAD_MS = 10_000;

export type IntakeHttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export function createHandler(deps: ReceiveDeps): IntakeHttpHandler {
  return async (event) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
    const body =
      event.body === undefined
        ? Buffer.alloc(0)
        : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
    const response = await receiveWebhook(deps, {
      method: event.requestContext.http.method,
      source: event.pathParameters?.source ?? '',
      ...(event.pathParameters?.connection !== undefined
        ? { connection: event.pathParameters.connection }
        : {}),
      headers,
      body,
    });
    return {
      statusCode: response.status,
      headers: { 'content-type': 'application/json', ...(response.headers ?? {}) },
      body: JSON.stringify(response.body),
    };
  };
}

/** Dependencies from the environment: secrets from Secrets Manager, the FIFO queue, the bus. */
export async function handlerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<IntakeHttpHandler> {
  // Every section at once; the intake's settings again below, with the secrets from Secrets Manager.
  const { logLevel, adapters, queueUrl } = loadSections({
    logLevel: () => loadLogLevel(env),
    adapters: () => loadAdapterConfig(env, ['eventBus']),
    queueUrl: () => requireSetting(env[INTAKE_ENV.queueUrl], INTAKE_ENV.queueUrl),
    intake: () => loadIntakeConfig(env),
  });
  const logger = createLogger({ level: logLevel, service: 'intake-webhook' });
  const aws = createAwsAdapters(adapters, { clock: systemClock, logger });
  const secretId = env[INTAKE_ENV.secretsSecret];
  const read = () => readSigningSecrets(aws.clients.secretsManager, secretId as string);
  const initial = secretId ? await read() : {};
  const config = loadIntakeConfig({ ...env, ...signingSecretsAsEnv(initial) });
  // Rotation: cached, read again after a mismatch, the previous value kept for its grace window.
  const signingSecrets = secretId
    ? createRotatingSecrets({
        read,
        clock: systemClock,
        initial,
        ttlMs: config.secretsCacheSeconds * 1000,
        graceMs: config.secretsGraceSeconds * 1000,
        minRereadMs: MIN_REREAD_MS,
      })
    : undefined;
  const claimCheckBucket = env[ENV.claimCheckBucket];
  const connectionsTable = env[ENV.connectionsTable]?.trim();
  const registry = connectionsTable
    ? createDynamoDbConnectionRegistry({ client: aws.clients.dynamoDb, tableName: connectionsTable })
    : ownConnectionRegistry(config);
  return createHandler({
    config,
    connections: registryIntakeConnections(registry, config.connection),
    queue: createSqsIntakeQueue({ client: new SQSClient({}), queueUrl }),
    ...(claimCheckBucket ? { orderStore: aws.objectStore(claimCheckBucket) } : {}),
    publisher: aws.publisher(),
    clock: systemClock,
    logger,
    ...(signingSecrets ? { signingSecrets } : {}),
  });
}

export const handler = lazyHandler(() => handlerFromEnv(process.env));
