/** The start-up probe of a service off the sandbox: one TCP connection, a plain error when refused. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probeService, ServiceUnreachableError } from '#functions/local/service-probe.js';

async function listening() {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/v1` };
}

describe('probeService', () => {
  it('resolves when the host and port take a connection', async () => {
    const { server, url } = await listening();
    try {
      await expect(probeService(url, '--base-url')).resolves.toBeUndefined();
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('names the origin, the code and the setting to check when the port refuses', async () => {
    const { server, url } = await listening();
    await new Promise((done) => server.close(done));
    const error = await probeService(url, 'ACCOUNTING_BASE_URL').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    const origin = new URL(url).origin;
    expect((error as Error).message).toBe(
      `cannot reach the service at ${origin} (ECONNREFUSED): check ACCOUNTING_BASE_URL and that the service is up`,
    );
    expect((error as ServiceUnreachableError).cause).toBeInstanceOf(Error);
  });
});
