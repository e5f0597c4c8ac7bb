import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import {
  ConnectionSecretError,
  connectionAccountingConfig,
} from '#functions/core/connections/connection-secret.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import { connectionClientBuilder, createConnectionClients } from '#functions/wiring/connection-clients.js';

const SECRET = 'live-key-3f9a-never-print';
const secretsManager = mockClient(SecretsManagerClient);
afterEach(() => secretsManager.reset());

function resolver(env: Record<string, string | undefined> = {}) {
  return createConnectionSecretResolver({
    env,
    clock: createManualClock(),
    secretsManager: new SecretsManagerClient({ region: 'eu-central-1' }),
  });
}

async function failure(read: Promise<unknown>): Promise<ConnectionSecretError> {
  const error = await read.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionSecretError);
  expect(
    JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) }),
  ).not.toContain(SECRET);
  return error as ConnectionSecretError;
}

describe('connection secrets: env references', () => {
  const acme = { name: 'acme', credentialsSecret: 'env:ACME_CREDENTIALS' };

  it('reads the credentials JSON of the variable under the client settings names', async () => {
    const oauth = JSON.stringify({ clientId: 'id', clientSecret: SECRET, scope: 'S' });
    expect(
      await resolver({ ACME_CREDENTIALS: JSON.stringify({ apiKey: SECRET }) })
        .sourceFor(acme)
        .get(),
    ).toEqual({
      ACCOUNTING_API_KEY: SECRET,
    });
    expect(await resolver({ ACME_CREDENTIALS: oauth }).sourceFor(acme).get()).toEqual({
      ACCOUNTING_CLIENT_ID: 'id',
      ACCOUNTING_CLIENT_SECRET: SECRET,
      ACCOUNTING_SCOPE: 'S',
    });
  });

  it('names the connection, the reference and the variable when it is unset or empty', async () => {
    for (const env of [{}, { ACME_CREDENTIALS: '  ' }]) {
      const error = await failure(resolver(env).sourceFor(acme).get());
      expect(error.message).toBe(
        "connection 'acme': credentialsSecret 'env:ACME_CREDENTIALS' names the environment variable ACME_CREDENTIALS, which is not set",
      );
    }
  });

  it('refuses a value that is not credentials JSON, never quoting it', async () => {
    const notJson = await failure(resolver({ ACME_CREDENTIALS: SECRET }).sourceFor(acme).get());
    expect(notJson.message).toMatch(/'env:ACME_CREDENTIALS' is not valid JSON$/);
    const wrongKeys = await failure(
      resolver({ ACME_CREDENTIALS: JSON.stringify({ key: SECRET }) })
        .sourceFor(acme)
        .get(),
    );
    expect(wrongKeys.message).toMatch(/expected \{"apiKey"\}.*found keys: key$/);
  });
});

describe('connection secrets: Secrets Manager references', () => {
  const arn =
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:accounting-events-prod/connections/acme-AbCdEf';
  const acme = { name: 'acme', credentialsSecret: arn };

  it('reads the secret by its ARN, once within the cache, again on refresh', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ apiKey: SECRET }) });
    const source = resolver().sourceFor(acme);
    expect(await source.get()).toEqual({ ACCOUNTING_API_KEY: SECRET });
    await source.get();
    await source.refresh?.();
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input)).toEqual([
      { SecretId: arn },
      { SecretId: arn },
    ]);
  });

  it('names the connection and the reference when the secret is missing, refused or malformed', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .rejectsOnce(new ResourceNotFoundException({ message: 'not found', $metadata: {} }))
      .rejectsOnce(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }))
      .resolves({ SecretString: JSON.stringify({ apiKey: '', note: SECRET }) });
    const source = resolver().sourceFor({
      name: 'acme',
      credentialsSecret: 'accounting-events-prod/connections/acme',
    });
    expect((await failure(source.get())).message).toBe(
      "connection 'acme': credentialsSecret 'accounting-events-prod/connections/acme' does not exist in Secrets Manager",
    );
    expect((await failure(source.get())).message).toMatch(
      /could not be read from Secrets Manager \(AccessDeniedException\)$/,
    );
    expect((await failure(source.get())).message).toMatch(/found keys: apiKey, note$/);
  });
});

