/**
 * Deadlines bounded by the invocation: the client starts no attempt and waits no backoff past the
 * time left, and the SQS handler reports a record that cannot finish as a failed batch item before
 * the Lambda would time out (which would drop the whole partial-failure report).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { TimeoutError } from '#functions/accounting/errors.js';
import { transferDocumentsAction } from '#functions/core/actions/transfer-documents/action.js';
import { defineSqsAction } from '#functions/handlers/action-runtime.js';
import { createInvocationDeadline } from '#functions/handlers/invocation-deadline.js';

import { createManualClock } from '#functions/shared/clock.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { sqsRecord } from '../support/event-fixtures.js';
import { registryOfOne } from './registry-of-one.js';
import { recordEvent, recordingLogger, recordingPublisher } from './support.js';

const { createHandler } = defineSqsAction(transferDocumentsAction);

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ sizes: { documents: 5, partners: 2, perCollection: {} } });
});
afterAll(() => sandbox.close());

const client = (remainingMs: () => number | undefined, requestTimeoutMs = 30_000) =>
  createAccountingClient(
    parseAccountingConfig({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.credentials.apiKey,
      requestTimeoutMs,
      maxAttempts: 4,
    }),
    { remainingMs },
  );

describe('client deadlines bounded by the invocation', () => {
  it('starts no attempt when no time is left: no request reaches the service', async () => {
    const api = client(() => 0);
    const before = sandbox.requestCounts().total;
    await expect(api.get('IssuedInvoices', randomUUID())).rejects.toBeInstanceOf(TimeoutError);
    await expect(
      api.create('ReceivedOrders.transferToIssueSlip', { params: { id: randomUUID() } }),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(sandbox.requestCounts().total).toBe(before);
    await api.close();
  });

  it('cuts an attempt at the time left, not at the request timeout, and waits for no backoff past it', async () => {
    // A window of seconds, so that the one request reaches the sandbox on a busy machine too, and a
    // latency far past it, so that the attempt can only end by the time left (the request timeout
    // is 30 s).
    sandbox.setFaults({ latency: { baseMs: 20_000, jitterMs: 0, distribution: 'uniform' } });
    try {
      const endsAt = Date.now() + 3_000;
      const api = client(() => endsAt - Date.now());
      const before = sandbox.requestCounts().total;
      const error = await api.get('IssuedInvoices', randomUUID()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      // One attempt only: the backoff before a second would not fit in what is left.
      expect(sandbox.requestCounts().total - before).toBe(1);
      await api.close();
    } finally {
      sandbox.setFaults({ latency: { baseMs: 0, jitterMs: 0, distribution: 'uniform' } });
    }
  });
});

describe('SQS handler near the end of the invocation', () => {
  it('reports records that cannot finish as failed items and returns before the timeout', async () => {
    const hanging = {
      get: () => new Promise(() => {}),
      listItems: async function* () {},
    } as unknown as AccountingApi;
    const handlerLogger = recordingLogger();
    const handler = createHandler({
      ...registryOfOne(
        {},
        () => ({
          api: hanging,
          publisher: recordingPublisher(),
          clock: createManualClock(),
          logger: handlerLogger,
          idempotency: { run: async (_key, fn) => fn() },
        }),
        handlerLogger,
      ),
      deadline: createInvocationDeadline(50),
    });
    const order = {
      Id: randomUUID(),
      Status: 'Unfinished',
      ModificationInfo: { CreatedDate: '2026-03-01T08:00:00Z', ModifiedDate: '2026-03-01T08:00:00Z' },
    };
    const records = ['a', 'b', 'c'].map((id) =>
      sqsRecord(id, JSON.stringify(recordEvent('ReceivedOrder', { ...order, Id: randomUUID() }))),
    );
    const endsAt = Date.now() + 250;
    const context = { getRemainingTimeInMillis: () => endsAt - Date.now() } as Context;
    const response = await handler({ Records: records }, context);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b', 'c']);
  });
});
