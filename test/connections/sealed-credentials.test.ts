import { randomBytes } from 'node:crypto';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { ConnectionSecretError } from '#functions/core/connections/connection-secret.js';
import {
  openSealedCredentials,
  parseSealedReference,
  SealedCredentialsError,
  sealCredentials,
} from '#functions/core/connections/sealed-credentials.js';
import { createManualClock } from '#functions/shared/clock.js';

const SECRET = 'sealed-key-never-print';
const PLAIN = JSON.stringify({ apiKey: SECRET });
const PATH = '/accounting-events-prod/sealing-keys';
const keys = { k1: randomBytes(32), k2: randomBytes(32) };
const ssm = mockClient(SSMClient);
afterEach(() => ssm.reset());

const seal = (connection: string, keyId: keyof typeof keys = 'k1', plaintext = PLAIN) =>
  sealCredentials({ connection, keyId, dataKey: keys[keyId], plaintext });

/** Parameter Store holding the data keys (base64, as SecureStrings). */
function answerKeys(stored: Record<string, Buffer> = keys) {
  ssm.on(GetParametersCommand).callsFake((input: { Names: string[] }) => {
    const idOf = (n: string) => n.slice(`${PATH}/`.length);
    return {
      Parameters: input.Names.filter((n) => stored[idOf(n)]).map((n) => ({
        Name: n,
        Type: 'SecureString',
        Value: stored[idOf(n)]?.toString('base64'),
      })),
      InvalidParameters: input.Names.filter((n) => !stored[idOf(n)]),
    };
  });
}

function resolver(env: Record<string, string> = { ACCOUNTING_SEALING_KEYS_PATH: PATH }) {
  return createConnectionSecretResolver({
    env,
    clock: createManualClock(),
    ttlMs: 900_000,
    ssm: new SSMClient({ region: 'eu-central-1' }),
  });
}

const openWith = (connection: string, reference: string, key: Buffer) => {
  const parsed = parseSealedReference(reference);
  if (!parsed) throw new Error(`not a sealed reference: ${reference}`);
  return openSealedCredentials(connection, parsed, key);
};

/** `reference` with one byte of its ciphertext flipped. */
function tampered(reference: string): string {
  const [prefix, keyId, iv, data] = reference.split(':') as [string, string, string, string];
  const bytes = Buffer.from(data, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return [prefix, keyId, iv, bytes.toString('base64url')].join(':');
}

describe('sealing and opening (AES-256-GCM, the connection name authenticated)', () => {
  it('round-trips, with a fresh IV each time and no plaintext in the value', () => {
    const a = seal('acme');
    const b = seal('acme');
    expect(a).toMatch(/^sealed:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(SECRET);
    expect(a).not.toContain(Buffer.from(SECRET).toString('base64url'));
    expect(openWith('acme', a, keys.k1)).toBe(PLAIN);
    expect(openWith('acme', b, keys.k1)).toBe(PLAIN);
  });

  it('a value sealed for another connection, under another key, altered, or relabelled does not open', () => {
    const value = seal('acme');
    const refusals = [
      () => openWith('globex', value, keys.k1),
      () => openWith('acme', value, keys.k2),
      () => openWith('acme', tampered(value), keys.k1),
      // The key id is authenticated too: a value relabelled to another id fails even with that id's key.
      () => openWith('acme', value.replace('sealed:k1:', 'sealed:k2:'), keys.k1),
    ];
    for (const refused of refusals) {
      expect(refused).toThrow(SealedCredentialsError);
      expect(refused).toThrow(/could not be opened with sealing key 'k\d': sealed for another connection/);
    }
  });

  it('an entry accepts the sealed form; a malformed one is refused naming credentialsSecret', () => {
    const entry = parseConnectionEntry({ name: 'acme', variant: 'cz', credentialsSecret: seal('acme') });
    expect(entry.credentialsSecret.startsWith('sealed:k1:')).toBe(true);
    for (const bad of ['sealed:k1:short:x', 'sealed:K1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const error = (() => {
        try {
          parseConnectionEntry({ name: 'acme', variant: 'cz', credentialsSecret: bad });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConnectionEntryError);
      expect(String(error)).toContain('credentialsSecret');
    }
  });
});

describe('sealed credentials through the resolver', () => {
  it('one data key read (one decryption) opens every connection sealed under it', async () => {
    answerKeys();
    const secrets = resolver();
    const names = Array.from({ length: 25 }, (_, i) => `company-${i + 1}`);
    const values = await Promise.all(
      names.map((name) => secrets.sourceFor({ name, credentialsSecret: seal(name) }).get()),
    );
    expect(values.every((v) => v.ACCOUNTING_API_KEY === SECRET)).toBe(true);
    // Later connections, and refreshes, find the key kept for the container's life.
    await secrets.sourceFor({ name: 'late', credentialsSecret: seal('late') }).refresh?.();
    const calls = ssm.commandCalls(GetParametersCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([{ Names: [`${PATH}/k1`], WithDecryption: true }]);
  });

  it('values under an older key still open beside the newer one (rotation)', async () => {
    answerKeys();
    const secrets = resolver();
    const old = await secrets.sourceFor({ name: 'acme', credentialsSecret: seal('acme', 'k1') }).get();
    const fresh = await secrets.sourceFor({ name: 'globex', credentialsSecret: seal('globex', 'k2') }).get();
    expect([old.ACCOUNTING_API_KEY, fresh.ACCOUNTING_API_KEY]).toEqual([SECRET, SECRET]);
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(2);
  });

  it('a copied, altered or unknown-key value is one ConnectionSecretError, without value or ciphertext', async () => {
    answerKeys({ k1: keys.k1 });
    const secrets = resolver();
    const copied = seal('globex');
    const cases = [
      { reference: copied, problem: /could not be opened with sealing key 'k1'/ },
      { reference: tampered(seal('acme')), problem: /could not be opened with sealing key 'k1'/ },
      { reference: seal('acme', 'k2'), problem: /needs sealing key 'k2', which could not be read/ },
    ];
    for (const { reference, problem } of cases) {
      const error = await secrets
        .sourceFor({ name: 'acme', credentialsSecret: reference })
        .get()
        .catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(ConnectionSecretError);
      expect((error as Error).message).toMatch(problem);
      expect((error as Error).message).toMatch(/^connection 'acme': credentialsSecret 'sealed:k\d:…'/);
      expect((error as Error).message).not.toContain(reference.split(':')[3]);
      expect((error as Error).message).not.toContain(SECRET);
    }
  });

  it('a key that is not 32 bytes, and a deployment without sealing keys, are refused', async () => {
    answerKeys({ k1: randomBytes(16) });
    const short = await resolver()
      .sourceFor({ name: 'acme', credentialsSecret: seal('acme') })
      .get()
      .catch((e: unknown) => e as Error);
    expect(short).toBeInstanceOf(ConnectionSecretError);
    expect((short as Error).message).toMatch(/needs sealing key 'k1', which is not a 32-byte key/);
    const none = await resolver({})
      .sourceFor({ name: 'acme', credentialsSecret: seal('acme') })
      .get()
      .catch((e: unknown) => e as Error);
    expect((none as Error).message).toMatch(/no sealing keys \(ACCOUNTING_SEALING_KEYS_PATH is not set\)/);
    expect(ssm.commandCalls(GetParametersCommand)).toHaveLength(1);
  });
});
