/**
 * The Fio banka API over HTTPS (undici): `last` and `set-last-id` of one token. The token is part
 * of the path, so no URL is ever logged or put in an error: errors name the operation and the
 * status only. 409 is Fio's answer to a second request within 30 s.
 */
import { request } from 'undici';
import type { FioApi } from '#functions/core/bank/fio-poll.js';

export const FIO_API_BASE = 'https://fioapi.fio.cz/v1/rest';

/** A Fio request failed; the message names the operation and the status, never the token. */
export class FioApiError extends Error {
  override readonly name = 'FioApiError';
  constructor(
    readonly operation: 'last' | 'set-last-id',
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      `fio ${operation}: ${status === 409 ? 'more than one request per 30 s (409)' : status === undefined ? 'no answer' : `HTTP ${status}`}`,
      options,
    );
  }
}

export function createFioApi(options: { token: string; baseUrl?: string; timeoutMs?: number }): FioApi {
  const base = (options.baseUrl ?? FIO_API_BASE).replace(/\/$/, '');
  const token = encodeURIComponent(options.token);
  const get = async (operation: 'last' | 'set-last-id', path: string) => {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(`${base}${path}`, {
        method: 'GET',
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
    } catch (error) {
      // undici's error may carry the URL: only its kind travels on.
      throw new FioApiError(operation, undefined, { cause: new Error((error as Error).name) });
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump();
      throw new FioApiError(operation, response.statusCode);
    }
    return response;
  };
  return {
    async last() {
      const response = await get('last', `/last/${token}/transactions.json`);
      return response.body.json();
    },
    async setLastId(id) {
      const response = await get('set-last-id', `/set-last-id/${token}/${Math.trunc(id)}/`);
      await response.body.dump();
    },
  };
}
