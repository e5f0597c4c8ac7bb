import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { RateLimitedError, ValidationError } from '#functions/accounting/errors.js';
import { createSqsDeadLetterSink } from '#functions/adapters/aws/sqs-dead-letter-sink.js';
import { createMemoryIdempotencyGuard as memoryGuard } from '#functions/adapters/local/memory-idempotency-guard.js';
import { transferDocumentsAction } from '#functions/core/actions/transfer-documents/action.js';
import { deadLetterSinkFromEnvironment, defineSqsAction } from '#functions/handlers/action-runtime.js';

import { createManualClock } from '#functions/shared/clock.js';
import { ENV } from '#functions/shared/env-names.js';
import { sqsRecord } from '../support/event-fixtures.js';
import { registryOfOne } from './registry-of-one.js';
import { recordEvent, recordingLogger, recordingPublisher } from './support.js';

const { createHandler } = defineSqsAction(transferDocumentsAction);

function order(id: string): ApiRecord {
  return {
    Id: id,
    DocumentNumber: `RO-${id.slice(0, 4)}`,
    Status: 'Unfinished',
    ModificationInfo: { CreatedDate: '2026-03-01T08:00:00Z', ModifiedDate: '2026-03-01T08:00:00Z' },
  };
}

const IDS = {
  ok: '11111111-1111-4111-8111-111111111111',
  limited: '22222222-2222-4222-8222-222222222222',
  rejected: '33333333-3333-4333-8333-333333333333',
};

function stubApi(calls: string[]): AccountingApi {
  const req = { method: 'POST', path: '/v1/ReceivedOrders/…/Transfer/ToIssueSlip/Fully' };
  return {
    async get(_collection: string, id: string) {
      calls.push(`get ${id}`);
      if (id === IDS.limited)
        throw new RateLimitedError({ method: 'GET', path: '/v1/ReceivedOrders/…' }, 429, {}, 1000);
      return order(id);
    },
    listItems: async function* () {},
    async create(_op: string, input?: { params?: Record<string, string> }) {
      const id = input?.params?.id ?? '';
      calls.push(`create ${id}`);
      if (id === IDS.rejected) {
        throw new ValidationError(req, 422, {
          title: 'Unprocessable Entity',
          errors: { Status: ['cannot be transferred'] },
        });
      }
      return {
        data: { Id: `5119${id.slice(4)}`, DocumentNumber: 'IS1', Items: [] },
        warnings: [],
      };
    },
  } as unknown as AccountingApi;
}

const context = { getRemainingTimeInMillis: () => 30_000, functionName: 'transfer' } as unknown as Context;

const DLQ_URL = 'https://sqs.eu-central-1.amazonaws.com/000000000000/transfer-received-order-dlq';
const sqsMock = mockClient(SQSClient);

beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'dlq-1' });
});

/** The route's DLQ as the handler gets it on AWS: the SQS adapter on a (mocked) client. */
function dlqSink() {
  return createSqsDeadLetterSink({ client: new SQSClient({ region: 'eu-central-1' }), queueUrl: DLQ_URL });
}

const sentToDlq = () => sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input);

const invalidEvent = () =>
  JSON.stringify({ ...recordEvent('ReceivedOrder', order(IDS.ok)), detail: { version: 1 } });