describe('connectionAccountingConfig', () => {
  it("takes the entry's variant and URLs and the secret's credentials, and only tuning from the environment", () => {
    const config = connectionAccountingConfig(
      { name: 'acme', variant: 'sk', baseUrl: 'https://acme.example.com' },
      { ACCOUNTING_API_KEY: SECRET },
      {
        ACCOUNTING_CLIENT_ID: 'default-connection-id',
        ACCOUNTING_CLIENT_SECRET: 'default-connection-secret',
        ACCOUNTING_BASE_URL: 'https://default.example.com',
        ACCOUNTING_REQUEST_TIMEOUT_MS: '1234',
      },
    );
    expect(config).toMatchObject({
      variant: 'sk',
      baseUrl: 'https://acme.example.com',
      requestTimeoutMs: 1234,
      credentials: { kind: 'apiKey' },
    });
  });

  it('names the connection and its setting when the credentials need what the entry lacks', () => {
    const error = (() => {
      try {
        connectionAccountingConfig(
          { name: 'acme', variant: 'sk', baseUrl: 'https://acme.example.com' },
          { ACCOUNTING_CLIENT_ID: 'id', ACCOUNTING_CLIENT_SECRET: SECRET },
          { ACCOUNTING_AUTH_URL: 'https://default.example.com' },
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConnectionEntryError);
    expect((error as Error).message).toBe(
      "connection 'acme': authUrl: expected the OAuth authority URL (required with client credentials)",
    );
  });
});

describe('connection secrets: cached per secret across clients', () => {
  const entryOf = (name: string) =>
    parseConnectionEntry({
      name,
      variant: 'cz',
      credentialsSecret: `accounting-events-prod/connections/${name}`,
    });

  it('a container reads each secret once per ttl, though its clients are closed and built again', async () => {
    const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
    let version = 0;
    secretsManager.on(GetSecretValueCommand).callsFake(() => ({
      SecretString: JSON.stringify({ apiKey: `${SECRET}-${++version}` }),
    }));
    const secrets = createConnectionSecretResolver({
      env: {},
      clock,
      ttlMs: 900_000,
      secretsManager: new SecretsManagerClient({ region: 'eu-central-1' }),
    });
    // One client at a time: every poll of the other connection closes this one's client.
    const clients = createConnectionClients({
      build: connectionClientBuilder({ env: {}, clock, logger: silentLogger, secrets }),
      max: 1,
    });
    const reads = () => secretsManager.commandCalls(GetSecretValueCommand).length;
    for (let cycle = 0; cycle < 14; cycle++) {
      await clients.apiFor(entryOf('alpha'));
      await clients.apiFor(entryOf('beta'));
      clock.advance(60_000);
    }
    expect(reads()).toBe(2);
    clock.advance(120_000); // 16 minutes after the first reads: past the ttl
    await clients.apiFor(entryOf('alpha'));
    expect(reads()).toBe(3);
    // After the service refused the credentials: read again at once, and cached from then on.
    const alpha = secrets.sourceFor(entryOf('alpha'));
    expect(await alpha.refresh?.()).toEqual({ ACCOUNTING_API_KEY: `${SECRET}-4` });
    expect(await secrets.sourceFor(entryOf('alpha')).get()).toEqual({ ACCOUNTING_API_KEY: `${SECRET}-4` });
    expect(reads()).toBe(4);
    await clients.close();
  });

  it('a failed read is not cached: the next poll reads again', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .rejectsOnce(new ResourceNotFoundException({ message: 'gone', $metadata: {} }))
      .resolves({ SecretString: JSON.stringify({ apiKey: SECRET }) });
    const secrets = resolver();
    await failure(secrets.sourceFor(entryOf('alpha')).get());
    expect(await secrets.sourceFor(entryOf('alpha')).get()).toEqual({ ACCOUNTING_API_KEY: SECRET });
  });
});
