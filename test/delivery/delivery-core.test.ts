/** The delivery core: signing, target checks, the retry decision and one queue message's delivery. */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { DeadLetterAttributes } from '#functions/core/actions/dead-letter-sink.js';
import {
  type DeliveryPorts,
  DeliveryRetryError,
  deliverMessage,
} from '#functions/core/delivery/deliver-message.js';
import { decideDelivery, type PostResult } from '#functions/core/delivery/delivery-decision.js';
import { loadDeliveryFunctionConfig } from '#functions/core/delivery/delivery-function-config.js';
import {
  SigningSecretError,
  signedHeaders,
  signingSecretOf,
} from '#functions/core/delivery/delivery-signature.js';
import {
  DEPLOYED_TARGET_CHECKS,
  DeliveryTargetError,
  deployedTargetChecks,
  isLoopbackHost,
  parseTargetSpecs,
  refusedHostReason,
} from '#functions/core/delivery/delivery-targets.js';
import { ConfigError } from '#functions/shared/config.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('signing', () => {
  it('a verifier accepts the headers with the same secret and refuses them with another', () => {
    const [a, b] = [secret(), secret()];
    const body = JSON.stringify({ id: 'e-1', 'detail-type': 'IssuedInvoice.Created' });
    const headers = signedHeaders('e-1', body, a, new Date());
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => new Webhook(a).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(b).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });

  it('a generated key (letters and digits) reads as its whsec_ form; anything else is refused without its value', () => {
    const generated = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl';
    expect(signingSecretOf(generated)).toBe(`whsec_${generated}`);
    expect(signingSecretOf(`  whsec_${generated}\n`)).toBe(`whsec_${generated}`);
    for (const bad of ['', 'not base64!', 'whsec_abc', 'c2hvcnQ=']) {
      expect(() => signingSecretOf(bad, 'secret X')).toThrow(SigningSecretError);
    }
    try {
      signingSecretOf('not base64 at all but secret-ish', 'secret X');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-ish');
      expect((error as Error).message).toMatch(/^secret X: expected whsec_<base64 key>/);
    }
  });
});

describe('targets', () => {
  it('refuses link-local and metadata hosts everywhere, and plain http but to the loopback', () => {
    for (const host of [
      '169.254.169.254',
      '[fe80::1]',
      '[fd00:ec2::254]',
      'metadata.google.internal',
      '[::ffff:169.254.169.254]',
      '100.100.100.200',
      '0.0.0.0',
    ]) {
      expect(refusedHostReason(host), host).toBeDefined();
      expect(() => parseTargetSpecs([`http://${host}/x`]), host).toThrow(DeliveryTargetError);
    }
    for (const host of ['hooks.example.com', '10.0.0.5', '127.0.0.1', '[::1]']) {
      expect(refusedHostReason(host), host).toBeUndefined();
    }
    expect(isLoopbackHost('127.8.0.1')).toBe(true);
    expect(isLoopbackHost('n8n.localhost')).toBe(true);
    expect(isLoopbackHost('10.0.0.5')).toBe(false);
    // https but to the loopback, locally and in a deployment: the body crosses the network.
    expect(() => parseTargetSpecs(['http://10.0.0.5:5678/hook'])).toThrow(/https/);
    expect(() => parseTargetSpecs(['http://10.0.0.5:5678/hook'], deployedTargetChecks(true))).toThrow(
      /https/,
    );
    // A deployment's targets are public hosts, unless private ones are allowed.
    expect(() => parseTargetSpecs(['https://10.0.0.5:5678/hook'], DEPLOYED_TARGET_CHECKS)).toThrow(/private/);
    expect(() => parseTargetSpecs(['http://localhost:8080/x'], DEPLOYED_TARGET_CHECKS)).toThrow(/loopback/);
    expect(parseTargetSpecs(['http://localhost:8080/x'], deployedTargetChecks(true))).toHaveLength(1);
  });

  it('the object form names connections and the target; names are unique', () => {
    const [t] = parseTargetSpecs([
      {
        url: 'https://x.example.com',
        pattern: 'IssuedInvoice.*',
        connections: ['acme', 'acme'],
        name: 'acme-hooks',
      },
    ]);
    expect(t).toEqual({
      id: 'acme-hooks',
      url: 'https://x.example.com',
      label: 'https://x.example.com',
      patternText: 'IssuedInvoice.*',
      detailTypes: [{ prefix: 'IssuedInvoice.' }],
      connections: ['acme'],
    });
    expect(() =>
      parseTargetSpecs([
        { url: 'https://a.example.com', name: 'same' },
        { url: 'https://b.example.com', name: 'same' },
      ]),
    ).toThrow(/target name same given twice/);
    expect(() => parseTargetSpecs([{ url: 'https://a.example.com', connections: [] }])).toThrow(
      /target 1: connections: expected at least one connection/,
    );
  });
});

describe('the retry decision', () => {
  const policy = { maxAttempts: 5, baseDelayMs: 60_000, maxDelayMs: 3_600_000 };
  it('2xx delivered; 5xx, 429 and network errors retried with a doubling backoff; others and the last attempt dead-lettered', () => {
    expect(decideDelivery({ ok: true, status: 204 }, 1, policy)).toEqual({ kind: 'delivered', status: 204 });
    const delays = [1, 2, 3, 4].map((attempt) =>
      decideDelivery({ ok: false, status: 503, error: 'HTTP 503' }, attempt, policy),
    );
    expect(delays.map((d) => (d.kind === 'retry' ? d.delaySeconds : undefined))).toEqual([60, 120, 240, 480]);
    expect(decideDelivery({ ok: false, error: 'ECONNREFUSED' }, 1, policy).kind).toBe('retry');
    expect(decideDelivery({ ok: false, status: 429, error: 'HTTP 429' }, 1, policy).kind).toBe('retry');
    expect(decideDelivery({ ok: false, status: 503, error: 'HTTP 503' }, 5, policy)).toMatchObject({
      kind: 'dead-letter',
      reason: 'HTTP 503 after 5 attempts',
    });
    expect(decideDelivery({ ok: false, status: 401, error: 'HTTP 401' }, 1, policy)).toMatchObject({
      kind: 'dead-letter',
      status: 401,
    });
  });
});

