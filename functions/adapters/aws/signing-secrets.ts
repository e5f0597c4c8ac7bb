/**
 * The delivery targets' signing secrets from Secrets Manager: one plain-text secret per target,
 * the `whsec_` key or the bare base64 key Secrets Manager generated (both read as `whsec_<key>`).
 * Each is cached for `ttlMs`, so a secret replaced by hand is used within that time; no error
 * carries a secret's value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { signingSecretOf } from '#functions/core/delivery/delivery-signature.js';
import type { Clock } from '#functions/shared/clock.js';

export interface SigningSecretsOptions {
  client: SecretsManagerClient;
  ttlMs: number;
  clock: Clock;
}

/** `secretArn` → its `whsec_` secret (cached); rejects with `SigningSecretError` on a malformed one. */
export function createSigningSecrets(options: SigningSecretsOptions): (secretArn: string) => Promise<string> {
  const { client, ttlMs, clock } = options;
  const cache = new Map<string, { value: Promise<string>; expiresAt: number }>();
  return (secretArn) => {
    const now = clock.now().getTime();
    const hit = cache.get(secretArn);
    if (hit && now < hit.expiresAt) return hit.value;
    const value = client
      .send(new GetSecretValueCommand({ SecretId: secretArn }))
      .then((out) => signingSecretOf(out.SecretString ?? '', `secret ${secretArn}`));
    cache.set(secretArn, { value, expiresAt: now + ttlMs });
    // A failed read is not cached: the next event asks again.
    value.catch(() => {
      if (cache.get(secretArn)?.value === value) cache.delete(secretArn);
    });
    return value;
  };
}
