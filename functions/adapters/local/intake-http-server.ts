/**
 * The local intake endpoint: `POST /intake/<connection>/<source>` and `POST /intake/<source>` on
 * node:http (any source name: the use case says which it serves), the raw body read up to the
 * limit and handed with the lower-case headers to the same use case the Lambda runs. A body
 * declared or grown over the limit answers 413 at once and its socket is closed: it is not read to
 * its end. Any other path answers 404. A request must arrive whole in time (headers within
 * `headersTimeoutMs`, the whole request within `requestTimeoutMs`: a slow body under the limit
 * holds no socket for long) and at most `maxConnections` sockets are open at once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IntakeRequest, IntakeResponse } from '#functions/core/intake/receive-webhook.js';
import type { Logger } from '#functions/core/ports.js';

export interface IntakeHttpServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** `/intake/<source>` or `/intake/<connection>/<source>`: groups 1 (the connection, if any) and 2. */
const PATH = /^\/intake\/(?:([A-Za-z0-9_-]{1,40})\/)?([A-Za-z0-9_-]{1,32})\/?$/;

/** How long a request may take to arrive and how many sockets may be open (a shop posts a few kB at a time). */
export const INTAKE_SERVER_LIMITS = {
  /** The headers, from the connection or the previous request. */
  headersTimeoutMs: 10_000,
  /** The whole request, headers and body. */
  requestTimeoutMs: 30_000,
  /** Open sockets; more are closed as they come. */
  maxConnections: 64,
} as const;

export type IntakeServerLimits = { -readonly [K in keyof typeof INTAKE_SERVER_LIMITS]: number };

/** The body, or `undefined` as soon as it grows over `limit` (reading stops there). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * 413 at once, then the socket closed: a body declared or grown over the limit is never read to
 * its end, so a client that declares a gigabyte and sends it slowly holds nothing open.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, limit: number, logger: Logger): void {
  logger.warn('intake request refused', { status: 413, reason: 'body too large', limitBytes: limit });
  const body = JSON.stringify({ error: `the body is over ${limit} bytes` });
  res.shouldKeepAlive = false;
  res.writeHead(413, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body, () => req.socket.destroy());
}

function send(res: ServerResponse, response: IntakeResponse): void {
  const body = JSON.stringify(response.body);
  res.writeHead(response.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(response.headers ?? {}),
  });
  res.end(body);
}

export interface IntakeHttpServerOptions {
  port: number;
  host?: string;
  maxBodyBytes: number;
  handle: (request: IntakeRequest) => Promise<IntakeResponse>;
  logger: Logger;
  limits?: Partial<IntakeServerLimits>;
}

/** The request's headers, one string each (repeated ones joined by `, `). */
function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  return headers;
}

/** Reads the body of a request to an intake path and answers with the use case's response. */
function answerIntake(
  req: IncomingMessage,
  res: ServerResponse,
  match: RegExpExecArray,
  options: IntakeHttpServerOptions,
) {
  const { logger } = options;
  readBody(req, options.maxBodyBytes)
    .then((body) => {
      if (body === undefined) {
        refuseTooLarge(req, res, options.maxBodyBytes, logger);
        return undefined;
      }
      return options.handle({
        method: req.method ?? 'GET',
        source: match[2] ?? '',
        ...(match[1] !== undefined ? { connection: match[1] } : {}),
        headers: headersOf(req),
        body,
      });
    })
    .then((response) => {
      if (response) send(res, response);
    })
    .catch((error: unknown) => {
      logger.error('intake request failed', { error: error instanceof Error ? error.name : 'unknown' });
      if (!res.headersSent) send(res, { status: 500, body: { error: 'internal error; retry later' } });
      else res.destroy();
    });
}

/** The server's request handler: 404 off the intake paths, 413 for a body declared over the limit. */
function intakeRequestHandler(options: IntakeHttpServerOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const match = PATH.exec(path);
    if (!match) {
      req.resume();
      send(res, {
        status: 404,
        body: { error: 'not found; POST /intake/<connection>/<source> or /intake/<source>' },
      });
      return;
    }
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
      refuseTooLarge(req, res, options.maxBodyBytes, options.logger);
      return;
    }
    answerIntake(req, res, match, options);
  };
}

export async function startIntakeHttpServer(options: IntakeHttpServerOptions): Promise<IntakeHttpServer> {
  const limits = { ...INTAKE_SERVER_LIMITS, ...options.limits };
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the two timeouts on this interval (30 s by default): a tenth of the shorter one.
    connectionsCheckingInterval: Math.max(
      100,
      Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10,
    ),
  };
  const server = createServer(serverOptions, intakeRequestHandler(options));
  server.keepAliveTimeout = 5000;
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets now; requests in flight get a moment to answer.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
