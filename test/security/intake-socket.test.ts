/**
 * Finding 11: the local intake waited forever on a slow body declaring `Content-Length: 1e9`. A body
 * declared or grown over the limit is now answered 413 at once and its socket closed; the use case
 * is never called.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IntakeHttpServer,
  startIntakeHttpServer,
} from '#functions/adapters/local/intake-http-server.js';
import { recordingLogger } from '../actions/support.js';

const LIMIT = 4096;
let server: IntakeHttpServer;
let handled = 0;

beforeAll(async () => {
  server = await startIntakeHttpServer({
    port: 0,
    maxBodyBytes: LIMIT,
    logger: recordingLogger(),
    handle: async () => {
      handled++;
      return { status: 202, body: {} };
    },
  });
});
afterAll(() => server.close());

/** Sends `head` and then `chunk` every few ms until the socket closes; resolves with what came back. */
function slowClient(head: string, chunk: string): Promise<{ response: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let response = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(chunk);
      }, 5);
    });
    socket.on('data', (d) => {
      response += d.toString('latin1');
    });
    socket.on('error', () => {}); // a reset after the 413 is the server closing it
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ response, closed: true });
    });
    socket.setTimeout(20_000, () => reject(new Error('the server kept the socket open')));
  });
}

describe('finding 11: a body over the limit gets 413 and a closed socket', () => {
  it('declared over the limit (Content-Length: 1e9), sent slowly', async () => {
    const result = await slowClient(
      'POST /intake/shopify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"a":',
      'x',
    );
    expect(result.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.closed).toBe(true);
  });

  it('grown over the limit (chunked, no length)', async () => {
    const chunk = `400\r\n${'y'.repeat(0x400)}\r\n`;
    const result = await slowClient(
      'POST /intake/shopify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunk,
    );
    expect(result.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.closed).toBe(true);
    expect(handled).toBe(0);
  });
});

describe('issue 33: a slow request under the limit holds no socket for long, and sockets are counted', () => {
  let limited: IntakeHttpServer;
  let crowded: IntakeHttpServer;
  let calls = 0;
  const handle = async () => {
    calls++;
    return { status: 202, body: {} };
  };
  beforeAll(async () => {
    limited = await startIntakeHttpServer({
      port: 0,
      maxBodyBytes: LIMIT,
      logger: recordingLogger(),
      handle,
      limits: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 },
    });
    crowded = await startIntakeHttpServer({
      port: 0,
      maxBodyBytes: LIMIT,
      logger: recordingLogger(),
      handle,
      limits: { headersTimeoutMs: 120_000, requestTimeoutMs: 120_000, maxConnections: 3 },
    });
  });
  afterAll(async () => {
    await limited.close();
    await crowded.close();
  });

  /** Writes `head`, then one byte of `drip` every 200 ms; resolves when the server closes the socket. */
  function drip(port: number, head: string, drip: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let response = '';
      let i = 0;
      const timer = setInterval(() => {
        if (socket.writable) socket.write(drip[i++ % drip.length] as string);
      }, 200);
      socket.on('connect', () => socket.write(head));
      socket.on('data', (d) => {
        response += d.toString('latin1');
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve(response);
      });
      // Far beyond the 2 s allowed, far below Node's default of 300 s.
      socket.setTimeout(40_000, () => {
        clearInterval(timer);
        socket.destroy();
        reject(new Error('the server kept a slow request open'));
      });
    });
  }

  it('a body under the limit sent a byte at a time is cut (408), the use case never called', async () => {
    const response = await drip(
      limited.port,
      'POST /intake/shopify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      'x',
    );
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(calls).toBe(0);
  }, 60_000);

  it('headers sent a byte at a time are cut', async () => {
    await drip(limited.port, 'POST /intake/shopify HTTP/1.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaa');
    expect(calls).toBe(0);
  }, 60_000);

  it('at most maxConnections sockets are open: the others are closed as they come', async () => {
    const sockets = Array.from({ length: 5 }, () => connect(crowded.port, '127.0.0.1'));
    const closed = new Set<number>();
    sockets.forEach((s, i) => {
      s.on('error', () => {});
      s.on('close', () => closed.add(i));
    });
    const until = Date.now() + 30_000;
    while (closed.size < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(closed.size).toBe(2);
    // The three admitted are still open (their headers may take 120 s).
    await new Promise((r) => setTimeout(r, 500));
    expect(closed.size).toBe(2);
    for (const s of sockets) s.destroy();
  }, 60_000);
});
