/**
 * Issue 33: a deployment's delivery targets could be loopback (`127.0.0.1`, `127.1`, `[::1]`,
 * `[::ffff:127.0.0.1]` — on Lambda 127.0.0.1:9001 is the Runtime API), and the host checks were
 * syntactic only: IPv4-embedded IPv6 forms and names resolving to private or link-local addresses
 * passed. Now the configuration refuses every non-public host, and the delivery function checks the
 * address a name resolves to when it connects.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicAddressAgent } from '#functions/adapters/http/public-address-agent.js';
import { postSigned } from '#functions/adapters/http/webhook-sender.js';
import {
  DEPLOYED_TARGET_CHECKS,
  DeliveryTargetError,
  parseTargetSpecs,
} from '#functions/core/delivery/delivery-targets.js';
import { nonPublicAddressReason } from '#functions/core/delivery/public-address.js';
import { testInfraConfig } from '../infra/support.js';

const SECRET = `whsec_${Buffer.from('a test secret of 32 bytes length').toString('base64')}`;

const NON_PUBLIC = [
  'https://127.0.0.1/x',
  'https://127.1/x',
  'https://2130706433/x',
  'https://0x7f.0.0.1/x',
  'https://localhost/x',
  'https://hooks.localhost/x',
  'https://[::1]/x',
  'https://[::ffff:127.0.0.1]/x',
  'https://[::ffff:7f00:1]/x',
  'https://[::127.0.0.1]/x',
  'https://[64:ff9b::169.254.169.254]/x',
  'https://[2002:a9fe:a9fe::1]/x',
  'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x',
  'https://10.0.0.8/x',
  'https://172.20.1.1/x',
  'https://192.168.1.10/x',
  'https://100.100.100.200/x',
  'https://[fd12:3456::1]/x',
  'https://[fe80::1]/x',
  'https://[::ffff:10.0.0.1]/x',
  'https://169.254.169.254/latest',
  'https://0.0.0.0/x',
];

describe('deployed delivery targets: public hosts only', () => {
  it.each(NON_PUBLIC)('refuses %s in the configuration', (url) => {
    expect(() => parseTargetSpecs([url], DEPLOYED_TARGET_CHECKS)).toThrow(DeliveryTargetError);
    expect(() => testInfraConfig({ deliveries: url })).toThrow(/cannot be a delivery target/);
  });

  it('keeps public hosts', () => {
    for (const url of ['https://hooks.example.com/n8n', 'https://8.8.8.8/x', 'https://[2606:4700::1111]/x']) {
      expect(parseTargetSpecs([url], DEPLOYED_TARGET_CHECKS)).toHaveLength(1);
    }
    for (const address of ['1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '::ffff:8.8.8.8']) {
      expect(nonPublicAddressReason(address), address).toBeUndefined();
    }
  });
});

describe('deployed delivery targets: the resolved address is checked at connect time', () => {
  let server: Server;
  let port: number;
  let received = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      received++;
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (url: string, dispatcher: ReturnType<typeof publicAddressAgent>) =>
    postSigned({ url, id: 'evt-1', body: '{}', secret: SECRET, timeoutMs: 10_000, dispatcher });

  it.each([
    ['127.0.0.1', 4],
    ['::ffff:127.0.0.1', 6],
    ['10.1.2.3', 4],
    ['169.254.169.254', 4],
    ['fd00:ec2::254', 6],
  ] as const)(
    'a public-looking name resolving to %s is refused before any request',
    async (address, family) => {
      // The name passes the configuration's checks; only its resolution says where it goes.
      expect(parseTargetSpecs([`https://hooks.example.test:${port}/x`], DEPLOYED_TARGET_CHECKS)).toHaveLength(
        1,
      );
      const agent = publicAddressAgent({ resolve: async () => [{ address, family }] });
      const result = await post(`http://hooks.example.test:${port}/x`, agent);
      await agent.close();
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.error).toMatch(/not a delivery target/);
      expect(received).toBe(0);
    },
  );

  it('a name with one private address among public ones is refused', async () => {
    const agent = publicAddressAgent({
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    const result = await post(`http://hooks.example.test:${port}/x`, agent);
    await agent.close();
    expect(result.ok ? '' : result.error).toMatch(/127\.0\.0\.1.*not a delivery target/);
    expect(received).toBe(0);
  });

  it('with deliveryPrivateTargets a loopback consumer is reached; metadata addresses still are not', async () => {
    const loopback = publicAddressAgent({
      privateTargets: true,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect((await post(`http://consumer.example.test:${port}/x`, loopback)).ok).toBe(true);
    await loopback.close();
    expect(received).toBe(1);
    const metadata = publicAddressAgent({
      privateTargets: true,
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
    });
    const refused = await post(`http://consumer.example.test:${port}/x`, metadata);
    expect(refused.ok ? '' : refused.error).toMatch(/not a delivery target/);
    await metadata.close();
    expect(received).toBe(1);
  });
});
