/**
 * Signing of deliveries to HTTP consumers per the Standard Webhooks specification, through its
 * reference library: `webhook-id` (the event id, stable across retries, so the consumer can
 * deduplicate), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body`). The local runtime (`run --deliver-to`) and the delivery function on AWS
 * both sign here, so a consumer verifies both the same way.
 */
import { Webhook } from 'standardwebhooks';

/** The prefix of a Standard Webhooks signing secret. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** A signing secret that is not a base64 key (with or without `whsec_`). Never carries the value. */
export class SigningSecretError extends Error {
  override readonly name = 'SigningSecretError';
}

const BASE64_KEY = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Standard Webhooks asks for keys of 24 to 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/**
 * The secret in its `whsec_<base64>` form. Accepts the form itself or the bare base64 key (what
 * Secrets Manager generates: letters and digits, a valid base64 text); refuses anything else,
 * naming what was expected and never the value. `what` names the secret in the error.
 */
export function signingSecretOf(value: string, what = 'the signing secret'): string {
  const text = value.trim();
  const key = text.startsWith(SIGNING_SECRET_PREFIX) ? text.slice(SIGNING_SECRET_PREFIX.length) : text;
  if (!BASE64_KEY.test(key)) {
    throw new SigningSecretError(
      `${what}: expected ${SIGNING_SECRET_PREFIX}<base64 key> or the base64 key alone`,
    );
  }
  const bytes = Buffer.from(key, 'base64').length;
  if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES) {
    throw new SigningSecretError(
      `${what}: expected a key of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes, got ${bytes}`,
    );
  }
  return `${SIGNING_SECRET_PREFIX}${key}`;
}

/** The headers of a signed request; the secret never appears in them. */
export function signedHeaders(id: string, body: string, secret: string, now: Date): Record<string, string> {
  const signature = new Webhook(secret).sign(id, now, body);
  return {
    'content-type': 'application/json',
    'user-agent': 'accounting-events',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
