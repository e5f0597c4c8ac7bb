/**
 * Signature checks on the raw body, before anything is parsed.
 * - Shopify `X-Shopify-Hmac-Sha256` and WooCommerce `X-WC-Webhook-Signature`: base64 of
 *   HMAC-SHA256(secret, raw body), compared in constant time;
 * - Shoptet `Shoptet-Webhook-Signature`: hex of HMAC-SHA1(signature key, raw body), compared in
 *   constant time;
 * - generic: the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64>`) through its reference library, with its 5-minute tolerance.
 * Every failure is a `SignatureError` whose message names the check, never a value.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { IntakeSource } from './shop-order.js';

export class SignatureError extends Error {
  override readonly name = 'SignatureError';
  constructor(
    readonly reason: 'missing' | 'mismatch' | 'stale',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Header names are lower case (HTTP API and node:http both lower-case them). */
export type Headers = Readonly<Record<string, string | undefined>>;

export const SIGNATURE_HEADERS: Record<Exclude<IntakeSource, 'generic'>, string> = {
  shopify: 'x-shopify-hmac-sha256',
  woocommerce: 'x-wc-webhook-signature',
  shoptet: 'shoptet-webhook-signature',
};

export function hmacBase64(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/** Shoptet's signature: HMAC-SHA1 of the raw body with the shop's signature key, lower-case hex. */
export function hmacSha1Hex(secret: string, body: Buffer | string): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

function verifyHmac(expectedText: string, given: string | undefined): void {
  if (!given) throw new SignatureError('missing', 'signature header missing');
  const expected = Buffer.from(expectedText, 'utf8');
  const actual = Buffer.from(given.trim(), 'utf8');
  // Equal lengths first (timingSafeEqual requires it); the length of the digest's encoding is public.
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new SignatureError('mismatch', 'signature does not match the body');
  }
}

function verifyStandard(secret: string, body: Buffer, headers: Headers): void {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (!id || !timestamp || !signature) {
    throw new SignatureError('missing', 'webhook-id, webhook-timestamp and webhook-signature are required');
  }
  try {
    new Webhook(secret).verify(
      body.toString('utf8'),
      {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      },
      { jsonParse: false },
    );
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    const stale = /timestamp too (old|new)/i.test(error.message);
    throw stale
      ? new SignatureError('stale', 'webhook-timestamp outside the 5-minute tolerance', { cause: error })
      : new SignatureError('mismatch', 'webhook-signature does not match the body', { cause: error });
  }
}

/** Throws `SignatureError` unless `body` is signed with `secret` the way `source` signs. */
export function verifySignature(source: IntakeSource, secret: string, body: Buffer, headers: Headers): void {
  if (source === 'generic') verifyStandard(secret, body, headers);
  else if (source === 'shoptet')
    verifyHmac(hmacSha1Hex(secret, body), headers[SIGNATURE_HEADERS.shoptet]?.toLowerCase());
  else verifyHmac(hmacBase64(secret, body), headers[SIGNATURE_HEADERS[source]]);
}

/** Headers that sign `body` as `source` would (the `intake send` command and tests use it). */
export function signHeaders(
  source: IntakeSource,
  secret: string,
  body: string,
  options: { deliveryId: string; now: Date },
): Record<string, string> {
  if (source === 'generic') {
    return {
      'webhook-id': options.deliveryId,
      'webhook-timestamp': String(Math.floor(options.now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(options.deliveryId, options.now, body),
    };
  }
  if (source === 'shoptet') return { 'shoptet-webhook-signature': hmacSha1Hex(secret, body) };
  if (source === 'shopify') {
    return {
      'x-shopify-hmac-sha256': hmacBase64(secret, body),
      'x-shopify-topic': 'orders/create',
      'x-shopify-webhook-id': options.deliveryId,
      'x-shopify-shop-domain': 'demo-shop.myshopify.com',
      'x-shopify-api-version': '2025-10',
      'x-shopify-triggered-at': options.now.toISOString(),
    };
  }
  return {
    'x-wc-webhook-signature': hmacBase64(secret, body),
    'x-wc-webhook-topic': 'order.created',
    'x-wc-webhook-resource': 'order',
    'x-wc-webhook-event': 'created',
    'x-wc-webhook-delivery-id': options.deliveryId,
    'x-wc-webhook-source': 'https://demo-shop.example/',
  };
}

/** The Standard Webhooks secret's least key length in bytes (the scheme recommends 24 to 64). */
export const MIN_STANDARD_SECRET_BYTES = 24;
/** The least length of a Shopify, WooCommerce or Shoptet signing secret. */
export const MIN_HMAC_SECRET_CHARS = 16;

/**
 * Checks a Standard Webhooks secret (`whsec_<base64>`) decodes to at least
 * `MIN_STANDARD_SECRET_BYTES` bytes; throws naming the problem, not the value.
 */
export function checkStandardSecret(secret: string): void {
  try {
    new Webhook(secret);
  } catch (error) {
    throw new Error('expected a Standard Webhooks secret: whsec_ followed by base64', { cause: error });
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  if (key.length < MIN_STANDARD_SECRET_BYTES) {
    throw new Error(
      `expected a Standard Webhooks key of at least ${MIN_STANDARD_SECRET_BYTES} bytes (found ${key.length})`,
    );
  }
}

/** Checks a source's signing secret is long enough; throws naming the problem, not the value. */
export function checkSigningSecret(source: IntakeSource, secret: string): void {
  if (source === 'generic') {
    checkStandardSecret(secret);
    return;
  }
  if (secret.length < MIN_HMAC_SECRET_CHARS) {
    throw new Error(`expected at least ${MIN_HMAC_SECRET_CHARS} characters`);
  }
}
