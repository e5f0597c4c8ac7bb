import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { systemClock } from '#functions/shared/clock.js';
import {
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '#test/actions/support.js';
import { loadActionsConfig } from '../actions-config.js';
import { RetryLaterError } from '../errors.js';
import { createActionEntry } from '../run-action.js';
import { linksToSource, sourceLinks, transferDocument } from './transfer-document.js';

const bed = useActionTestBed({
  sizes: { documents: 40, partners: 8, perCollection: { ReceivedOrders: 12 } },
});
afterEach(() => {
  vi.restoreAllMocks();
});

const config = loadActionsConfig({});

/** Unfinished received orders, each used by one test. */
let pool: ApiRecord[] | undefined;
async function unfinishedOrder(): Promise<ApiRecord> {
  pool ??= (await listAll(bed.sb.client, 'ReceivedOrders')).filter((o) => o.Status !== 'PermanentDocument');
  const picked = pool.shift();
  if (!picked) throw new Error('the sandbox has no received order left');
  // A fresh, unfinished order with no transfer history.
  bed.sb.sandbox.state.update('ReceivedOrders', picked.Id, (r) => {
    r.Status = 'Unfinished';
  });
  return bed.sb.client.get('ReceivedOrders', picked.Id);
}

/** Issue slips made from the order: their items name the order's items (no document-level link exists). */
async function slipsReferencing(orderId: string): Promise<ApiRecord[]> {
  const links = sourceLinks(await bed.sb.client.get('ReceivedOrders', orderId));
  return (await listAll(bed.sb.client, 'IssueSlips')).filter((s) => linksToSource(s, links));
}

/** An api whose transfers happen but answer as if the connection broke (`OutcomeUnknownError`). */
function unknownOutcomeApi(options: { perform: boolean }): AccountingApi {
  const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
  api.create = async (operationId, input) => {
    if (options.perform) await bed.sb.client.create(operationId, input);
    throw new OutcomeUnknownError({ method: 'POST', path: '/v1/…' }, operationId, {
      cause: new Error('socket hang up'),
    });
  };
  return api;
}

async function setup(options: { api?: AccountingApi; persistenceStore?: DynamoDBPersistenceLayer } = {}) {
  const tableName = await bed.servers.idempotencyTable();
  const guard = createPowertoolsGuard({
    client: bed.servers.dynamoDb,
    tableName,
    expiresAfterSeconds: 3600,
    ...(options.persistenceStore ? { persistenceStore: options.persistenceStore } : {}),
  });
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = { api: options.api ?? bed.sb.client, publisher, clock: systemClock, logger, guard, config };
  const entry = createActionEntry('transfer', logger, (event, opts) => transferDocument(deps, event, opts));
  return { entry, publisher, logger, tableName };
}

describe('transfer action (sandbox + dynalite + Powertools idempotency)', () => {
  it('transfers a received order once when the same event arrives 3 times concurrently', async () => {
    const { entry, publisher } = await setup();
    const order = await unfinishedOrder();
    const event = recordEvent('ReceivedOrder', order);

    const results = await Promise.allSettled([entry(event), entry(event), entry(event)]);
    const done = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'done');
    expect(done).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RetryLaterError);
      else expect(['done', 'duplicate']).toContain(r.value.status);
    }
    // A later redelivery (and an Updated of the same order) returns the stored result.
    await expect(entry(event)).resolves.toMatchObject({ status: 'duplicate' });
    await expect(entry(recordEvent('ReceivedOrder', order, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'duplicate',
    });

    const slips = await slipsReferencing(order.Id);
    expect(slips).toHaveLength(1);
    const transferred = publisher.ofType('ReceivedOrder.Transferred');
    expect(transferred).toHaveLength(1);
    expect(transferred[0]?.detail).toMatchObject({
      id: order.Id,
      causationId: event.id,
      target: { recordType: 'IssueSlip', id: slips[0]?.Id, documentNumber: slips[0]?.DocumentNumber },
      recovered: false,
    });
    expect((await bed.sb.client.get('ReceivedOrders', order.Id)).Status).toBe('Finished');
  });

  it('does not transfer again after a crash between the transfer and the completed record', async () => {
    const tableName = await bed.servers.idempotencyTable();
    // A persistence layer whose first "save success" dies, as if the function crashed right then.
    class CrashingLayer extends DynamoDBPersistenceLayer {
      crashes = 1;
      override async saveSuccess(data: unknown, result: unknown): Promise<void> {
        if (this.crashes-- > 0) throw new Error('process crashed');
        return super.saveSuccess(data as never, result as never);
      }
    }
    const layer = new CrashingLayer({ tableName, awsSdkV3Client: bed.servers.dynamoDb });
    const { entry, publisher } = await setup({ persistenceStore: layer });
    const order = await unfinishedOrder();
    const event = recordEvent('ReceivedOrder', order);

    await expect(entry(event, { remainingTimeMs: 30_000 })).rejects.toThrow();
    expect(await slipsReferencing(order.Id)).toHaveLength(1);

    // The in-progress record still blocks a redelivery...
    await expect(entry(event, { remainingTimeMs: 30_000 })).rejects.toBeInstanceOf(RetryLaterError);
    // ...until it expires (the crashed invocation's remaining time has passed).
    const now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now + 60_000);
    const retry = await entry(event, { remainingTimeMs: 30_000 });
    expect(retry.status).toBe('done');

    expect(await slipsReferencing(order.Id)).toHaveLength(1);
    const transferred = publisher.ofType('ReceivedOrder.Transferred');
    // First emitted before the crash, then re-announced by the recovery, same identity.
    expect(transferred.at(-1)?.detail).toMatchObject({ recovered: true });
    const keys = new Set(transferred.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey));
    expect(keys.size).toBe(1);
  });

  it('recovers a transfer whose outcome is unknown through the item links, without back-reference fields', async () => {
    const { entry, publisher } = await setup({ api: unknownOutcomeApi({ perform: true }) });
    const order = await unfinishedOrder();
    const result = await entry(recordEvent('ReceivedOrder', order));
    expect(result.status).toBe('done');
    const slips = await slipsReferencing(order.Id);
    expect(slips).toHaveLength(1);
    const slip = slips[0] as ApiRecord;
    // Nothing but the real DTO fields: no document-level reference either way.
    expect(slip).not.toHaveProperty('SourceDocuments');
    expect(await bed.sb.client.get('ReceivedOrders', order.Id)).not.toHaveProperty('TargetDocuments');
    expect((slip.Items as { ReceivedOrderItemId: string }[]).map((i) => i.ReceivedOrderItemId)).toEqual(
      (order.Items as { Id: string }[]).map((i) => i.Id),
    );
    expect(publisher.ofType('ReceivedOrder.Transferred')[0]?.detail).toMatchObject({
      recovered: true,
      target: { id: slip.Id, documentNumber: slip.DocumentNumber },
    });
  });

  it('recovers one step further down the chain through the links the items inherit', async () => {
    const plain = await setup();
    const order = await unfinishedOrder();
    await plain.entry(recordEvent('ReceivedOrder', order));
    const [slip] = await slipsReferencing(order.Id);
    const { entry, publisher } = await setup({ api: unknownOutcomeApi({ perform: true }) });
    expect((await entry(recordEvent('IssueSlip', slip as ApiRecord))).status).toBe('done');
    const detail = publisher.ofType('IssueSlip.Transferred')[0]?.detail as { target: { id: string } };
    expect(detail).toMatchObject({ recovered: true });
    const invoice = await bed.sb.client.get('IssuedInvoices', detail.target.id);
    expect(linksToSource(invoice, sourceLinks(slip as ApiRecord))).toBe(true);
  });

  it('retries later when the outcome is unknown and the transfer did not happen; the next delivery transfers', async () => {
    const broken = await setup({ api: unknownOutcomeApi({ perform: false }) });
    const order = await unfinishedOrder();
    const event = recordEvent('ReceivedOrder', order);
    await expect(broken.entry(event)).rejects.toBeInstanceOf(RetryLaterError);
    expect(await slipsReferencing(order.Id)).toHaveLength(0);
    const warning = broken.logger.lines.find(
      (e) => e.message === 'transfer outcome unknown, no target found',
    );
    expect(warning?.data).toMatchObject({ status: 'Unfinished', happened: false });
    const { entry } = await setup();
    expect((await entry(event)).status).toBe('done');
    expect(await slipsReferencing(order.Id)).toHaveLength(1);
  });

  it('skips an order that is already finished without calling the transfer', async () => {
    const { entry, publisher } = await setup();
    const order = await unfinishedOrder();
    bed.sb.sandbox.state.update('ReceivedOrders', order.Id, (r) => {
      r.Status = 'Finished';
    });
    const create = vi.spyOn(bed.sb.client, 'create');
    const result = await entry(recordEvent('ReceivedOrder', order));
    expect(result).toMatchObject({ status: 'skipped' });
    expect(create).not.toHaveBeenCalled();
    expect(publisher.events).toHaveLength(0);
    // A skip is not remembered: reopened, the order is transferred on its next event.
    bed.sb.sandbox.state.update('ReceivedOrders', order.Id, (r) => {
      r.Status = 'Unfinished';
    });
    create.mockRestore();
    await expect(entry(recordEvent('ReceivedOrder', order, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'done',
    });
    expect(await slipsReferencing(order.Id)).toHaveLength(1);
  });

  it('turns a 422 into Action.Failed with the validation errors and leaves the record retryable', async () => {
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    let reject = true;
    api.create = async (operationId, input) => {
      if (reject) {
        throw new ValidationError(
          { method: 'POST', path: '/v1/ReceivedOrders/x/Transfer/ToIssueSlip/Fully' },
          422,
          {
            title: 'Unprocessable Entity',
            traceId: '00-abc-def-00',
            errors: { Items: ["'Items' must not be empty."] },
          },
        );
      }
      return bed.sb.client.create(operationId, input);
    };
    const { entry, publisher } = await setup({ api });
    const order = await unfinishedOrder();
    const result = await entry(recordEvent('ReceivedOrder', order));
    expect(result).toMatchObject({ status: 'failed', reason: 'validation' });
    const failed = publisher.ofType('Action.Failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.detail).toMatchObject({
      action: 'transfer.receivedOrderToIssueSlip',
      id: order.Id,
      problem: { kind: 'validation', status: 422, errors: { Items: ["'Items' must not be empty."] } },
    });
    expect(await slipsReferencing(order.Id)).toHaveLength(0);
    // Fixed order, new event: the failure did not block the action.
    reject = false;
    await expect(entry(recordEvent('ReceivedOrder', order, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'done',
    });
    expect(await slipsReferencing(order.Id)).toHaveLength(1);
  });

  it('chains: the issue slip event transfers the slip to an issued invoice', async () => {
    const { entry, publisher } = await setup();
    const order = await unfinishedOrder();
    await entry(recordEvent('ReceivedOrder', order));
    const [slip] = await slipsReferencing(order.Id);
    expect(slip?.Status).toBe('Unfinished');
    const result = await entry(recordEvent('IssueSlip', slip as ApiRecord));
    expect(result.status).toBe('done');
    const invoice = publisher.ofType('IssueSlip.Transferred')[0]?.detail as { target: { id: string } };
    const stored = await bed.sb.client.get('IssuedInvoices', invoice.target.id);
    expect(linksToSource(stored, sourceLinks(slip as ApiRecord))).toBe(true);
  });

  it('does nothing for a switched-off step', async () => {
    const tableName = await bed.servers.idempotencyTable();
    const off = loadActionsConfig({ ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUE_SLIP: 'false' });
    const guard = createPowertoolsGuard({ client: bed.servers.dynamoDb, tableName, expiresAfterSeconds: 60 });
    const publisher = recordingPublisher();
    const deps = {
      api: bed.sb.client,
      publisher,
      clock: systemClock,
      logger: recordingLogger(),
      guard,
      config: off,
    };
    const order = await unfinishedOrder();
    const entry = createActionEntry('transfer', deps.logger, (e, o) => transferDocument(deps, e, o));
    await expect(entry(recordEvent('ReceivedOrder', order))).resolves.toMatchObject({ status: 'skipped' });
    expect(await slipsReferencing(order.Id)).toHaveLength(0);
  });
});
