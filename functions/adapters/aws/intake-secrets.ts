/**
 * The intake's signing secrets from one Secrets Manager secret holding JSON
 * `{ "shopify"?: "…", "woocommerce"?: "…", "generic"?: "whsec_…", "shoptet"?: "…" }`: by source for the rotating
 * cache of the endpoint (core/intake/rotating-secrets.ts), or under their environment names
 * (`INTAKE_*_SECRET`) so the same config loader reads both. No error carries a value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import type { SigningSecretValues } from '#functions/core/intake/rotating-secrets.js';
import { intakeSources } from '#functions/core/intake/shop-order.js';
import { checkSigningSecret } from '#functions/core/intake/signatures.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';

const secretSchema = z.object({
  shopify: z.string().min(1).optional(),
  woocommerce: z.string().min(1).optional(),
  generic: z.string().min(1).optional(),
  shoptet: z.string().min(1).optional(),
});

export class IntakeSecretFormatError extends Error {
  override readonly name = 'IntakeSecretFormatError';
}

/**
 * The signing secrets by source, each checked for its least length (a key too short to resist a
 * guess is refused, naming the source, never the value).
 */
export async function readSigningSecrets(
  client: SecretsManagerClient,
  secretId: string,
): Promise<SigningSecretValues> {
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  let json: unknown;
  try {
    json = JSON.parse(out.SecretString ?? '');
  } catch {
    throw new IntakeSecretFormatError(`secret '${secretId}' is not valid JSON`);
  }
  const parsed = secretSchema.safeParse(json);
  if (!parsed.success) {
    throw new IntakeSecretFormatError(
      `secret '${secretId}': expected {"shopify"?, "woocommerce"?, "generic"?, "shoptet"?} with non-empty strings`,
    );
  }
  const values: SigningSecretValues = {};
  for (const source of intakeSources) {
    const value = parsed.data[source];
    if (!value) continue;
    try {
      checkSigningSecret(source, value);
    } catch (error) {
      throw new IntakeSecretFormatError(`secret '${secretId}': ${source}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    values[source] = value;
  }
  return values;
}

/** The same secrets under their environment names (`INTAKE_*_SECRET`), for the config loader. */
export function signingSecretsAsEnv(values: SigningSecretValues): Record<string, string> {
  return {
    ...(values.shopify ? { [INTAKE_ENV.shopifySecret]: values.shopify } : {}),
    ...(values.woocommerce ? { [INTAKE_ENV.woocommerceSecret]: values.woocommerce } : {}),
    ...(values.generic ? { [INTAKE_ENV.genericSecret]: values.generic } : {}),
    ...(values.shoptet ? { [INTAKE_ENV.shoptetSignatureKey]: values.shoptet } : {}),
  };
}

export async function loadIntakeSecrets(
  client: SecretsManagerClient,
  secretId: string,
): Promise<Record<string, string>> {
  return signingSecretsAsEnv(await readSigningSecrets(client, secretId));
}
