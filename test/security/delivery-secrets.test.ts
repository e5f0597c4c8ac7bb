/**
 * Issue 33: every local `--deliver-to` target was signed with one secret, so any consumer could forge
 * deliveries to the others. Now each target has its own (as each AWS target has); a secret set in
 * the environment may sign one target only.
 */

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTargetSpecs } from '#functions/core/delivery/delivery-targets.js';
import { httpDeliverySubscribers } from '#functions/local/delivery-subscriber.js';
import { SharedSigningSecretError } from '#functions/local/http-delivery.js';
import { recordEventFixture } from '../support/event-fixtures.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

function consumer(): { server: Server; received: Received[] } {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return { server, received };
}

const consumers = [consumer(), consumer()];
const urls: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'security-delivery-secrets-'));
  for (const c of consumers) {
    await new Promise<void>((resolve) => c.server.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(c.server.address() as AddressInfo).port}/hook`);
  }
});
afterAll(async () => {
  for (const c of consumers) await new Promise<void>((resolve) => c.server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const verifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

describe('local delivery targets: one signing secret each', () => {
  it("a consumer's secret verifies its own deliveries and not another's", async () => {
    const warnings: string[] = [];
    const targets = parseTargetSpecs(urls);
    const delivery = await httpDeliverySubscribers({
      targets,
      env: {},
      dataDir: dir,
      emit: (u) => {
        if (u.kind === 'warning') warnings.push(u.message);
      },
    });
    for (const s of delivery.subscribers) await s.deliver([recordEventFixture() as never]);
    const files = warnings.map((w) => /in (\S+)$/.exec(w)?.[1] as string);
    expect(new Set(files).size).toBe(2);
    const secrets = await Promise.all(files.map(async (f) => (await readFile(f, 'utf8')).trim()));
    expect(secrets[0]).not.toBe(secrets[1]);
    for (const f of files) expect((await stat(f)).mode & 0o077).toBe(0);
    const [a, b] = consumers.map((c) => c.received[0] as Received);
    expect([
      verifies(secrets[0] as string, a as Received),
      verifies(secrets[1] as string, b as Received),
    ]).toEqual([true, true]);
    // The forgery the shared secret allowed: the other consumer's secret does not verify.
    expect([
      verifies(secrets[1] as string, a as Received),
      verifies(secrets[0] as string, b as Received),
    ]).toEqual([false, false]);
    expect(warnings.join('\n')).not.toContain(secrets[0] as string);
  });

  it('a restart signs each target with the same secret as before', async () => {
    const read = async () => {
      const warnings: string[] = [];
      await httpDeliverySubscribers({
        targets: parseTargetSpecs([...urls].reverse()),
        env: {},
        dataDir: dir,
        emit: (u) => {
          if (u.kind === 'warning') warnings.push(u.message);
        },
      });
      return warnings.map((w) => /in (\S+)$/.exec(w)?.[1] as string).sort();
    };
    expect(await read()).toEqual(await read());
  });

  it('refuses DELIVERY_SIGNING_SECRET for more than one target', async () => {
    const secret = `whsec_${Buffer.from('a test secret of 32 bytes length').toString('base64')}`;
    await expect(
      httpDeliverySubscribers({
        targets: parseTargetSpecs(urls),
        env: { DELIVERY_SIGNING_SECRET: secret },
        dataDir: dir,
        emit: () => {},
      }),
    ).rejects.toBeInstanceOf(SharedSigningSecretError);
  });
});
