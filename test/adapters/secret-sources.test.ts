import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSecretsManagerSource,
  SecretFormatError,
} from '#functions/adapters/aws/secrets-manager-source.js';
import {
  createEnvSecretSource,
  MissingCredentialsError,
} from '#functions/adapters/local/env-secret-source.js';
import { createManualClock } from '#functions/shared/clock.js';

const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());

const SECRET_VALUE = 'sk-live-7f3a9c-do-not-print';

function source(ttlMs = 60_000) {
  const clock = createManualClock();
  const src = createSecretsManagerSource({
    client: new SecretsManagerClient({ region: 'us-east-1' }),
    secretId: 'accounting/credentials',
    ttlMs,
    clock,
  });
  return { src, clock };
}

describe('Secrets Manager source', () => {
  it('returns an API key under its environment name', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ apiKey: SECRET_VALUE }) });
    const { src } = source();
    expect(await src.get()).toEqual({ ACCOUNTING_API_KEY: SECRET_VALUE });
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'accounting/credentials',
    });
  });

  it('returns client credentials with an optional scope', async () => {
    secrets.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ clientId: 'id', clientSecret: SECRET_VALUE, scope: 'api' }),
    });
    const { src } = source();
    expect(await src.get()).toEqual({
      ACCOUNTING_CLIENT_ID: 'id',
      ACCOUNTING_CLIENT_SECRET: SECRET_VALUE,
      ACCOUNTING_SCOPE: 'api',
    });
  });

  it('caches for ttlMs, then fetches again', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ apiKey: SECRET_VALUE }) });
    const { src, clock } = source(1_000);
    await src.get();
    clock.advance(999);
    await src.get();
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    clock.advance(1);
    await src.get();
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('shares one fetch between concurrent callers and hands out copies', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ apiKey: SECRET_VALUE }) });
    const { src } = source();
    const [a, b] = await Promise.all([src.get(), src.get()]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    (a as Record<string, string>).ACCOUNTING_API_KEY = 'changed';
    expect(b).toEqual({ ACCOUNTING_API_KEY: SECRET_VALUE });
    expect(await src.get()).toEqual({ ACCOUNTING_API_KEY: SECRET_VALUE });
  });

  it.each([
    ['not JSON', `${SECRET_VALUE}`, /is not valid JSON/],
    ['the wrong shape', JSON.stringify({ token: SECRET_VALUE }), /found keys: token/],
    ['an empty key', JSON.stringify({ apiKey: '   ', clientSecret: SECRET_VALUE }), /apiKey/],
    ['a JSON string', JSON.stringify(SECRET_VALUE), /found keys: string/],
  ])('rejects %s without revealing the value', async (_label, secretString, message) => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: secretString });
    const { src } = source();
    const error = await src.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretFormatError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('accounting/credentials');
    const everything =
      JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
    expect(everything).not.toContain(SECRET_VALUE);
  });

  it('rejects a binary secret', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1]) });
    const { src } = source();
    await expect(src.get()).rejects.toBeInstanceOf(SecretFormatError);
  });

  it('passes service errors through and retries on the next call', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new ResourceNotFoundException({ $metadata: {}, message: 'no such secret' }))
      .resolves({ SecretString: JSON.stringify({ apiKey: SECRET_VALUE }) });
    const { src } = source();
    await expect(src.get()).rejects.toBeInstanceOf(ResourceNotFoundException);
    expect(await src.get()).toEqual({ ACCOUNTING_API_KEY: SECRET_VALUE });
  });
});

describe('environment secret source', () => {
  it('prefers the API key', async () => {
    const src = createEnvSecretSource({ ACCOUNTING_API_KEY: 'k', ACCOUNTING_CLIENT_ID: 'id' });
    expect(await src.get()).toEqual({ ACCOUNTING_API_KEY: 'k' });
  });

  it('returns client credentials and scope', async () => {
    const src = createEnvSecretSource({
      ACCOUNTING_CLIENT_ID: 'id',
      ACCOUNTING_CLIENT_SECRET: SECRET_VALUE,
      ACCOUNTING_SCOPE: 'api',
      UNRELATED: 'x',
    });
    expect(await src.get()).toEqual({
      ACCOUNTING_CLIENT_ID: 'id',
      ACCOUNTING_CLIENT_SECRET: SECRET_VALUE,
      ACCOUNTING_SCOPE: 'api',
    });
  });

  it('names what is missing, never a value', async () => {
    const half = await createEnvSecretSource({ ACCOUNTING_CLIENT_SECRET: SECRET_VALUE })
      .get()
      .catch((e: unknown) => e);
    expect(half).toBeInstanceOf(MissingCredentialsError);
    expect((half as Error).message).toContain('ACCOUNTING_CLIENT_ID is not set');
    expect((half as Error).message).not.toContain(SECRET_VALUE);
    const none = await createEnvSecretSource({ ACCOUNTING_API_KEY: '  ' })
      .get()
      .catch((e: unknown) => e);
    expect((none as Error).message).toMatch(
      /set ACCOUNTING_API_KEY, or ACCOUNTING_CLIENT_ID and ACCOUNTING_CLIENT_SECRET/,
    );
  });
});