describe('SQS delivery of an action', () => {
  it('acknowledges done and 422 records, retries 429, dead-letters invalid events without retry work', async () => {
    const calls: string[] = [];
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: stubApi(calls),
          publisher: publisher,
          clock: createManualClock({ autoAdvance: true }),
          logger: logger,
          idempotency: memoryGuard(),
        }),
        logger,
      ),
      deadLetters: dlqSink(),
    });
    const valid = (id: string) => JSON.stringify(recordEvent('ReceivedOrder', order(id)));
    const invalid = JSON.stringify({
      ...recordEvent('ReceivedOrder', order(IDS.ok)),
      detail: { version: 1 },
    });

    const response = await handler(
      {
        Records: [
          sqsRecord('m-ok', valid(IDS.ok)),
          sqsRecord('m-invalid', invalid),
          sqsRecord('m-invalid-again', invalid, 2),
          sqsRecord('m-not-json', '{"detail-type":'),
          sqsRecord('m-429', valid(IDS.limited)),
          sqsRecord('m-422', valid(IDS.rejected)),
        ],
      },
      context,
    );

    // Invalid and non-JSON records are sent to the DLQ and acknowledged: only the 429 is redelivered.
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m-429']);
    expect(sentToDlq().map((input) => input.MessageAttributes?.originalMessageId?.StringValue)).toEqual([
      'm-invalid',
      'm-invalid-again',
      'm-not-json',
    ]);
    expect(sentToDlq()[2]?.MessageBody).toBe('{"detail-type":');
    // Invalid events never reach the service.
    expect(calls.filter((c) => c.includes(IDS.ok))).toEqual([`get ${IDS.ok}`, `create ${IDS.ok}`]);
    expect(calls.filter((c) => c.includes('create')).length).toBe(2);
    // Logged once: the redelivery (receive count 2) is silent.
    const deadLettered = logger.lines.filter((l) => l.message === 'invalid event dead-lettered');
    expect(deadLettered).toHaveLength(2);
    expect(JSON.stringify(deadLettered)).toContain('detail');
    // 422 → Action.Failed with the validation errors; the done one → Transferred.
    expect(publisher.ofType('ReceivedOrder.Transferred')).toHaveLength(1);
    expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
      id: IDS.rejected,
      problem: { kind: 'validation', status: 422, errors: { Status: ['cannot be transferred'] } },
    });
  });

  it('reports a whole failing batch item by item instead of failing the invocation', async () => {
    const handlerLogger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: stubApi([]),
          publisher: recordingPublisher(),
          clock: createManualClock(),
          logger: handlerLogger,
          idempotency: memoryGuard(),
        }),
        handlerLogger,
      ),
    });
    const response = await handler(
      {
        Records: [
          sqsRecord('a', 'nope'),
          sqsRecord('b', JSON.stringify(recordEvent('ReceivedOrder', order(IDS.limited)))),
        ],
      },
      context,
    );
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b']);
  });

  it('an invalid event on its first receive: one SendMessage to the DLQ, acknowledged, logged once, no service call', async () => {
    const calls: string[] = [];
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: stubApi(calls),
          publisher: publisher,
          clock: createManualClock(),
          logger: logger,
          idempotency: memoryGuard(),
        }),
        logger,
      ),
      deadLetters: dlqSink(),
    });
    const body = invalidEvent();

    const response = await handler({ Records: [sqsRecord('m-invalid', body)] }, context);

    expect(response.batchItemFailures).toEqual([]);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
    const sent = sentToDlq()[0];
    expect(sent).toMatchObject({
      QueueUrl: DLQ_URL,
      MessageBody: body,
      MessageAttributes: {
        action: { DataType: 'String', StringValue: 'transfer-documents' },
        reason: { DataType: 'String', StringValue: expect.any(String) },
        originalMessageId: { DataType: 'String', StringValue: 'm-invalid' },
      },
    });
    expect(sent?.MessageAttributes?.reason?.StringValue).not.toBe('');
    expect(logger.lines.filter((l) => l.message === 'invalid event dead-lettered')).toHaveLength(1);
    expect(logger.lines.filter((l) => l.level === 'error' || l.level === 'warn')).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(publisher.events).toEqual([]);
  });

  it('falls back to a failed item (queue redrive) and logs it when the DLQ send fails', async () => {
    sqsMock.on(SendMessageCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDenied' }));
    const calls: string[] = [];
    const logger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: stubApi(calls),
          publisher: recordingPublisher(),
          clock: createManualClock(),
          logger: logger,
          idempotency: memoryGuard(),
        }),
        logger,
      ),
      deadLetters: dlqSink(),
    });

    const response = await handler(
      { Records: [sqsRecord('m-invalid', invalidEvent()), sqsRecord('m-not-json', 'nope')] },
      context,
    );

    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m-invalid', 'm-not-json']);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(2);
    expect(logger.lines.filter((l) => l.message === 'invalid event dead-lettered')).toHaveLength(2);
    const failedSends = logger.lines.filter(
      (l) => l.message === 'dead-letter send failed, left to the queue redrive',
    );
    expect(failedSends.map((l) => l.data)).toEqual([
      { action: 'transfer-documents', messageId: 'm-invalid', error: 'AccessDenied' },
      { action: 'transfer-documents', messageId: 'm-not-json', error: 'AccessDenied' },
    ]);
    expect(calls).toEqual([]);
  });

  it('without a dead-letter queue, invalid events stay failed items until the redrive (logged on the first receive)', async () => {
    const logger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: stubApi([]),
          publisher: recordingPublisher(),
          clock: createManualClock(),
          logger: logger,
          idempotency: memoryGuard(),
        }),
        logger,
      ),
    });
    const response = await handler(
      {
        Records: [
          sqsRecord('m-invalid', invalidEvent()),
          sqsRecord('m-invalid-again', invalidEvent(), 2),
          sqsRecord('m-not-json', '{'),
        ],
      },
      context,
    );
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      'm-invalid',
      'm-invalid-again',
      'm-not-json',
    ]);
    expect(logger.lines.filter((l) => l.message === 'invalid event dead-lettered')).toHaveLength(2);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(0);
  });
});

describe('the dead-letter queue from the environment', () => {
  it('builds the SQS sink from ACTIONS_DEAD_LETTER_QUEUE_URL', async () => {
    const logger = recordingLogger();
    const sink = deadLetterSinkFromEnvironment(
      { [ENV.actionsDeadLetterQueueUrl]: DLQ_URL },
      logger,
      new SQSClient({ region: 'eu-central-1' }),
    );
    await sink?.send('{}', { action: 'archive-isdoc', reason: 'r', messageId: 'm' });
    expect(sentToDlq()).toEqual([expect.objectContaining({ QueueUrl: DLQ_URL, MessageBody: '{}' })]);
    expect(logger.lines).toEqual([]);
  });

  it('unset: no sink, and one log line saying invalid events wait for the redrive', () => {
    const logger = recordingLogger();
    expect(deadLetterSinkFromEnvironment({}, logger)).toBeUndefined();
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'dead-letter queue not configured',
        data: expect.objectContaining({ variable: ENV.actionsDeadLetterQueueUrl }),
      }),
    ]);
  });

  it('rejects a value that is not a URL, naming the variable', () => {
    expect(() =>
      deadLetterSinkFromEnvironment({ [ENV.actionsDeadLetterQueueUrl]: 'my-dlq' }, recordingLogger()),
    ).toThrow(ENV.actionsDeadLetterQueueUrl);
  });
});
