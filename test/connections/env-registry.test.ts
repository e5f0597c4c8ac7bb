import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import {
  createEnvConnectionRegistry,
  ReadOnlyRegistryError,
} from '#functions/adapters/env-connection-registry.js';
import { isdocSettings } from '#functions/core/actions/archive-isdoc/settings.js';
import { connectionEventSource } from '#functions/core/connection.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { ConnectionSecretError } from '#functions/core/connections/connection-secret.js';
import { UnknownConnectionError } from '#functions/core/connections/registry.js';
import { loadActionFunctionConfig } from '#functions/handlers/action-config.js';
import { createManualClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';

const SECRET = 'env-registry-key-never-print';
const secretsManager = mockClient(SecretsManagerClient);
afterEach(() => secretsManager.reset());

describe('environment-backed registry: a single company is a registry of one', () => {
  it('builds the one entry from the settings the deployment has always read', async () => {
    const registry = createEnvConnectionRegistry({
      ACCOUNTING_CONNECTION: 'acme',
      ACCOUNTING_SERVICE_VARIANT: 'CZ',
      ACCOUNTING_BASE_URL: 'https://api.example.test/v1/',
      POLLER_COLLECTIONS: 'IssuedInvoices, ReceivedOrders',
      EVENT_SOURCE: 'shop.acme',
      ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUED_INVOICE: 'true',
      ACTIONS_IDEMPOTENCY_TABLE: 'deployment-table',
      ACCOUNTING_API_KEY: SECRET,
    });
    const entries = await registry.list();
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({
      name: 'acme',
      variant: 'cz',
      baseUrl: 'https://api.example.test/v1',
      collections: ['IssuedInvoices', 'ReceivedOrders'],
      source: 'shop.acme',
      credentialsSecret: 'deployment',
      paused: false,
      actions: { ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUED_INVOICE: 'true' },
    });
    // A setting of the deployment is not one of the connection's; the credentials are never in the entry.
    expect(entry?.actions).not.toHaveProperty('ACTIONS_IDEMPOTENCY_TABLE');
    expect(JSON.stringify(entries)).not.toContain(SECRET);
    expect(await registry.get('acme')).toEqual(entry);
    expect(await registry.get('other')).toBeUndefined();
    expect(await registry.scan()).toEqual({ entries, malformed: [] });
    expect(connectionEventSource(entry!)).toBe('shop.acme');
  });

  it('defaults to the connection `default` and the source accounting.<name>', async () => {
    const [entry] = await createEnvConnectionRegistry({ ACCOUNTING_SERVICE_VARIANT: 'cz' }).list();
    expect(entry?.name).toBe('default');
    expect(entry?.collections).toBeUndefined();
    expect(connectionEventSource(entry!)).toBe('accounting.default');
    // The entry passes the registries' own validation (the file and DynamoDB ones).
    expect(parseConnectionEntry(entry)).toEqual(entry);
  });

  const fieldsOf = (env: Record<string, string>) => {
    try {
      createEnvConnectionRegistry(env);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).not.toContain('Not A Name');
      return (e as ConfigError).issues.map((i) => i.field).sort();
    }
    throw new Error('expected the registry to refuse the environment');
  };

  it('names each bad variable, not the entry field, and never a value', () => {
    expect(
      fieldsOf({
        ACCOUNTING_SERVICE_VARIANT: 'cz',
        ACCOUNTING_CONNECTION: 'Not A Name',
        EVENT_SOURCE: 'aws.events',
      }),
    ).toEqual(['ACCOUNTING_CONNECTION', 'EVENT_SOURCE']);
    const env = {
      ACCOUNTING_SERVICE_VARIANT: 'cz',
      POLLER_COLLECTIONS: 'nosuchcollection',
      ACTIONS_ISDOC_MAX_BYTES: 'lots',
    };
    expect(fieldsOf(env)).toEqual(['POLLER_COLLECTIONS']);
    // An action's own settings are checked by the function of the action that reads them, at cold start.
    expect(() => loadActionFunctionConfig(env, [], [isdocSettings])).toThrow(/ACTIONS_ISDOC_MAX_BYTES/);
    expect(fieldsOf({ ACCOUNTING_SERVICE_VARIANT: 'sk' })).toEqual(['ACCOUNTING_BASE_URL']);
  });

  it('refuses every change, saying where the connection is configured', async () => {
    const registry = createEnvConnectionRegistry({
      ACCOUNTING_CONNECTION: 'acme',
      ACCOUNTING_SERVICE_VARIANT: 'cz',
    });
    const entry = (await registry.list())[0]!;
    await expect(registry.add({ ...entry, name: 'beta' })).rejects.toThrow(ReadOnlyRegistryError);
    await expect(registry.setPaused('acme', true)).rejects.toThrow(/ACCOUNTING_CONNECTION/);
    await expect(registry.remove('acme')).rejects.toThrow(ReadOnlyRegistryError);
    await expect(registry.remove('beta')).rejects.toThrow(UnknownConnectionError);
    expect(await registry.list()).toEqual([entry]);
  });
});

describe('the deployment credentials reference', () => {
  const entry = { name: 'acme', credentialsSecret: 'deployment' };
  const resolver = (env: Record<string, string>, deploymentCredentials?: boolean) =>
    createConnectionSecretResolver({
      env,
      clock: createManualClock(),
      secretsManager: new SecretsManagerClient({ region: 'eu-central-1' }),
      ...(deploymentCredentials !== undefined ? { deploymentCredentials } : {}),
    });

  it('reads the environment credentials (and the path overrides) of a single-company deployment', async () => {
    const values = await resolver(
      { ACCOUNTING_API_KEY: SECRET, ACCOUNTING_PATH_OVERRIDES: '{"a":"b"}', OTHER: 'x' },
      true,
    )
      .sourceFor(entry)
      .get();
    expect(values).toEqual({ ACCOUNTING_API_KEY: SECRET, ACCOUNTING_PATH_OVERRIDES: '{"a":"b"}' });
  });

  it('reads the secret ACCOUNTING_CREDENTIALS_SECRET names, whatever its name', async () => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'stack-generated-Secret-1a2b' })
      .resolves({ SecretString: JSON.stringify({ apiKey: SECRET }) });
    const values = await resolver({ ACCOUNTING_CREDENTIALS_SECRET: 'stack-generated-Secret-1a2b' }, true)
      .sourceFor(entry)
      .get();
    expect(values).toEqual({ ACCOUNTING_API_KEY: SECRET });
  });

  it('is refused to a registry entry: no connection borrows the deployment credentials', async () => {
    const error = await resolver({ ACCOUNTING_API_KEY: SECRET })
      .sourceFor(entry)
      .get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionSecretError);
    expect((error as Error).message).toContain("single-company deployment's own credentials");
    expect((error as Error).message).not.toContain(SECRET);
    expect(secretsManager.calls()).toHaveLength(0);
  });
});
