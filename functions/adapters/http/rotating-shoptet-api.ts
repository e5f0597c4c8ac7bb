/**
 * The Shoptet API with its token read from a secret as it changes: the token is read on first use,
 * kept for `ttlMs`, and read again at once after Shoptet refused it (401/403) — at most once per
 * `minRereadMs`, so a run of refusals costs one read per interval. A rotated token is used by the
 * next request after the read; the token itself is never put in an error or a log. With no token
 * stored, every call fails with `RetryLaterError` (the notice waits in its queue), and the secret
 * is read again after `minRereadMs`, so a token stored after the deployment is used within it.
 */
import { RetryLaterError } from '#functions/core/actions/errors.js';
import type { ShoptetApi } from '#functions/core/intake/ports.js';
import { ShoptetApiError } from './shoptet-api.js';

export interface RotatingShoptetApiOptions {
  /** The stored token, or undefined when none is stored yet. */
  readToken(): Promise<string | undefined>;
  /** The API of one token value. */
  apiFor(token: string): ShoptetApi;
  now(): number;
  ttlMs: number;
  minRereadMs: number;
}

/** Shoptet refused the token: it was revoked or rotated. */
const refused = (error: unknown) =>
  error instanceof ShoptetApiError && (error.status === 401 || error.status === 403);

export function createRotatingShoptetApi(options: RotatingShoptetApiOptions): ShoptetApi {
  let held: { token: string | undefined; api: ShoptetApi | undefined; readAt: number } | undefined;
  let stale = false;
  let reading: Promise<void> | undefined;

  const read = async () => {
    const token = await options.readToken();
    const api = token === undefined ? undefined : token === held?.token ? held.api : options.apiFor(token);
    held = { token, api, readAt: options.now() };
    stale = false;
  };
  const current = async (): Promise<ShoptetApi> => {
    const age = held ? options.now() - held.readAt : Number.POSITIVE_INFINITY;
    // Refused, or none stored at the last read: read again once the short interval passed.
    const missing = held !== undefined && held.api === undefined;
    if (age >= options.ttlMs || ((stale || missing) && age >= options.minRereadMs)) {
      reading ??= read().finally(() => {
        reading = undefined;
      });
      await reading;
    }
    if (!held?.api) throw new RetryLaterError('no Shoptet API token is stored');
    return held.api;
  };
  const guarded =
    <A extends unknown[], R>(call: (api: ShoptetApi, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const api = await current();
      try {
        return await call(api, ...args);
      } catch (error) {
        if (refused(error)) stale = true;
        throw error;
      }
    };
  return {
    getOrder: guarded((api, code: string) => api.getOrder(code)),
    listOrders: guarded((api, query: Parameters<ShoptetApi['listOrders']>[0]) => api.listOrders(query)),
    listWebhooks: guarded((api) => api.listWebhooks()),
    registerWebhooks: guarded((api, hooks: Parameters<ShoptetApi['registerWebhooks']>[0]) =>
      api.registerWebhooks(hooks),
    ),
  };
}
