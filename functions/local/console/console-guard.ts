/**
 * Who may use the console: a request to 127.0.0.1 (or localhost) on the console's own port (the
 * `Host` header, against DNS rebinding), from no origin or the console's own (`Origin`, against a
 * web page in the same browser), carrying the per-run token. The token comes in the `token` query
 * parameter only for the page itself (the printed URL; the page takes it out of the address bar and
 * the history at once) and in the `X-Console-Token` header for everything else, reads and changes:
 * a header another origin cannot send without a CORS preflight, which the console never answers.
 * No CORS headers are ever sent.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-console-token';

/** A fresh per-run token: 32 random bytes, base64url. */
export function newConsoleToken(): string {
  return randomBytes(32).toString('base64url');
}

export type GuardVerdict =
  | { ok: true }
  | { ok: false; status: 400 | 401 | 403 | 405 | 415 | 421; reason: string };

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The verdict on a request to the console listening on `port`. */
export function checkConsoleRequest(
  req: IncomingMessage,
  url: URL,
  token: string,
  port: number,
): GuardVerdict {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) {
    return { ok: false, status: 421, reason: `host: expected 127.0.0.1:${port}` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`)) {
    return { ok: false, status: 403, reason: 'origin: only the console itself may call it' };
  }
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    return { ok: false, status: 403, reason: 'sec-fetch-site: cross-site requests are refused' };
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') {
    const inQuery = url.pathname === '/' ? url.searchParams.get('token') : null;
    if (inQuery === null && url.searchParams.has('token')) {
      return { ok: false, status: 401, reason: `token: expected in the ${TOKEN_HEADER} header` };
    }
    return sameToken(inQuery ?? header(req, TOKEN_HEADER), token)
      ? { ok: true }
      : { ok: false, status: 401, reason: 'token: missing or wrong' };
  }
  if (method !== 'POST') return { ok: false, status: 405, reason: 'method: expected GET or POST' };
  if (!sameToken(header(req, TOKEN_HEADER), token)) {
    return { ok: false, status: 401, reason: `token: expected in the ${TOKEN_HEADER} header` };
  }
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return { ok: false, status: 415, reason: 'content-type: expected application/json' };
  }
  return { ok: true };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
