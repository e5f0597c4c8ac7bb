/**
 * A small scripted HTTP server standing in for the accounting service in client tests
 * (node:http on 127.0.0.1, port 0). Each test adds routes with the replies it wants, in order;
 * the last reply of a route repeats. Every request is recorded.
 */

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** 1 for the first request on its connection, 2 for the next… */
  requestOnSocket: number;
  socketId: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string | number>;
  /** Objects are sent as JSON. */
  body?: string | Buffer | object;
  /** Write these chunks one by one; `between` is awaited before each chunk after the first. */
  chunks?: Buffer[];
  between?: (index: number) => Promise<void>;
  /** Drop the connection: before any response byte, or after the headers and a first chunk. */
  drop?: 'before-response' | 'mid-body';
  /** Never answer (until the client gives up or the server closes). */
  hang?: boolean;
}

export type Responder = (req: RecordedRequest) => Reply | Promise<Reply>;

interface Route {
  method: string;
  path: string | RegExp;
  replies: (Reply | Responder)[];
  hits: number;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Adds a route; replies are used in order, the last one repeats. */
  route(method: string, path: string | RegExp, ...replies: (Reply | Responder)[]): void;
  /** Requests matching the method and path. */
  hits(method: string, path: string | RegExp): RecordedRequest[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

const matches = (route: Route, method: string, path: string) =>
  route.method === method &&
  (typeof route.path === 'string' ? route.path.toLowerCase() === path.toLowerCase() : route.path.test(path));

export async function startFakeServer(): Promise<FakeServer> {
  const routes: Route[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const socketIds = new WeakMap<Socket, { id: number; count: number }>();
  let nextSocket = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const info = socketIds.get(req.socket) ?? { id: -1, count: 0 };
    info.count++;
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      requestOnSocket: info.count,
      socketId: info.id,
    };
    requests.push(recorded);
    const route = routes.find((r) => matches(r, recorded.method, recorded.path));
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Not Found', status: 404, traceId: 'no-route' }));
      return;
    }
    const step = route.replies[Math.min(route.hits, route.replies.length - 1)];
    route.hits++;
    const reply = typeof step === 'function' ? await step(recorded) : (step ?? {});
    if (reply.hang) return;
    if (reply.drop === 'before-response') {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string | number> = { ...reply.headers };
    let body: Buffer | undefined;
    if (reply.body !== undefined) {
      if (Buffer.isBuffer(reply.body)) body = reply.body;
      else if (typeof reply.body === 'string') body = Buffer.from(reply.body);
      else {
        body = Buffer.from(JSON.stringify(reply.body));
        headers['content-type'] ??= 'application/json; charset=utf-8';
      }
      headers['content-length'] ??= body.length;
    }
    res.writeHead(reply.status ?? 200, headers);
    if (reply.drop === 'mid-body') {
      res.write(body?.subarray(0, Math.max(1, Math.floor(body.length / 2))) ?? Buffer.from('x'));
      setImmediate(() => req.socket.destroy());
      return;
    }
    if (reply.chunks) {
      for (const [i, chunk] of reply.chunks.entries()) {
        if (i > 0 && reply.between) await reply.between(i);
        res.write(chunk);
      }
      res.end();
      return;
    }
    res.end(body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socketIds.set(socket, { id: ++nextSocket, count: 0 });
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(method, path, ...replies) {
      routes.unshift({ method, path, replies, hits: 0 });
    },
    hits: (method, path) =>
      requests.filter((r) => matches({ method, path, replies: [], hits: 0 }, r.method, r.path)),
    connections: () => nextSocket,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A problem-details reply. */
export function problem(
  status: number,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Reply {
  return {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
    body: {
      type: `https://httpstatuses.io/${status}`,
      title: `Status ${status}`,
      status,
      traceId: `00-trace-${status}-00`,
      ...extra,
    },
  };
}

/** A list envelope reply. */
export function listReply(
  items: object[],
  extra: { total?: number; pageSize?: number | null; pageNumber?: number } = {},
): Reply {
  return {
    body: {
      Items: items,
      TotalItemCount: extra.total ?? items.length,
      Pagination:
        extra.pageSize === null
          ? null
          : { PageNumber: extra.pageNumber ?? 1, PageSize: extra.pageSize ?? 100, After: null },
    },
  };
}

/** A document record with the fields the client relies on. */
export function doc(id: string, modified = '2026-01-01T00:00:00Z', more: object = {}): object {
  return {
    Id: id,
    DocumentNumber: `DOC-${id}`,
    ModificationInfo: { CreatedDate: '2025-12-01T00:00:00Z', ModifiedDate: modified },
    ...more,
  };
}

/**
 * A fresh fake server for every test of the enclosing `describe`: started before each test and
 * closed after it. The returned object forwards to the server of the running test.
 */
export function useFakeServer(): FakeServer {
  let current: FakeServer | undefined;
  beforeEach(async () => {
    current = await startFakeServer();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const now = (): FakeServer => {
    if (!current) throw new Error('the fake server runs only inside a test');
    return current;
  };
  return {
    get url() {
      return now().url;
    },
    get requests() {
      return now().requests;
    },
    route: (method, path, ...replies) => now().route(method, path, ...replies),
    hits: (method, path) => now().hits(method, path),
    connections: () => now().connections(),
    close: () => now().close(),
  };
}
