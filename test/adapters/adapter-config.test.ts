import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADAPTER_DEFAULTS,
  createAwsAdapters,
  loadAdapterConfig,
} from '#functions/adapters/aws/adapter-config.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createManualClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';
import { createLogger } from '#functions/shared/logger.js';
import { startTestServers, type TestServers } from '../support/embedded.js';

describe('loadAdapterConfig', () => {
  it('applies defaults and treats empty strings as unset', () => {
    expect(loadAdapterConfig({ EVENT_BUS_NAME: 'bus', POLLER_CHECKPOINTS_TABLE: '' })).toEqual({
      eventBusName: 'bus',
      publishMaxAttempts: ADAPTER_DEFAULTS.publishMaxAttempts,
      maxEntrySizeBytes: 1024 * 1024,
      credentialsCacheMs: 300_000,
    });
  });

  it('reads every variable', () => {
    expect(
      loadAdapterConfig({
        EVENT_BUS_NAME: 'bus',
        POLLER_CHECKPOINTS_TABLE: 'cp',
        CLAIM_CHECK_BUCKET: 'claims',
        ACCOUNTING_CREDENTIALS_SECRET: 'arn:secret',
        EVENT_PUBLISH_MAX_ATTEMPTS: '8',
        EVENT_MAX_ENTRY_SIZE_BYTES: '262144',
        ACCOUNTING_CREDENTIALS_CACHE_SECONDS: '0',
      }),
    ).toEqual({
      eventBusName: 'bus',
      checkpointsTable: 'cp',
      claimCheckBucket: 'claims',
      credentialsSecret: 'arn:secret',
      publishMaxAttempts: 8,
      maxEntrySizeBytes: 262_144,
      credentialsCacheMs: 0,
    });
  });

  it('names every missing or malformed variable in one error', () => {
    const error = (() => {
      try {
        loadAdapterConfig({ EVENT_PUBLISH_MAX_ATTEMPTS: 'many', EVENT_MAX_ENTRY_SIZE_BYTES: '-1' }, [
          'eventBus',
          'checkpoints',
        ]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('EVENT_PUBLISH_MAX_ATTEMPTS: expected a positive integer');
    expect(problems).toContain('EVENT_MAX_ENTRY_SIZE_BYTES: expected a positive integer');
    expect(problems).toContain('EVENT_BUS_NAME: required (eventBus) but not set');
    expect(problems).toContain('POLLER_CHECKPOINTS_TABLE: required (checkpoints) but not set');
  });
});

describe('createAwsAdapters', () => {
  let servers: TestServers;
  beforeAll(async () => {
    servers = await startTestServers();
  });
  afterAll(() => servers.close());

  const deps = () => ({
    clock: createManualClock({ autoAdvance: true }),
    logger: createLogger({ level: 'silent' }),
  });

  it('builds working stores on the given clients', async () => {
    const table = await servers.checkpointTable();
    const bucket = await servers.bucket('claims');
    const aws = createAwsAdapters(
      loadAdapterConfig({ POLLER_CHECKPOINTS_TABLE: table, CLAIM_CHECK_BUCKET: bucket }),
      {
        ...deps(),
        clients: { dynamoDb: servers.dynamoDb, s3: servers.s3 },
      },
    );
    const checkpoints = createDynamoDbCheckpointStore({ client: aws.clients.dynamoDb, tableName: table });
    expect(await checkpoints.put('k', { a: 1 }, undefined)).toBe(1);
    expect(aws.clients.dynamoDb).toBe(servers.dynamoDb);
    await aws.claimCheckStore().put({ key: 'c/1.json', body: '{}', contentType: 'application/json' });
    expect((await aws.claimCheckStore().head('c/1.json'))?.size).toBe(2);
  });

  it('publishes to the configured bus', async () => {
    const eventBridge = mockClient(EventBridgeClient);
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const aws = createAwsAdapters(loadAdapterConfig({ EVENT_BUS_NAME: 'accounting' }), {
      ...deps(),
      clients: { eventBridge: new EventBridgeClient({ region: 'us-east-1' }) },
    });
    await aws.publisher().publish([{ source: 's', detailType: 'IssuedInvoice.Created', detail: {} }]);
    expect(eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0]?.EventBusName).toBe(
      'accounting',
    );
    eventBridge.restore();
  });

  it('names the variable when an adapter is asked for without its resource', () => {
    const aws = createAwsAdapters(loadAdapterConfig({}), deps());
    expect(() => aws.publisher()).toThrow(/EVENT_BUS_NAME/);
    expect(() => aws.secretSource()).toThrow(/ACCOUNTING_CREDENTIALS_SECRET/);
  });
});
