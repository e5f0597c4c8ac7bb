/**
 * Shoptet's REST API over HTTPS (undici), within its limits: at most 3 requests in flight per
 * token (in this process: every client of one token shares its slots), a 429 (leaky bucket) or
 * 423 (an identical write within 5 s, refused unperformed) waited out per `Retry-After` and tried
 * again within a budget, then `RetryLaterError`. A read that got no answer or a 5xx is tried
 * again; a write that got no answer or a 5xx is never repeated (its outcome is unknown). The
 * token travels in a header and is never put in an error or a log.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import * as z from 'zod';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import type { ShoptetApi, ShoptetWebhook } from '#functions/core/intake/ports.js';
import { createSemaphore } from '#functions/shared/semaphore.js';

/** Shoptet's concurrent connections per token. */
export const SHOPTET_MAX_IN_FLIGHT = 3;
const CONTENT_TYPE = 'application/vnd.shoptet.v1.0';

/** A Shoptet request failed; the message names the operation and the status, never the token. */
export class ShoptetApiError extends Error {
  override readonly name = 'ShoptetApiError';
  constructor(
    readonly operation: string,
    readonly status: number | undefined,
    /** A write whose outcome is unknown (no answer, or a 5xx): it must not be repeated blindly. */
    readonly outcomeUnknown: boolean,
    options?: { cause?: unknown },
  ) {
    super(`shoptet ${operation}: ${status === undefined ? 'no answer' : `HTTP ${status}`}`, options);
  }
}

/** The slots of each token (by its digest and cap) in this process. */
const slotsByToken = new Map<string, ReturnType<typeof createSemaphore>>();
function slotsOf(token: string, limit: number) {
  const key = `${createHash('sha256').update(token).digest('hex')}#${limit}`;
  let slots = slotsByToken.get(key);
  if (!slots) {
    slots = createSemaphore(limit);
    slotsByToken.set(key, slots);
  }
  return slots;
}

/** `Retry-After` in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface ShoptetApiOptions {
  baseUrl: string;
  token: string;
  tokenKind: 'private' | 'access';
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
  /** Attempts of one request (waits on 429/423 included); default 8. */
  maxAttempts?: number;
  /** Most time one request may spend waiting on limits before `RetryLaterError`; default 60 s. */
  maxWaitMs?: number;
  timeoutMs?: number;
  /**
   * Requests of this token in flight in this process at most (default 3, Shoptet's own cap). Where
   * several processes share a token (Lambda containers), each takes its share so the sum stays ≤ 3.
   */
  maxInFlight?: number;
}

const envelope = z.looseObject({ data: z.unknown() });
const listSchema = z.looseObject({
  data: z.looseObject({
    orders: z.array(z.looseObject({ code: z.string().min(1), changeTime: z.string().nullish() })),
    paginator: z.looseObject({ page: z.number().int(), pageCount: z.number().int().min(0) }),
  }),
});
const webhookSchema = z.looseObject({ id: z.number().int(), event: z.string(), url: z.string() });
const webhooksSchema = z.looseObject({ data: z.looseObject({ webhooks: z.array(webhookSchema) }) });

type Answer = { status: number; json: unknown };
type Method = 'GET' | 'POST';
type Raw = Answer & { retryAfter: string | string[] | undefined };

