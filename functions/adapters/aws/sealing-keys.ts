/**
 * The data keys of sealed credentials, as the functions read them: each an SSM SecureString
 * `<path>/<keyId>` (the key's 32 bytes, base64) encrypted with the deployment's own KMS key. A key
 * is read once per container — one `GetParameters` entry, one KMS `Decrypt` through SSM — and kept
 * for the container's life: every connection sealed under it opens without another call. A read
 * that failed is not kept (the next connection asks again).
 */
import { DATA_KEY_BYTES, SEALING_KEY_ID } from '#functions/core/connections/sealed-credentials.js';
import type { SsmParameterStore } from './ssm-parameter-store.js';

/** The data key could not be had (missing, unreadable, or not a key); never carries its value. */
export class SealingKeyError extends Error {
  override readonly name = 'SealingKeyError';
  constructor(
    readonly keyId: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`sealing key '${keyId}' ${problem}`, options);
  }
}

export interface SealingKeys {
  /** The 32-byte data key `keyId` names. */
  dataKey(keyId: string): Promise<Uint8Array>;
}

/** The SSM parameter of a data key. */
export function sealingKeyParameter(path: string, keyId: string): string {
  return `${path.replace(/\/+$/, '')}/${keyId}`;
}

/** Decodes a data key parameter's value: 32 bytes in base64, or a `SealingKeyError`. */
export function decodeDataKey(keyId: string, value: string): Uint8Array {
  const bytes = Buffer.from(value.trim(), 'base64');
  if (bytes.length !== DATA_KEY_BYTES || bytes.toString('base64') !== value.trim())
    throw new SealingKeyError(keyId, `is not a ${DATA_KEY_BYTES}-byte key in base64`);
  return bytes;
}

export function createSealingKeys(options: {
  /** The parameter store of the container (its `GetParameters` batches, with decryption). */
  store: SsmParameterStore;
  /** `ACCOUNTING_SEALING_KEYS_PATH`: where the keys are (`/<prefix>/sealing-keys`). */
  path: string;
}): SealingKeys {
  const keys = new Map<string, Promise<Uint8Array>>();
  const read = async (keyId: string): Promise<Uint8Array> => {
    let value: string;
    try {
      // `fresh`: the store's own cache expires; this one lasts the container's life.
      value = await options.store.get(sealingKeyParameter(options.path, keyId), { fresh: true });
    } catch (error) {
      const kind = error instanceof Error ? error.name : 'Error';
      throw new SealingKeyError(keyId, `could not be read from Parameter Store (${kind})`, { cause: error });
    }
    return decodeDataKey(keyId, value);
  };
  return {
    dataKey(keyId) {
      if (!SEALING_KEY_ID.test(keyId))
        return Promise.reject(new SealingKeyError(keyId, `is not a key id (${SEALING_KEY_ID.source})`));
      let key = keys.get(keyId);
      if (!key) {
        key = read(keyId);
        keys.set(keyId, key);
        key.catch(() => keys.delete(keyId));
      }
      return key;
    },
  };
}
