/**
 * POSTs an event to a consumer, signed per the Standard Webhooks specification
 * (core/delivery/delivery-signature.ts). The body is the EventBridge event as the bus holds it.
 */

import { type Dispatcher, request } from 'undici';
import type { PostResult } from '#functions/core/delivery/delivery-decision.js';
import { signedHeaders } from '#functions/core/delivery/delivery-signature.js';

export type { PostResult } from '#functions/core/delivery/delivery-decision.js';

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
  /** How to connect (e.g. `publicAddressAgent`); undici's global dispatcher when omitted. */
  dispatcher?: Dispatcher;
}

/** One attempt; never throws: a network error or timeout is a result without a status. */
export async function postSigned(post: SignedPost): Promise<PostResult> {
  const headers = signedHeaders(post.id, post.body, post.secret, post.now ?? new Date());
  const timeout = AbortSignal.timeout(post.timeoutMs);
  const signal = post.signal ? AbortSignal.any([post.signal, timeout]) : timeout;
  try {
    const response = await request(post.url, {
      method: 'POST',
      headers,
      body: post.body,
      signal,
      ...(post.dispatcher ? { dispatcher: post.dispatcher } : {}),
    });
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