/** One request within the token's slots; a transport failure becomes `ShoptetApiError` (no answer). */
async function requestOnce(
  options: ShoptetApiOptions,
  slots: ReturnType<typeof createSemaphore>,
  req: { operation: string; method: Method; url: string; body?: unknown },
): Promise<Raw> {
  const { operation, method, url, body } = req;
  const tokenHeader = options.tokenKind === 'access' ? 'shoptet-access-token' : 'shoptet-private-api-token';
  await slots.acquire();
  try {
    const res = await request(url, {
      method,
      headers: { [tokenHeader]: options.token, 'content-type': CONTENT_TYPE, accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, retryAfter: res.headers['retry-after'] };
  } catch (error) {
    // undici's error may carry the URL or headers: only its kind travels on.
    throw new ShoptetApiError(operation, undefined, method === 'POST', {
      cause: new Error((error as Error).name),
    });
  } finally {
    slots.release();
  }
}

/**
 * A request tried again within its budget: a read without an answer after a backoff; a 429/423 (or
 * a read's 5xx) after `Retry-After`, then `RetryLaterError`; a write's 5xx never (outcome unknown).
 */
function createRequester(options: ShoptetApiOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const slots = slotsOf(options.token, options.maxInFlight ?? SHOPTET_MAX_IN_FLIGHT);
  const maxAttempts = options.maxAttempts ?? 8;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  return async (operation: string, method: Method, path: string, body?: unknown): Promise<Answer> => {
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      let answer: Raw;
      try {
        answer = await requestOnce(options, slots, { operation, method, url: `${base}${path}`, body });
      } catch (error) {
        const read = method === 'GET' && error instanceof ShoptetApiError;
        if (!read || attempt >= maxAttempts) throw error;
        const delay = Math.min(5000, 250 * 2 ** (attempt - 1));
        waited += delay;
        await options.sleep(delay);
        continue;
      }
      const { status } = answer;
      const unavailable = status >= 500;
      if (status !== 429 && status !== 423 && !unavailable) return { status, json: answer.json };
      if (unavailable && method === 'POST') throw new ShoptetApiError(operation, status, true);
      const delay = retryAfterMs(answer.retryAfter, now()) ?? Math.min(10_000, 500 * 2 ** (attempt - 1));
      if (attempt >= maxAttempts || waited + delay > maxWaitMs) {
        if (unavailable) throw new ShoptetApiError(operation, status, false);
        throw new RetryLaterError(`shoptet ${operation}: HTTP ${status}, still limited`, delay);
      }
      waited += delay;
      await options.sleep(delay);
    }
  };
}

export function createShoptetApi(options: ShoptetApiOptions): ShoptetApi {
  const call = createRequester(options);
  const ok = (operation: string, answer: Answer): unknown => {
    if (answer.status < 200 || answer.status >= 300)
      throw new ShoptetApiError(operation, answer.status, false);
    return answer.json;
  };

  return {
    async getOrder(code) {
      const answer = await call('get order', 'GET', `/api/orders/${encodeURIComponent(code)}?include=notes`);
      if (answer.status === 404) return undefined;
      const parsed = envelope.safeParse(ok('get order', answer));
      const order = parsed.success ? (parsed.data.data as { order?: unknown } | null)?.order : undefined;
      if (order === undefined) throw new ShoptetApiError('get order', answer.status, false);
      return order;
    },
    async listOrders({ changeTimeFrom, page }) {
      const query = new URLSearchParams({ changeTimeFrom, page: String(page), itemsPerPage: '50' });
      const answer = await call('list orders', 'GET', `/api/orders?${query}`);
      const parsed = listSchema.safeParse(ok('list orders', answer));
      if (!parsed.success) throw new ShoptetApiError('list orders', answer.status, false);
      const { orders, paginator } = parsed.data.data;
      return {
        orders: orders.map((o) => ({ code: o.code, changeTime: o.changeTime ?? null })),
        page: paginator.page,
        pageCount: paginator.pageCount,
      };
    },
    async listWebhooks() {
      const answer = await call('list webhooks', 'GET', '/api/webhooks');
      const parsed = webhooksSchema.safeParse(ok('list webhooks', answer));
      if (!parsed.success) throw new ShoptetApiError('list webhooks', answer.status, false);
      return parsed.data.data.webhooks.map((w): ShoptetWebhook => ({ id: w.id, event: w.event, url: w.url }));
    },
    async registerWebhooks(hooks) {
      const answer = await call('register webhooks', 'POST', '/api/webhooks', { data: hooks });
      const parsed = webhooksSchema.safeParse(ok('register webhooks', answer));
      if (!parsed.success) return [];
      return parsed.data.data.webhooks.map((w): ShoptetWebhook => ({ id: w.id, event: w.event, url: w.url }));
    },
  };
}

/** The API of the intake's Shoptet settings, or undefined without a token (nothing is fetched). */
export function shoptetApiOf(
  settings: { baseUrl: string; token?: string; tokenKind: 'private' | 'access' },
  sleep: (ms: number) => Promise<void>,
): ShoptetApi | undefined {
  if (!settings.token) return undefined;
  return createShoptetApi({
    baseUrl: settings.baseUrl,
    token: settings.token,
    tokenKind: settings.tokenKind,
    sleep,
  });
}
