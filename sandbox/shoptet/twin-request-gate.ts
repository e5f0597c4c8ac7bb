/**
 * The Shoptet twin's gate in front of its API, from Shoptet's documented limits: the token
 * (`Shoptet-Private-API-Token` or an add-on's `Shoptet-Access-Token`, else 401); 3 requests in
 * flight per token (a 4th gets 429); a leaky bucket per token (429 with `Retry-After` and
 * `X-RateLimit-Bucket-Filling`); and the faults set on the twin (429, 423, latency).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failure, send } from './twin-http.js';
import type { TwinState } from './twin-state.js';

export interface GateOptions {
  token: string;
  /** Leaky bucket: capacity and requests drained per second. */
  capacity: number;
  leak: number;
}

export type RequestGate = (
  req: IncomingMessage,
  res: ServerResponse,
  pass: () => Promise<void>,
) => Promise<void>;

/** A gate that answers a refused request itself and calls `pass` for an admitted one. */
export function createRequestGate(state: TwinState, options: GateOptions): RequestGate {
  const { capacity, leak } = options;
  const { faults, stats } = state;
  let inFlight = 0;
  let bucket = 0;
  let bucketAt = Date.now();

  const fill = () => {
    const now = Date.now();
    bucket = Math.max(0, bucket - ((now - bucketAt) / 1000) * leak);
    bucketAt = now;
    return bucket;
  };

  return async (req, res, pass) => {
    const token = req.headers['shoptet-private-api-token'] ?? req.headers['shoptet-access-token'];
    if (token !== options.token) {
      send(res, 401, failure('invalid-token', 'Invalid access token.'));
      return;
    }
    stats.requests += 1;
    // Every open request of the token counts, refused or not: the most ever open is the client's concurrency.
    inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    try {
      if (faults.rateLimitNext > 0 || fill() + 1 > capacity || inFlight > 3) {
        if (faults.rateLimitNext > 0) faults.rateLimitNext -= 1;
        stats.rateLimited += 1;
        const wait = Math.max(1, Math.ceil((bucket + 1 - capacity) / leak));
        send(res, 429, failure('too-many-requests', 'Too many requests.'), {
          'retry-after': String(wait),
          'x-ratelimit-bucket-filling': String(Math.round(bucket)),
        });
        return;
      }
      if (faults.lockNext > 0) {
        faults.lockNext -= 1;
        stats.locked += 1;
        send(res, 423, failure('locked', 'Resource is locked.'), { 'retry-after': '1' });
        return;
      }
      bucket += 1;
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      await pass();
    } finally {
      inFlight -= 1;
    }
  };
}
