/**
 * Finding 9: capability URLs were printed (the start line, failures, `dead-letters.jsonl`), and
 * plain `http://` to any host, `169.254.169.254` included, was accepted. Now a target prints as
 * scheme and host only, needs https off loopback, and never names a link-local or metadata address
 * — locally (`--deliver-to`) and in the `deliveries` infra setting alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeliveryTargetError,
  parseTargetSpecs,
  redactUrl,
} from '#functions/core/delivery/delivery-targets.js';
import { createHttpDelivery, type DeliveryOutcome } from '#functions/local/http-delivery.js';
import { buildTestApp } from '../infra/support.js';
import { recordEventFixture } from '../support/event-fixtures.js';

const CAPABILITY = 'cap-7f3e9b21c0d4';
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.statusCode = 400; // not retried: dead-lettered on the first attempt
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refused = [
  'http://hooks.example.com/n8n',
  'http://169.254.169.254/latest/meta-data/',
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.170.2/v2/credentials',
  'https://[fd00:ec2::254]/latest',
  'https://[fe80::1]/x',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://0.0.0.0/x',
  'http://10.0.0.5/x',
];

describe('finding 9: delivery targets', () => {
  it('refuses plain http off loopback and link-local or metadata addresses, printing no path', () => {
    for (const url of refused) {
      const error = (() => {
        try {
          parseTargetSpecs([`${url}?token=${CAPABILITY}`]);
        } catch (e) {
          return e as Error;
        }
      })();
      expect(error, url).toBeInstanceOf(DeliveryTargetError);
      expect(error?.message, url).not.toContain(CAPABILITY);
    }
    expect(parseTargetSpecs(['https://hooks.example.com/x', `${base}/y`])).toHaveLength(2);
  });

  it('the deliveries infra setting refuses the same', () => {
    for (const url of ['https://169.254.169.254/latest', 'http://hooks.example.com/n8n']) {
      expect(() => buildTestApp({ deliveries: url }), url).toThrow();
    }
  });

  it('prints a capability URL as scheme and host only: outcomes and dead-letter errors', async () => {
    const url = `${base}/webhook/${CAPABILITY}?key=${CAPABILITY}`;
    expect(redactUrl(url)).toBe(`${base}/…`);
    const [target] = parseTargetSpecs([url]);
    expect(target?.label).toBe(`${base}/…`);
    const outcomes: DeliveryOutcome[] = [];
    const delivery = createHttpDelivery({
      targets: [target!],
      secretFor: () => `whsec_${Buffer.from('a test secret of 32 bytes length').toString('base64')}`,
      policy: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 2000 },
      onOutcome: (o) => outcomes.push(o),
    });
    const error = await delivery.subscribers[0]!.deliver([recordEventFixture() as never]).catch(
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(outcomes.map((o) => o.result)).toEqual(['dead-lettered']);
    expect(JSON.stringify({ outcomes, message: (error as Error).message })).not.toContain(CAPABILITY);
  });
});
