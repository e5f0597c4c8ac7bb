/** The two Lambda entry points on real event shapes: API Gateway HTTP API (2.0) and an SQS FIFO batch. */
import type { APIGatewayProxyEventV2, Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import type { EnqueueOptions, IntakeQueue } from '#functions/core/intake/ports.js';
import type { QueuedIntakeMessage } from '#functions/core/intake/shop-order.js';
import { hmacBase64, signHeaders } from '#functions/core/intake/signatures.js';
import { createHandler as createImportHandler } from '#functions/handlers/import-orders.js';
import { createHandler as createWebhookHandler } from '#functions/handlers/intake-webhook.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { systemClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { importsOfOne, intakeOfOne } from './one-connection.js';
import { SECRETS } from './support.js';

function recordingQueue(): IntakeQueue & {
  sent: { message: QueuedIntakeMessage; options: EnqueueOptions }[];
} {
  const sent: { message: QueuedIntakeMessage; options: EnqueueOptions }[] = [];
  return {
    sent,
    async send(message, options) {
      sent.push({ message, options });
    },
  };
}

function httpEvent(options: {
  method?: string;
  source: string;
  headers: Record<string, string>;
  body: string;
  base64?: boolean;
}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'ANY /intake/{source}',
    rawPath: `/intake/${options.source}`,
    rawQueryString: '',
    headers: options.headers,
    pathParameters: { source: options.source },
    requestContext: {
      accountId: '111111111111',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: options.method ?? 'POST',
        path: `/intake/${options.source}`,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.9',
        userAgent: 'Shopify-Captain-Hook',
      },
      requestId: 'req-1',
      routeKey: 'ANY /intake/{source}',
      stage: '$default',
      time: '23/Nov/2026:10:00:00 +0000',
      timeEpoch: 1795428000000,
    },
    body: options.base64 ? Buffer.from(options.body).toString('base64') : options.body,
    isBase64Encoded: options.base64 ?? false,
  };
}

describe('intake-webhook handler (API Gateway HTTP API 2.0)', () => {
  const setup = (env: Record<string, string> = SECRETS) => {
    const queue = recordingQueue();
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const config = loadIntakeConfig(env);
    const handler = createWebhookHandler({
      config,
      connections: intakeOfOne(config.connection),
      queue,
      publisher,
      clock: systemClock,
      logger,
    });
    return { handler, queue, publisher, logger };
  };

  it('verifies the raw body, base64-encoded or not, with mixed-case header names, and answers 202', async () => {
    const { handler, queue, publisher } = setup();
    const body = JSON.stringify(sampleOrder('shopify', 3));
    const signed = signHeaders('shopify', SECRETS.INTAKE_SHOPIFY_SECRET, body, {
      deliveryId: 'w-1',
      now: new Date(),
    });
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Shopify-Hmac-Sha256': signed['x-shopify-hmac-sha256'] as string,
      'X-Shopify-Webhook-Id': 'w-1',
      'X-Shopify-Topic': 'orders/create',
    };
    for (const base64 of [false, true]) {
      const res = await handler(httpEvent({ source: 'shopify', headers, body, base64 }));
      expect(res.statusCode).toBe(202);
      expect(JSON.parse(res.body ?? '{}')).toMatchObject({ accepted: true });
    }
    expect(queue.sent).toHaveLength(2);
    expect(queue.sent[0]?.options).toEqual({
      deduplicationId: 'default:shopify:w-1',
      groupId: `default:shopify:${String(sampleOrder('shopify', 3).id)}`,
    });
    expect(publisher.ofType('EshopOrder.Received')).toHaveLength(2);
  });

  it('answers 401, 404, 405 and 422 without queueing, and logs no body or secret', async () => {
    const { handler, queue, logger, publisher } = setup();
    const order = sampleOrder('woocommerce', 4);
    const body = JSON.stringify(order);
    const json = { 'content-type': 'application/json' };
    expect((await handler(httpEvent({ source: 'woocommerce', headers: json, body }))).statusCode).toBe(401);
    expect((await handler(httpEvent({ source: 'nope', headers: json, body }))).statusCode).toBe(404);
    const signed = { ...json, 'x-wc-webhook-signature': hmacBase64(SECRETS.INTAKE_WOOCOMMERCE_SECRET, body) };
    const wrongMethod = await handler(
      httpEvent({ method: 'GET', source: 'woocommerce', headers: signed, body }),
    );
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers).toMatchObject({ allow: 'POST' });
    const bad = JSON.stringify({ ...order, currency: 'euro' });
    const res = await handler(
      httpEvent({
        source: 'woocommerce',
        headers: {
          ...json,
          'x-wc-webhook-topic': 'order.created',
          'x-wc-webhook-signature': hmacBase64(SECRETS.INTAKE_WOOCOMMERCE_SECRET, bad),
        },
        body: bad,
      }),
    );
    expect(res.statusCode).toBe(422);
    expect(JSON.parse(res.body ?? '{}').problems).toEqual([expect.stringContaining('currency')]);
    expect(publisher.ofType('EshopOrder.Rejected')[0]?.detail).toMatchObject({
      stage: 'validation',
      shopOrderId: String(order.id),
    });
    expect(queue.sent).toHaveLength(0);
    const logged = JSON.stringify(logger.lines);
    expect(logged).not.toContain(String((order.billing as { email: string }).email));
    for (const secret of Object.values(SECRETS)) expect(logged).not.toContain(secret);
  });

  it("answers WooCommerce's unsigned ping 200 and queues nothing", async () => {
    const { handler, queue } = setup();
    const res = await handler(
      httpEvent({
        source: 'woocommerce',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'webhook_id=17',
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(queue.sent).toHaveLength(0);
  });
});

describe('import-orders handler (SQS FIFO batch)', () => {
  const context = { getRemainingTimeInMillis: () => 30_000 } as Context;
  const record = (id: string, body: string, group: string) => ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'x',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: group,
      MessageDeduplicationId: id,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:111111111111:intake.fifo',
    awsRegion: 'eu-central-1',
  });

  it('reports a message that is not an intake message, and the rest of its group, as failed items', async () => {
    const logger = recordingLogger();
    let calls = 0;
    const handler = createImportHandler(
      importsOfOne({
        api: {} as never,
        guard: {
          async run() {
            calls += 1;
            throw new RetryLaterError('test');
          },
        },
        attempts: { begin: async () => true },
        publisher: recordingPublisher(),
        clock: systemClock,
        logger,
        config: loadIntakeConfig({}),
      }),
    );
    const valid = (n: number) =>
      JSON.stringify({
        version: 1,
        connection: 'acme',
        source: 'generic',
        deliveryId: `d-${n}`,
        receivedAt: new Date().toISOString(),
        order: sampleOrder('generic', n),
      });
    const event: SQSEvent = {
      Records: [
        record('m1', 'not json', 'g1'),
        record('m2', '{"version":1}', 'g2'),
        record('m3', valid(3), 'g1'), // after m1 failed: not run, FIFO order within g1 is kept
        record('m4', valid(4), 'g3'), // runs: the guard says retry later
      ],
    };
    const res = await handler(event, context);
    expect(res.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(calls).toBe(1);
  });
});
