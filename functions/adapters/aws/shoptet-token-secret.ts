/**
 * The Shoptet API token from its own Secrets Manager secret, JSON `{ "token": "…" }` (a Premium
 * shop's private API token, or an add-on's access token with `INTAKE_SHOPTET_TOKEN_KIND=access`).
 * The secret is created empty (`{}`): no token is stored, nothing is fetched. No error carries a value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';

const tokenSecretSchema = z.object({
  token: z.string().min(16, { error: 'expected at least 16 characters' }).optional(),
});

export class ShoptetTokenSecretError extends Error {
  override readonly name = 'ShoptetTokenSecretError';
}

export async function readShoptetToken(
  client: SecretsManagerClient,
  secretId: string,
): Promise<string | undefined> {
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  let json: unknown;
  try {
    json = JSON.parse(out.SecretString ?? '');
  } catch {
    throw new ShoptetTokenSecretError(`secret '${secretId}' is not valid JSON`);
  }
  const parsed = tokenSecretSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ShoptetTokenSecretError(
      `secret '${secretId}': ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'expected {"token": "…"}'}`,
    );
  }
  return parsed.data.token;
}
