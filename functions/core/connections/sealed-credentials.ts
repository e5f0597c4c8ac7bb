/**
 * Sealed credentials: the registry entry itself holds the connection's credentials JSON, encrypted
 * with AES-256-GCM under a data key of the deployment (envelope encryption). The reference is
 *
 *   sealed:<keyId>:<iv>:<ciphertext and tag>        (base64url, no padding)
 *
 * `keyId` names the data key (so a new key can be added while values sealed under an old one still
 * open), and the connection's name is the GCM additional authenticated data: a sealed value copied
 * to another entry fails to open, as does one altered or opened with another key. The data keys
 * themselves live wrapped by the deployment's KMS key (`sealing-keys.ts` of the adapters); this
 * module only seals and opens. No error here carries the plaintext or the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SEALED_PREFIX = 'sealed:';
/** A data key's id: lower-case letters, digits and `-`, at most 32 characters. */
export const SEALING_KEY_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** AES-256: a data key is 32 bytes. */
export const DATA_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** The form a sealed reference must have (what the entry schema checks before any key is read). */
export const SEALED_REFERENCE = /^sealed:[a-z0-9][a-z0-9-]{0,31}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{24,4000}$/;

export interface SealedReference {
  keyId: string;
  iv: Buffer;
  /** Ciphertext followed by the 16-byte GCM tag. */
  sealed: Buffer;
}

/** A sealed value could not be opened: wrong key, sealed for another connection, or altered. */
export class SealedCredentialsError extends Error {
  override readonly name = 'SealedCredentialsError';
}

/** What is authenticated with the ciphertext: the connection's name (and the key id, so ids cannot be swapped). */
function additionalData(connection: string, keyId: string): Buffer {
  return Buffer.from(`accounting-events/connection/${connection}/key/${keyId}`, 'utf8');
}

/** The parts of a sealed reference, or undefined when `reference` is not one. */
export function parseSealedReference(reference: string): SealedReference | undefined {
  const ref = reference.trim();
  if (!SEALED_REFERENCE.test(ref)) return undefined;
  const [, keyId, iv, sealed] = ref.split(':') as [string, string, string, string];
  return { keyId, iv: Buffer.from(iv, 'base64url'), sealed: Buffer.from(sealed, 'base64url') };
}

/** How a sealed reference is shown in messages and listings: its key id, never the ciphertext. */
export function sealedReferenceLabel(reference: string): string {
  const parsed = parseSealedReference(reference);
  return parsed ? `${SEALED_PREFIX}${parsed.keyId}:…` : reference;
}

function checkKey(dataKey: Uint8Array): void {
  if (dataKey.length !== DATA_KEY_BYTES)
    throw new SealedCredentialsError(`a data key is ${DATA_KEY_BYTES} bytes; this one is ${dataKey.length}`);
}

/** Seals `plaintext` (the credentials JSON) for `connection` under the data key `keyId`. */
export function sealCredentials(input: {
  connection: string;
  keyId: string;
  dataKey: Uint8Array;
  plaintext: string;
  /** Only for tests: the 12-byte IV (a fresh random one otherwise; never reuse one under a key). */
  iv?: Uint8Array;
}): string {
  const { connection, keyId, dataKey, plaintext } = input;
  if (!SEALING_KEY_ID.test(keyId))
    throw new SealedCredentialsError(`sealing key id '${keyId}': expected ${SEALING_KEY_ID.source}`);
  checkKey(dataKey);
  const iv = input.iv ?? randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, dataKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(connection, keyId));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${SEALED_PREFIX}${keyId}:${Buffer.from(iv).toString('base64url')}:${body.toString('base64url')}`;
}

/**
 * Opens a sealed reference of `connection` with the data key its key id names. Any mismatch — another
 * connection's value, another key, a changed byte — is one `SealedCredentialsError` saying so.
 */
export function openSealedCredentials(
  connection: string,
  sealed: SealedReference,
  dataKey: Uint8Array,
): string {
  checkKey(dataKey);
  if (sealed.iv.length !== IV_BYTES || sealed.sealed.length <= TAG_BYTES)
    throw new SealedCredentialsError('is not a sealed value (IV or ciphertext too short)');
  const body = sealed.sealed.subarray(0, sealed.sealed.length - TAG_BYTES);
  const tag = sealed.sealed.subarray(sealed.sealed.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv(ALGORITHM, dataKey, sealed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(connection, sealed.keyId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch (error) {
    // node's message ("Unsupported state or unable to authenticate data") says nothing of the value.
    throw new SealedCredentialsError(
      `could not be opened with sealing key '${sealed.keyId}': sealed for another connection, under another key, or altered`,
      { cause: error },
    );
  }
}
