import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { ConnectionSecretError } from '#functions/core/connections/connection-secret.js';
import { createManualClock } from '#functions/shared/clock.js';

const SECRET = 'ssm-key-never-print';
const ssm = mockClient(SSMClient);
afterEach(() => ssm.reset());

const parameterOf = (name: string) => `/accounting-events-prod/connections/${name}`;
const names = Array.from({ length: 23 }, (_, i) => `company-${i + 1}`);

/** The store: every parameter of `names` but `missing`, each asked-for name answered. */
function answer(missing: readonly string[] = []) {
  ssm.on(GetParametersCommand).callsFake((input: { Names: string[] }) => ({
    Parameters: input.Names.filter((n) => !missing.some((m) => n === parameterOf(m))).map((n) => ({
      Name: n,
      Type: 'SecureString',
      Value: JSON.stringify({ apiKey: `${SECRET}-${n}` }),
    })),
    InvalidParameters: input.Names.filter((n) => missing.some((m) => n === parameterOf(m))),
  }));
}

function resolver(clock = createManualClock()) {
  return createConnectionSecretResolver({
    env: {},
    clock,
    ttlMs: 900_000,
    ssm: new SSMClient({ region: 'eu-central-1' }),
  });
}

describe('credentials in SSM Parameter Store', () => {
  it('an entry names its own parameter, bound to its name', () => {
    const entry = parseConnectionEntry({
      name: 'acme',
      variant: 'cz',
      credentialsSecret: 'ssm:/accounting-events-prod/connections/acme',
    });
    expect(entry.credentialsSecret).toBe('ssm:/accounting-events-prod/connections/acme');
    for (const borrowed of ['ssm:/accounting-events-prod/connections/globex', 'ssm:/connections/acme']) {
      expect(() =>
        parseConnectionEntry({ name: 'acme', variant: 'cz', credentialsSecret: borrowed }),
      ).toThrow(ConnectionEntryError);
    }
  });

  it('reads the connections opening together in batches of ten, decrypted, then from its cache', async () => {
    answer();
    const secrets = resolver();
    const values = await Promise.all(
      names.map((name) => secrets.sourceFor({ name, credentialsSecret: `ssm:${parameterOf(name)}` }).get()),
    );
    expect(values[0]).toEqual({ ACCOUNTING_API_KEY: `${SECRET}-${parameterOf('company-1')}` });
    expect(values[22]).toEqual({ ACCOUNTING_API_KEY: `${SECRET}-${parameterOf('company-23')}` });
    const calls = ssm.commandCalls(GetParametersCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Names?.length)).toEqual([10, 10, 3]);
    expect(calls.every((c) => c.WithDecryption === true)).toBe(true);
    expect(new Set(calls.flatMap((c) => c.Names))).toEqual(new Set(names.map(parameterOf)));
    // Cached: the next cycle asks nothing; after the service refused a key, that one is read again.
    await secrets
      .sourceFor({ name: 'company-1', credentialsSecret: `ssm:${parameterOf('company-1')}` })
      .get();
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(3);
    const source = secrets.sourceFor({
      name: 'company-2',
      credentialsSecret: `ssm:${parameterOf('company-2')}`,
    });
    await source.refresh?.();
    expect(ssm.commandCalls(GetParametersCommand).at(-1)?.args[0].input.Names).toEqual([
      parameterOf('company-2'),
    ]);
  });

  it('a missing parameter fails its connection only, naming it and never a value', async () => {
    answer(['company-3']);
    const secrets = resolver();
    const results = await Promise.allSettled(
      ['company-2', 'company-3', 'company-4'].map((name) =>
        secrets.sourceFor({ name, credentialsSecret: `ssm:${parameterOf(name)}` }).get(),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const error = (results[1] as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(ConnectionSecretError);
    expect(error.message).toBe(
      `connection 'company-3': credentialsSecret 'ssm:${parameterOf('company-3')}' does not exist in Parameter Store`,
    );
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(1);
  });

  it('refuses another connection’s parameter before any call', async () => {
    answer();
    const error = await resolver()
      .sourceFor({ name: 'acme', credentialsSecret: `ssm:${parameterOf('globex')}` })
      .get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionSecretError);
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(0);
  });
});
