/**
 * `connections add --seal-credentials FILE --sealing-keys PATH [--sealing-key-id ID]`: the
 * credentials JSON of FILE sealed for the connection under the deployment's data key (made the
 * first time a key id is used), so the entry holds `sealed:<keyId>:…` and no secret is stored
 * anywhere else. The file's content is checked like any credentials secret; no error, log or
 * output carries it.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { dataKeyForSealing } from '../adapters/aws/sealing-key-store.js';
import { parseCredentialsJson } from '../core/connections/connection-secret.js';
import { SEALING_KEY_ID, sealCredentials } from '../core/connections/sealed-credentials.js';
import { UsageError } from './usage-error.js';

/** The key id a first sealing uses when none is named. */
export const DEFAULT_SEALING_KEY_ID = 'k1';
/** An SSM path: `/` and letters, digits, `_ . -` segments. */
const SSM_PATH = /^(\/[\w.-]+)+$/;

export interface SealFlags {
  'seal-credentials'?: string | undefined;
  'sealing-keys'?: string | undefined;
  'sealing-key-id'?: string | undefined;
}

/** The credentials JSON of `path`, checked (`--seal-credentials` named in every refusal). */
async function readCredentials(path: string, cwd: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new UsageError(
      `--seal-credentials: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const parsed = parseCredentialsJson(text);
  if (!parsed.ok) throw new UsageError(`--seal-credentials: ${path} ${parsed.problem}`);
  // Sealed as read (trimmed): the same JSON the other references hold.
  return text.trim();
}

/**
 * What seals the credentials for a connection name, or undefined without `--seal-credentials`.
 * The file is read and checked before any AWS call.
 */
export async function sealerOf(
  flags: SealFlags,
  ssm: () => SSMClient,
  cwd: string,
): Promise<{ path: string; seal: (name: string) => Promise<string> } | undefined> {
  const file = flags['seal-credentials'];
  if (file === undefined) return undefined;
  const path = flags['sealing-keys']?.trim() ?? '';
  if (!SSM_PATH.test(path))
    throw new UsageError(
      '--sealing-keys: expected the SSM path of the deployment’s sealing keys, /accounting-events-<stage>/sealing-keys',
    );
  const keyId = flags['sealing-key-id'] ?? DEFAULT_SEALING_KEY_ID;
  if (!SEALING_KEY_ID.test(keyId))
    throw new UsageError(
      `--sealing-key-id: expected lower-case letters, digits and -, at most 32 (${keyId})`,
    );
  const plaintext = await readCredentials(file, cwd);
  return {
    path,
    seal: async (connection) => {
      const { dataKey } = await dataKeyForSealing({ client: ssm(), path, keyId });
      return sealCredentials({ connection, keyId, dataKey, plaintext });
    },
  };
}
