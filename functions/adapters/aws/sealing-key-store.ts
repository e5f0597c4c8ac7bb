/**
 * The data key `connections add --seal-credentials` seals with: the SSM SecureString
 * `<path>/<keyId>`, read with decryption, or — the first time a key id is used — made here
 * (32 random bytes) and put as a SecureString encrypted with the deployment's KMS key
 * `alias<path>` (`alias/accounting-events-<stage>/sealing-keys`), never overwriting one that exists.
 * Only this path writes a key; the deployed functions may only read (sealing-keys.ts). Errors name
 * the parameter, never the key.
 */
import { randomBytes } from 'node:crypto';
import {
  GetParameterCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { DATA_KEY_BYTES } from '#functions/core/connections/sealed-credentials.js';
import { decodeDataKey, SealingKeyError, sealingKeyParameter } from './sealing-keys.js';

/** The KMS key (alias) that encrypts the data keys of `path`: `alias` + the path. */
export function sealingKmsAlias(path: string): string {
  return `alias${path.replace(/\/+$/, '')}`;
}

async function readKey(client: SSMClient, keyId: string, name: string): Promise<Uint8Array | undefined> {
  try {
    const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    return decodeDataKey(keyId, out.Parameter?.Value ?? '');
  } catch (error) {
    if (error instanceof ParameterNotFound) return undefined;
    if (error instanceof SealingKeyError) throw error;
    const kind = error instanceof Error ? error.name : 'Error';
    throw new SealingKeyError(keyId, `could not be read from Parameter Store (${name}: ${kind})`, {
      cause: error,
    });
  }
}

/** The data key `keyId` of `path`, made and stored first when it does not exist yet. */
export async function dataKeyForSealing(options: {
  client: SSMClient;
  path: string;
  keyId: string;
}): Promise<{ dataKey: Uint8Array; created: boolean }> {
  const { client, path, keyId } = options;
  const name = sealingKeyParameter(path, keyId);
  const existing = await readKey(client, keyId, name);
  if (existing) return { dataKey: existing, created: false };
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    await client.send(
      new PutParameterCommand({
        Name: name,
        Type: 'SecureString',
        KeyId: sealingKmsAlias(path),
        Value: dataKey.toString('base64'),
        Overwrite: false,
        Description: 'A data key of sealed connection credentials (docs/connections.md)',
      }),
    );
    return { dataKey, created: true };
  } catch (error) {
    // Made meanwhile by another `add`: seal with that one.
    if (error instanceof ParameterAlreadyExists) {
      const made = await readKey(client, keyId, name);
      if (made) return { dataKey: made, created: false };
    }
    const kind = error instanceof Error ? error.name : 'Error';
    throw new SealingKeyError(keyId, `could not be stored in Parameter Store (${name}: ${kind})`, {
      cause: error,
    });
  }
}
