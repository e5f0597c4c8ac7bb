/**
 * Configuration of the AWS adapters from the environment, and one place that builds them with
 * one SDK client per service, for the handlers' composition roots:
 *
 *   const config = loadAdapterConfig(process.env, ['eventBus', 'claimCheck']);
 *   const aws = createAwsAdapters(config, { clock: systemClock, logger });
 *   const deps = { publisher: aws.publisher(), objectStore: aws.claimCheckStore(), … };
 *
 * `loadAdapterConfig` throws one `ConfigError` naming every missing or malformed
 * variable that the caller requires, so a misconfigured function fails at cold start.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import type { Clock, EventPublisher, Logger, ObjectStore, SecretSource } from '#functions/core/ports.js';
import { ConfigError, type Env, loadSections, parseEnvSection } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { createEventBridgePublisher, DEFAULT_MAX_ENTRY_SIZE_BYTES } from './eventbridge-publisher.js';
import { createS3ObjectStore } from './s3-object-store.js';
import { createSecretsManagerSource } from './secrets-manager-source.js';

export const ADAPTER_DEFAULTS = {
  publishMaxAttempts: 5,
  maxEntrySizeBytes: DEFAULT_MAX_ENTRY_SIZE_BYTES,
  credentialsCacheSeconds: 300,
} as const;

/** Resources a function can require; each maps to one variable. */
export type AdapterResource = 'eventBus' | 'checkpoints' | 'claimCheck' | 'credentials';

const REQUIRED_VARIABLE: Record<AdapterResource, string> = {
  eventBus: ENV.eventBusName,
  checkpoints: ENV.pollerCheckpointsTable,
  claimCheck: ENV.claimCheckBucket,
  credentials: ENV.credentialsSecret,
};

const name = z.string().trim().min(1).optional();
const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int('expected a positive integer')
    .positive('expected a positive integer')
    .default(fallback);

const envSchema = z.object({
  [ENV.eventBusName]: name,
  [ENV.pollerCheckpointsTable]: name,
  [ENV.claimCheckBucket]: name,
  [ENV.credentialsSecret]: name,
  [ENV.eventPublishMaxAttempts]: positiveInt(ADAPTER_DEFAULTS.publishMaxAttempts),
  [ENV.eventMaxEntrySizeBytes]: positiveInt(ADAPTER_DEFAULTS.maxEntrySizeBytes),
  [ENV.credentialsCacheSeconds]: z.coerce
    .number({ error: 'expected a number of seconds ≥ 0' })
    .int('expected a number of seconds ≥ 0')
    .nonnegative('expected a number of seconds ≥ 0')
    .default(ADAPTER_DEFAULTS.credentialsCacheSeconds),
});

export interface AdapterConfig {
  eventBusName?: string;
  publishMaxAttempts: number;
  maxEntrySizeBytes: number;
  checkpointsTable?: string;
  claimCheckBucket?: string;
  credentialsSecret?: string;
  credentialsCacheMs: number;
}

const missing = (resource: AdapterResource) =>
  new ConfigError([{ field: REQUIRED_VARIABLE[resource], expected: `required (${resource}) but not set` }]);

/** Throws `ConfigError` naming the variable of each required resource that is not set. */
function requireResources(env: Env, required: readonly AdapterResource[]): void {
  const unset = required.filter((resource) => !env[REQUIRED_VARIABLE[resource]]?.trim());
  if (unset.length > 0) throw new ConfigError(unset.flatMap((resource) => missing(resource).issues));
}

export function loadAdapterConfig(env: Env, required: readonly AdapterResource[] = []): AdapterConfig {
  const { values: data } = loadSections({
    values: () => parseEnvSection(envSchema, env),
    resources: () => requireResources(env, required),
  });
  return {
    publishMaxAttempts: data[ENV.eventPublishMaxAttempts],
    maxEntrySizeBytes: data[ENV.eventMaxEntrySizeBytes],
    credentialsCacheMs: data[ENV.credentialsCacheSeconds] * 1000,
    ...(data[ENV.eventBusName] !== undefined ? { eventBusName: data[ENV.eventBusName] } : {}),
    ...(data[ENV.pollerCheckpointsTable] !== undefined
      ? { checkpointsTable: data[ENV.pollerCheckpointsTable] }
      : {}),
    ...(data[ENV.claimCheckBucket] !== undefined ? { claimCheckBucket: data[ENV.claimCheckBucket] } : {}),
    ...(data[ENV.credentialsSecret] !== undefined ? { credentialsSecret: data[ENV.credentialsSecret] } : {}),
  };
}

export interface AwsClients {
  eventBridge?: EventBridgeClient;
  dynamoDb?: DynamoDBClient;
  s3?: S3Client;
  secretsManager?: SecretsManagerClient;
}

export interface AwsAdapters {
  publisher(): EventPublisher;
  claimCheckStore(): ObjectStore;
  /** An object store on any bucket (e.g. the archive bucket of the actions). */
  objectStore(bucket: string): ObjectStore;
  secretSource(): SecretSource;
  readonly clients: Required<AwsClients>;
}

/** Builds adapters on demand; SDK clients (one per service, created lazily) can be passed in. */
export function createAwsAdapters(
  config: AdapterConfig,
  deps: {
    clock: Clock;
    logger: Logger;
    clients?: AwsClients;
    /** Wraps each client this function creates (X-Ray capture on Lambda); given clients are left as they are. */
    instrument?: <T extends object>(client: T) => T;
  },
): AwsAdapters {
  const given = deps.clients ?? {};
  const made = deps.instrument ?? (<T>(client: T) => client);
  let eventBridge = given.eventBridge;
  let dynamoDb = given.dynamoDb;
  let s3 = given.s3;
  let secretsManager = given.secretsManager;
  const clients = {
    get eventBridge() {
      eventBridge ??= made(new EventBridgeClient({}));
      return eventBridge;
    },
    get dynamoDb() {
      dynamoDb ??= made(new DynamoDBClient({}));
      return dynamoDb;
    },
    get s3() {
      s3 ??= made(new S3Client({}));
      return s3;
    },
    get secretsManager() {
      secretsManager ??= made(new SecretsManagerClient({}));
      return secretsManager;
    },
  };
  const need = (value: string | undefined, resource: AdapterResource): string => {
    if (value === undefined) throw missing(resource);
    return value;
  };
  return {
    clients,
    publisher: () =>
      createEventBridgePublisher({
        client: clients.eventBridge,
        busName: need(config.eventBusName, 'eventBus'),
        maxEntrySizeBytes: config.maxEntrySizeBytes,
        maxAttempts: config.publishMaxAttempts,
        clock: deps.clock,
        logger: deps.logger,
      }),
    claimCheckStore: () =>
      createS3ObjectStore({ client: clients.s3, bucket: need(config.claimCheckBucket, 'claimCheck') }),
    objectStore: (bucket) => createS3ObjectStore({ client: clients.s3, bucket }),
    secretSource: () =>
      createSecretsManagerSource({
        client: clients.secretsManager,
        secretId: need(config.credentialsSecret, 'credentials'),
        ttlMs: config.credentialsCacheMs,
        clock: deps.clock,
      }),
  };
}
