/**
 * An HTTP proxy in front of the sandbox that counts requests, so every poller (ours, the naive
 * baseline, a child process) is measured the same way without touching its code.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

export interface RequestCounts {
  total: number;
  /** `GET /v1/<Collection>` list requests, by collection. */
  listsByCollection: Record<string, number>;
}

export interface CountingProxy {
  url: string;
  counts(): RequestCounts;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(targetBaseUrl: string): Promise<CountingProxy> {
  const target = new URL(targetBaseUrl);
  const agent = new Agent({ connections: 32, keepAliveTimeout: 10_000 });
  let counts: RequestCounts = { total: 0, listsByCollection: {} };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    counts.total += 1;
    const url = new URL(req.url ?? '/', 'http://proxy');
    const list = /^\/v1\/([A-Za-z]+)\/?$/.exec(url.pathname);
    if (req.method === 'GET' && list) {
      const name = list[1]!;
      counts.listsByCollection[name] = (counts.listsByCollection[name] ?? 0) + 1;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (
          typeof v === 'string' &&
          !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)
        ) {
          headers[k] = v;
        }
      }
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      request(new URL(`${target.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, target.origin), {
        method: (req.method ?? 'GET') as 'GET',
        headers,
        ...(body ? { body } : {}),
        dispatcher: agent,
      }).then(
        async (upstream) => {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(upstream.headers)) {
            if (v !== undefined && !['connection', 'transfer-encoding', 'keep-alive'].includes(k)) out[k] = v;
          }
          res.writeHead(upstream.statusCode, out);
          for await (const chunk of upstream.body) res.write(chunk);
          res.end();
        },
        (error: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(error));
        },
      );
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    counts: () => structuredClone(counts),
    reset() {
      counts = { total: 0, listsByCollection: {} };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
