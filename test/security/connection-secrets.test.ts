/**
 * Finding 2: a registry entry could use another connection's credentials
 * (`connections add --name evil --base-url <any host> --credentials-secret env:ACME_CREDENTIALS`,
 * then `connections test evil` sent ACME's key to that host). A reference is now bound to its
 * connection's name: `env:<NAME>_CREDENTIALS`, or the secret `<prefix>/connections/<name>`. The
 * entry schema refuses any other (file, DynamoDB item, `connections add`), and the resolver refuses
 * it again before anything is read, so no key can leave for a host of another entry.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import {
  ConnectionEntryError,
  parseConnectionEntry,
  secretReferenceProblem,
} from '#functions/core/connections/connection-entry.js';
import { ConnectionSecretError } from '#functions/core/connections/connection-secret.js';
import { createManualClock } from '#functions/shared/clock.js';

const ACME_KEY = 'acme-live-key-7c1e-never-sent';
const secretsManager = mockClient(SecretsManagerClient);
afterAll(() => secretsManager.restore());

const PREFIX = 'accounting-events-prod/connections';
const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret';
const borrowed = [
  'env:ACME_CREDENTIALS',
  'env:ACCOUNTING_CREDENTIALS',
  'env:EVILX_CREDENTIALS',
  `${PREFIX}/acme`,
  `${PREFIX}/evil-twin`,
  `${PREFIX}/evil/../acme`,
  `${ARN}:${PREFIX}/acme-AbCdEf`,
  `${ARN}:${PREFIX}/evil-twin-AbCdEf`,
  `${ARN}:accounting-events-prod/accounting-credentials-AbCdEf`,
  'connections/evil',
  '/connections/evil',
];
const own = ['env:EVIL_CREDENTIALS', `${PREFIX}/evil`, `${ARN}:${PREFIX}/evil-AbCdEf`];

describe("finding 2: an entry never reaches another connection's credentials", () => {
  it('the entry schema refuses a reference not bound to the name, naming the field', () => {
    for (const credentialsSecret of borrowed) {
      const error = (() => {
        try {
          parseConnectionEntry({ name: 'evil', variant: 'cz', credentialsSecret });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, credentialsSecret).toBeInstanceOf(ConnectionEntryError);
      expect(String((error as Error).message), credentialsSecret).toContain('credentialsSecret');
    }
    for (const credentialsSecret of own) {
      expect(parseConnectionEntry({ name: 'evil', variant: 'cz', credentialsSecret }).name).toBe('evil');
      expect(secretReferenceProblem('evil', credentialsSecret)).toBeUndefined();
    }
  });

  it('the resolver refuses it before any read: no variable read, no Secrets Manager call', async () => {
    secretsManager.reset();
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ apiKey: ACME_KEY }) });
    const env = new Proxy(
      { ACME_CREDENTIALS: JSON.stringify({ apiKey: ACME_KEY }) } as Record<string, string>,
      {
        get(target, key: string) {
          reads.push(key);
          return target[key];
        },
      },
    );
    const reads: string[] = [];
    const resolver = createConnectionSecretResolver({
      env,
      clock: createManualClock(),
      secretsManager: new SecretsManagerClient({ region: 'eu-central-1' }),
    });
    for (const credentialsSecret of borrowed) {
      const source = resolver.sourceFor({ name: 'evil', credentialsSecret });
      for (const read of [source.get(), source.refresh?.()]) {
        const error = await read?.catch((e: unknown) => e);
        expect(error, credentialsSecret).toBeInstanceOf(ConnectionSecretError);
        expect(JSON.stringify({ m: (error as Error).message })).not.toContain(ACME_KEY);
      }
    }
    expect(reads).toEqual([]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });
});