const QUEUE = 'arn:aws:sqs:eu-central-1:111111111111:q1';
const TARGETS = JSON.stringify([
  {
    id: 'delivery-1',
    url: 'https://hooks.example.com/x',
    queueArn: QUEUE,
    queueUrl: 'https://sqs.eu-central-1.amazonaws.com/111111111111/q1',
    deadLetterQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111111111111/d1',
    secretArn: 'arn:aws:secretsmanager:eu-central-1:111111111111:secret:s1-AbCdEf',
  },
]);

describe('the delivery function config', () => {
  it('reads the targets by queue ARN and the attempts; names each bad variable', () => {
    const config = loadDeliveryFunctionConfig({ DELIVERY_TARGETS: TARGETS, DELIVERY_MAX_ATTEMPTS: '3' });
    expect(config.targets.get(QUEUE)?.id).toBe('delivery-1');
    expect(config.policy.maxAttempts).toBe(3);
    try {
      loadDeliveryFunctionConfig({
        DELIVERY_TARGETS: JSON.stringify([{ ...JSON.parse(TARGETS)[0], secretArn: 'nope' }]),
        DELIVERY_MAX_ATTEMPTS: '0',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'DELIVERY_TARGETS.0.secretArn: expected an ARN of secretsmanager',
        'DELIVERY_MAX_ATTEMPTS: expected a whole number of attempts from 1 to 186',
      ]);
    }
  });
});

describe('one queue message', () => {
  const config = loadDeliveryFunctionConfig({ DELIVERY_TARGETS: TARGETS, DELIVERY_MAX_ATTEMPTS: '3' });
  const key = secret();
  const event = {
    id: 'evt-1',
    'detail-type': 'IssuedInvoice.Created',
    source: 'accounting.acme',
    detail: {},
  };
  const setup = (results: PostResult[]) => {
    const posts: { url: string; id: string; body: string; secret: string }[] = [];
    const deadLettered: { body: string; attributes: DeadLetterAttributes }[] = [];
    const delays: number[] = [];
    const ports: DeliveryPorts = {
      config,
      secretOf: async () => key,
      post: async (request) => {
        posts.push(request);
        return results.shift() ?? { ok: true, status: 200 };
      },
      deadLetters: () => ({ send: async (body, attributes) => void deadLettered.push({ body, attributes }) }),
      retryAfter: async (_t, _r, seconds) => void delays.push(seconds),
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    };
    return { ports, posts, deadLettered, delays };
  };
  const message = (receiveCount: number, body = JSON.stringify(event)) => ({
    messageId: 'm-1',
    receiptHandle: 'r-1',
    body,
    queueArn: QUEUE,
    receiveCount,
  });

  it('posts the body unchanged, signed with the id of the event', async () => {
    const s = setup([]);
    await deliverMessage(s.ports, message(1));
    expect(s.posts).toEqual([
      {
        url: 'https://hooks.example.com/x',
        id: 'evt-1',
        body: JSON.stringify(event),
        secret: key,
        timeoutMs: 10_000,
      },
    ]);
  });

  it('a 503 is kept on the queue with the backoff as its visibility; the last attempt is dead-lettered', async () => {
    const s = setup([
      { ok: false, status: 503, error: 'HTTP 503' },
      { ok: false, status: 503, error: 'HTTP 503' },
    ]);
    await expect(deliverMessage(s.ports, message(1))).rejects.toThrow(DeliveryRetryError);
    expect(s.delays).toEqual([60]);
    await deliverMessage(s.ports, message(3));
    expect(s.deadLettered).toEqual([
      {
        body: JSON.stringify(event),
        attributes: { action: 'delivery-1', reason: 'HTTP 503 after 3 attempts', messageId: 'm-1' },
      },
    ]);
  });

  it('a 400 is dead-lettered at once; a body that is no event too, without a POST', async () => {
    const s = setup([{ ok: false, status: 400, error: 'HTTP 400' }]);
    await deliverMessage(s.ports, message(1));
    await deliverMessage(s.ports, message(1, '{"detail-type":"X"}'));
    expect(s.posts).toHaveLength(1);
    expect(s.deadLettered.map((d) => d.attributes.reason)).toEqual([
      'HTTP 400: not retried',
      'id: expected the event id (string)',
    ]);
  });

  it('an unreadable secret or a failed dead-letter send keeps the message on the queue', async () => {
    const s = setup([{ ok: false, status: 400, error: 'HTTP 400' }]);
    await expect(
      deliverMessage(
        { ...s.ports, secretOf: async () => Promise.reject(new SigningSecretError('bad')) },
        message(1),
      ),
    ).rejects.toThrow(DeliveryRetryError);
    await expect(
      deliverMessage(
        { ...s.ports, deadLetters: () => ({ send: async () => Promise.reject(new Error('denied')) }) },
        message(1),
      ),
    ).rejects.toThrow(/dead-letter send failed/);
    expect(s.posts).toHaveLength(1);
  });
});
