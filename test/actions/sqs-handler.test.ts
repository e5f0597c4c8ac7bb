import type { Context, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '../../functions/accounting/api.js';
import { RateLimitedError, ValidationError } from '../../functions/accounting/errors.js';
import { loadActionsConfig } from '../../functions/core/actions/config.js';
import { ActionInProgressError } from '../../functions/core/actions/errors.js';
import type { IdempotencyGuard } from '../../functions/core/actions/ports.js';
import { createHandler } from '../../functions/handlers/transfer-documents.js';
import { createManualClock } from '../../functions/shared/clock.js';
import { recordEvent, recordingLogger, recordingPublisher } from './support.js';

/** In-memory guard with the same contract as the Powertools one. */
function memoryGuard(): IdempotencyGuard {
  const records = new Map<string, { done: boolean; result?: unknown }>();
  return {
    async run(key, fn) {
      const k = `${key.action}#${key.connection}#${key.recordId}`;
      const existing = records.get(k);
      if (existing?.done) return existing.result as never;
      if (existing) throw new ActionInProgressError(k);
      records.set(k, { done: false });
      try {
        const result = await fn();
        records.set(k, { done: true, result });
        return result;
      } catch (error) {
        records.delete(k);
        throw error;
      }
    },
  };
}

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
        data: { Id: `slip-${id}`, DocumentNumber: 'IS1', SourceDocuments: [{ Id: id }] },
        warnings: [],
      };
    },
  } as unknown as AccountingApi;
}

function sqsRecord(messageId: string, body: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '1772352000000',
      SenderId: 'events',
      ApproximateFirstReceiveTimestamp: '1772352000000',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:transfer-received-order',
    awsRegion: 'eu-central-1',
  };
}

const context = { getRemainingTimeInMillis: () => 30_000, functionName: 'transfer' } as unknown as Context;

describe('SQS delivery of an action', () => {
  it('acknowledges done and 422 records, retries 429, dead-letters invalid events without retry work', async () => {
    const calls: string[] = [];
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const handler = createHandler({
      api: stubApi(calls),
      publisher,
      clock: createManualClock({ autoAdvance: true }),
      logger,
      guard: memoryGuard(),
      config: loadActionsConfig({}),
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

    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      ['m-429', 'm-invalid', 'm-invalid-again', 'm-not-json'].sort(),
    );
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
    const handler = createHandler({
      api: stubApi([]),
      publisher: recordingPublisher(),
      clock: createManualClock(),
      logger: recordingLogger(),
      guard: memoryGuard(),
      config: loadActionsConfig({}),
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
});
