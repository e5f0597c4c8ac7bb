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
} from '../../functions/adapters/local/intake-http-server.js';
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
