/**
 * The console's HTTP server (node:http, 127.0.0.1 only): the page, its live stream (Server-Sent
 * Events: which events changed, one message per `flushMs`, so a burst of events costs the pipeline one
 * listener call each and the browser one message a second), and the JSON API. Every request passes the guard first: Host, Origin,
 * token (`console-guard.ts`). A refused request changes nothing and learns nothing. The page runs
 * under a nonce policy: no inline script or style but its own.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import type { Logger } from '#functions/core/ports.js';
import {
  answerGet,
  answerPost,
  ConsoleRequestError,
  type ConsoleSources,
  type Reply,
} from './console-api.js';
import { formatConsoleError } from './console-errors.js';
import type { FeedChange } from './console-feed.js';
import { checkConsoleRequest, newConsoleToken } from './console-guard.js';
import { consolePage } from './console-page.js';
import { IsdocViewError } from './isdoc-view.js';

export interface ConsoleServerOptions {
  /** 0 = any free port. */
  port: number;
  token?: string;
  logger: Logger;
  /** How often the stream sends what changed; default 1 s. */
  flushMs?: number;
}

export interface ConsoleServer {
  /** `http://127.0.0.1:<port>/?token=…`: the URL to open. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
/** Changes the stream holds for the next flush at most; beyond, the page reloads the lists. */
const MAX_PENDING = 500;

/**
 * The policy of every answer: nothing runs or styles but what carries the page's `nonce` (fresh
 * for each load of the page; the JSON answers have none, so nothing at all).
 */
function contentSecurityPolicy(nonce?: string): string {
  const inline = nonce === undefined ? "'none'" : `'nonce-${nonce}'`;
  return `default-src 'none'; script-src ${inline}; style-src ${inline}; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': contentSecurityPolicy(),
};

function sendPage(res: ServerResponse): void {
  const nonce = randomBytes(18).toString('base64');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-security-policy': contentSecurityPolicy(nonce),
    'content-type': 'text/html; charset=utf-8',
  });
  res.end(consolePage(nonce));
}

function send(res: ServerResponse, reply: Reply): void {
  if ('json' in reply) {
    res.writeHead(reply.status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(reply.json));
    return;
  }
  res.writeHead(reply.status, {
    ...SECURITY_HEADERS,
    'content-type': reply.type,
    ...(reply.download ? { 'content-disposition': `attachment; filename="${reply.download}"` } : {}),
  });
  res.end(reply.body);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ConsoleRequestError(400, `body: expected at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new ConsoleRequestError(400, 'body: expected JSON', { cause: error });
  }
}

function errorReply(error: unknown): Reply | undefined {
  if (error instanceof ConsoleRequestError) return { status: error.status, json: { error: error.message } };
  if (error instanceof z.ZodError) return { status: 400, json: { error: formatConsoleError(error) } };
  if (error instanceof IsdocViewError) return { status: 422, json: { error: error.message } };
  return undefined;
}

/** The live stream's clients and the changes waiting for the next flush. */
function createStream(src: ConsoleSources, flushMs: number) {
  const clients = new Set<ServerResponse>();
  const events = new Set<string>();
  let connections = false;
  let overflow = false;
  let timer: NodeJS.Timeout | undefined;
  // One message per flush: which events changed (ids only: the page asks for what it shows).
  const flush = () => {
    timer = undefined;
    const frame = `event: changed\ndata: ${JSON.stringify({ ids: overflow ? [] : [...events], connections, overflow })}\n\n`;
    events.clear();
    connections = false;
    overflow = false;
    for (const res of clients) res.write(frame);
  };
  const unwatch = src.feed.watch((change: FeedChange) => {
    if (clients.size === 0) return;
    if (change.kind === 'connection') connections = true;
    else if (!overflow) events.add(change.item.event.id);
    if (events.size > MAX_PENDING) {
      events.clear();
      overflow = true;
    }
    timer ??= setTimeout(flush, flushMs);
  });
  return {
    open(res: ServerResponse) {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/event-stream',
        connection: 'keep-alive',
      });
      res.write('event: hello\ndata: {}\n\n');
      clients.add(res);
      res.on('close', () => clients.delete(res));
    },
    close() {
      unwatch();
      if (timer) clearTimeout(timer);
      for (const res of clients) res.end();
      clients.clear();
    },
  };
}

export async function startConsoleServer(
  src: ConsoleSources,
  options: ConsoleServerOptions,
): Promise<ConsoleServer> {
  const token = options.token ?? newConsoleToken();
  const stream = createStream(src, options.flushMs ?? 1_000);
  let port = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const verdict = checkConsoleRequest(req, url, token, port);
    if (!verdict.ok) {
      options.logger.warn('console request refused', {
        status: verdict.status,
        reason: verdict.reason,
        path: url.pathname,
      });
      req.resume();
      send(res, { status: verdict.status, json: { error: verdict.reason } });
      return;
    }
    try {
      if (req.method === 'POST') return send(res, await answerPost(src, url.pathname, await readJson(req)));
      if (url.pathname === '/') return sendPage(res);
      if (url.pathname === '/api/stream') return stream.open(res);
      return send(res, await answerGet(src, url.pathname, url));
    } catch (error) {
      const reply = errorReply(error);
      if (reply) return send(res, reply);
      options.logger.error('console request failed', { path: url.pathname, error });
      return send(res, { status: 500, json: { error: 'internal error (see the log)' } });
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    async close() {
      stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
