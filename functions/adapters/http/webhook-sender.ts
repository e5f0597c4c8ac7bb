/**
 * POSTs an event to a consumer, signed per the Standard Webhooks specification through its
 * reference library: `webhook-id` (the event id, stable across retries, so the consumer can
 * deduplicate), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>`
 * of `id.timestamp.body`). The body is the EventBridge event as API destinations send it.
 */

import { Webhook } from 'standardwebhooks';
import { request } from 'undici';

export interface SignedPost {
  url: string;
  /** The webhook id: the event id. */
  id: string;
  body: string;
  /** `whsec_<base64>` or the base64 key itself. */
  secret: string;
  timeoutMs: number;
  now?: Date;
  signal?: AbortSignal;
}

export type PostResult = { ok: true; status: number } | { ok: false; status?: number; error: string };

/** The headers of a signed request (without the secret, which never leaves this module). */
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

/** One attempt; never throws: a network error or timeout is a result without a status. */
export async function postSigned(post: SignedPost): Promise<PostResult> {
  const headers = signedHeaders(post.id, post.body, post.secret, post.now ?? new Date());
  const timeout = AbortSignal.timeout(post.timeoutMs);
  const signal = post.signal ? AbortSignal.any([post.signal, timeout]) : timeout;
  try {
    const response = await request(post.url, { method: 'POST', headers, body: post.body, signal });
    // The body is not needed; read it so the connection is reused.
    await response.body.dump();
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return ok
      ? { ok: true, status: response.statusCode }
      : { ok: false, status: response.statusCode, error: `HTTP ${response.statusCode}` };
  } catch (error) {
    const message = timeout.aborted
      ? `no answer within ${post.timeoutMs} ms`
      : error instanceof Error
        ? error.message
        : String(error);
    return { ok: false, error: message };
  }
}
