/** The delivery function's SQS handler: each record to its queue's target, retries as batch item failures. */
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { PostResult } from '#functions/core/delivery/delivery-decision.js';
import { loadDeliveryFunctionConfig } from '#functions/core/delivery/delivery-function-config.js';
import { createDeliveryHandler } from '#functions/handlers/deliver-events.js';

const target = (n: number) => ({
  id: `delivery-${n}`,
  url: `https://hooks${n}.example.com/x`,
  queueArn: `arn:aws:sqs:eu-central-1:111111111111:q${n}`,
  queueUrl: `https://sqs.eu-central-1.amazonaws.com/111111111111/q${n}`,
  deadLetterQueueUrl: `https://sqs.eu-central-1.amazonaws.com/111111111111/d${n}`,
  secretArn: `arn:aws:secretsmanager:eu-central-1:111111111111:secret:s${n}-AbCdEf`,
});
const config = loadDeliveryFunctionConfig({ DELIVERY_TARGETS: JSON.stringify([target(1), target(2)]) });
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;

const record = (id: string, queue: number) => ({
  messageId: `m-${id}`,
  receiptHandle: `r-${id}`,
  body: JSON.stringify({ id, 'detail-type': 'IssuedInvoice.Created', source: 'accounting.a', detail: {} }),
  attributes: { ApproximateReceiveCount: '1' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: target(queue).queueArn,
  awsRegion: 'eu-central-1',
});

describe('deliver-events handler', () => {
  it("posts each record to its queue's target with that target's secret; a retry is a batch item failure", async () => {
    const posts: { url: string; id: string; secret: string }[] = [];
    const answers: Record<string, PostResult> = { e2: { ok: false, status: 502, error: 'HTTP 502' } };
    const delays: [string, string, number][] = [];
    const handler = createDeliveryHandler({
      config,
      secretOf: async (t) => `secret-of-${t.id}`,
      post: async (r) => {
        posts.push({ url: r.url, id: r.id, secret: r.secret });
        return answers[r.id] ?? { ok: true, status: 200 };
      },
      deadLetters: () => ({ send: async () => {} }),
      retryAfter: async (t, receipt, seconds) => void delays.push([t.id, receipt, seconds]),
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const event = { Records: [record('e1', 1), record('e2', 2), record('e3', 1)] } as unknown as SQSEvent;
    const response = await handler(event, context);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-e2' }]);
    expect(posts).toEqual([
      { url: 'https://hooks1.example.com/x', id: 'e1', secret: 'secret-of-delivery-1' },
      { url: 'https://hooks2.example.com/x', id: 'e2', secret: 'secret-of-delivery-2' },
      { url: 'https://hooks1.example.com/x', id: 'e3', secret: 'secret-of-delivery-1' },
    ]);
    expect(delays).toEqual([['delivery-2', 'r-e2', 60]]);
  });
});
