/**
 * The intake's signing secrets from one Secrets Manager secret holding JSON
 * `{ "shopify"?: "…", "woocommerce"?: "…", "generic"?: "whsec_…" }`, returned under their
 * environment names (`INTAKE_*_SECRET`) so the same config loader reads both. No error carries a value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { INTAKE_ENV } from '../../shared/intake-env-names.js';

const secretSchema = z.object({
  shopify: z.string().min(1).optional(),
  woocommerce: z.string().min(1).optional(),
  generic: z.string().min(1).optional(),
});

export class IntakeSecretFormatError extends Error {
  override readonly name = 'IntakeSecretFormatError';
}

export async function loadIntakeSecrets(
  client: SecretsManagerClient,
  secretId: string,
): Promise<Record<string, string>> {
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
      `secret '${secretId}': expected {"shopify"?, "woocommerce"?, "generic"?} with non-empty strings`,
    );
  }
  const s = parsed.data;
  return {
    ...(s.shopify ? { [INTAKE_ENV.shopifySecret]: s.shopify } : {}),
    ...(s.woocommerce ? { [INTAKE_ENV.woocommerceSecret]: s.woocommerce } : {}),
    ...(s.generic ? { [INTAKE_ENV.genericSecret]: s.generic } : {}),
  };
}
