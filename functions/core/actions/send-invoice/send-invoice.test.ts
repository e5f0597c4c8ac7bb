import { beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import {
  CONNECTION,
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '#test/actions/support.js';
import { answeringRaw } from '#test/fakes/raw-answers.js';
import { loadActionsConfig } from '../actions-config.js';
import { isdocKeyOfRecord } from '../archive-isdoc/isdoc-key.js';
import {
  FINISHED_RETENTION_MS,
  legacyTrackingKey,
  type OpenSendings,
  recentlyFinished,
  sendingKey,
  updateOpenSendings,
} from '../open-sendings.js';
import { createActionEntry } from '../run-action.js';
import { trackEInvoices } from '../track-einvoices/einvoice-tracking.js';
import { sendingRecordKey } from '../track-einvoices/sending-record.js';
import { preflightOf } from './einvoice-blocks.js';
import { sendInvoice } from './send-invoice.js';

const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
const bed = useActionTestBed({
  clock,
  eInvoicing: {
    stepMs: 1_000,
    transportFailureProbability: 0,
    responseWeights: { AP: 1, RE: 0, CA: 0, UQ: 0 },
    paidProbability: 1,
    statuses: 'invoiceResponse',
  },
  sizes: { documents: 30, partners: 6, perCollection: { IssuedInvoices: 12 } },
});
let invoices: ApiRecord[];

beforeAll(async () => {
  const all = (await listAll(bed.sb.client, 'IssuedInvoices')).filter(
    (i) =>
      typeof (i.BusinessPartnerAddress as { IdentificationNumber?: unknown })?.IdentificationNumber ===
      'string',
  );
  // Invoices the e-invoicing pre-flight lets go (the sandbox seeds a few that it blocks).
  invoices = [];
  for (const invoice of all) if ((await preflightOf(bed.sb.client, invoice)).passed) invoices.push(invoice);
});

function partnerOf(invoice: ApiRecord): string {
  return String((invoice.BusinessPartnerAddress as { IdentificationNumber: string }).IdentificationNumber);
}

async function setup(env: Record<string, string>, api: AccountingApi = bed.sb.client) {
  const config = loadActionsConfig(env);
  const guard = createPowertoolsGuard({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.idempotencyTable(),
    expiresAfterSeconds: 3600,
  });
  const sendings: CheckpointStore<OpenSendings> = createDynamoDbCheckpointStore<OpenSendings>({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.checkpointTable(),
  });
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = {
    api,
    publisher,
    clock,
    logger,
    guard,
    sendings,
    blocks: sendings as CheckpointStore<unknown>,
    config,
  };
  const entry = createActionEntry('send-invoice', logger, (event, o) => sendInvoice(deps, event, o));
  const records = createMemoryObjectStore();
  const track = () => trackEInvoices({ api, sendings, publisher, clock, logger, records }, CONNECTION);
  return { entry, track, publisher, sendings, records };
}

describe('e-invoice sending and tracking (sandbox + dynalite)', () => {
  it('sends once and emits every status transition in order until final', async () => {
    const invoice = invoices[0] as ApiRecord;
    const { entry, track, publisher, sendings, records } = await setup({
      ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice),
    });
    const event = recordEvent('IssuedInvoice', invoice);

    const sent = await Promise.allSettled([entry(event), entry(event)]);
    expect(sent.filter((r) => r.status === 'fulfilled' && r.value.status === 'done')).toHaveLength(1);
    const open = await sendings.get(sendingKey(CONNECTION, String(invoice.Id)));
    expect(open?.value.sendings).toHaveLength(1);

    await track(); // Queued
    clock.advance(2_500);
    await track(); // Sent, Delivered
    await track(); // nothing new
    clock.advance(10_000);
    const last = await track(); // AB, IP, AP, PD (final)
    expect(last).toMatchObject({ closed: 1, open: 0 });

    const changes = publisher.ofType('IssuedInvoice.EInvoiceStatusChanged').map(
      (e) =>
        e.detail as {
          sequence: number;
          status: string;
          previousStatus: string | null;
          responseCode: string | null;
          final: boolean;
          causationId: string;
        },
    );
    expect(changes.map((c) => [c.sequence, c.status, c.responseCode])).toEqual([
      [1, 'Queued', null],
      [2, 'Sent', null],
      [3, 'Delivered', null],
      [4, 'Delivered', 'AB'],
      [5, 'Delivered', 'IP'],
      [6, 'Delivered', 'AP'],
      [7, 'Delivered', 'PD'],
    ]);
    expect(changes.map((c) => c.previousStatus)).toEqual([
      null,
      'Queued',
      'Sent',
      'Delivered',
      'Delivered',
      'Delivered',
      'Delivered',
    ]);
    expect(changes.map((c) => c.final)).toEqual([false, false, false, false, false, false, true]);
    expect(new Set(changes.map((c) => c.causationId))).toEqual(new Set([event.id]));
    expect((await sendings.get(sendingKey(CONNECTION, String(invoice.Id))))?.value.sendings).toEqual([]);
    // The sending's record, beside the key the archive gives the invoice's ISDOC.
    const isdoc = isdocKeyOfRecord({
      connection: CONNECTION,
      recordType: 'IssuedInvoice',
      documentNumber: String(invoice.DocumentNumber),
      id: String(invoice.Id),
      record: invoice,
      modifiedDate: null,
    });
    const sendingId = (changes[0] as unknown as { sendingId: string }).sendingId;
    expect(records.keys()).toEqual([sendingRecordKey(isdoc, sendingId)]);
    // A later delivery of the same invoice does not send again.
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'duplicate',
    });
  });

  it('gives up on a sending that is not final by its deadline', async () => {
    const invoice = invoices[1] as ApiRecord;
    const api: AccountingApi = Object.assign(Object.create(bed.sb.client) as AccountingApi, {
      sendingStatus: answeringRaw(async () => ({ Status: 'Sent', ResponseCode: null })).sendingStatus,
    });
    const { entry, track, publisher } = await setup(
      { ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice), ACTIONS_EINVOICE_TRACKING_DEADLINE_SECONDS: '60' },
      api,
    );
    await entry(recordEvent('IssuedInvoice', invoice));
    await track();
    clock.advance(61_000);
    await expect(track()).resolves.toMatchObject({ expired: 1, open: 0 });
    expect(publisher.ofType('IssuedInvoice.EInvoiceStatusChanged')).toHaveLength(1);
    expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
      action: 'send.einvoice',
      problem: { kind: 'deadline' },
    });
  });

  it('sends by e-mail for a partner configured for e-mail, once', async () => {
    const invoice = invoices[2] as ApiRecord;
    const { entry, publisher } = await setup({
      ACTIONS_EMAIL_PARTNERS: `${partnerOf(invoice)}=billing@example.com`,
    });
    const before = bed.sb.sandbox.server.domain.outbox.length;
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'done' });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'duplicate',
    });
    const messages = bed.sb.sandbox.server.domain.outbox.slice(before);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ DocumentId: invoice.Id, To: ['billing@example.com'] });
    expect(publisher.ofType('IssuedInvoice.EmailSent')[0]?.detail).toMatchObject({
      to: ['billing@example.com'],
      subject: `Invoice ${String(invoice.DocumentNumber)}`,
    });
  });

  /** The sandbox client, with `Documents.sendEInvoice` answered by `send` (read as the client reads it) and counted. */
  function stubbedSend(send: () => Promise<unknown>) {
    const calls = { sendEInvoice: 0 };
    const api: AccountingApi = Object.assign(Object.create(bed.sb.client) as AccountingApi, {
      sendEInvoice: answeringRaw(async () => {
        calls.sendEInvoice += 1;
        return send();
      }).sendEInvoice,
    });
    return { api, calls };
  }

  it('never sends again when the service accepted a sending but its answer has no SendingId', async () => {
    const invoice = invoices[0] as ApiRecord;
    const { api, calls } = stubbedSend(async () => ({ Status: 'Queued' }));
    const { entry, publisher, sendings } = await setup(
      { ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice) },
      api,
    );
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'failed',
      reason: 'outcomeUnknown',
    });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'duplicate',
    });
    expect(calls.sendEInvoice).toBe(1);
    expect(publisher.ofType('Action.Failed')).toHaveLength(1);
    expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
      action: 'send.einvoice',
      problem: { kind: 'outcomeUnknown', message: expect.stringContaining('SendingId') },
    });
    // Nothing tracked, and no intent left behind.
    expect((await sendings.get(sendingKey(CONNECTION, String(invoice.Id))))?.value).toEqual({
      sendings: [],
      intents: [],
      finished: [],
    });
  });

  /** Where an interrupted run left its traces: the invoice's shard, or the item an older version wrote. */
  const itemOf = {
    shard: (invoice: ApiRecord) => sendingKey(CONNECTION, String(invoice.Id)),
    legacy: () => legacyTrackingKey(CONNECTION),
  };

  it.each(['shard', 'legacy'] as const)(
    'after a run killed around its request (an intent left behind in the %s item), reports the outcome unknown, never sends again',
    async (where) => {
      const invoice = invoices[3] as ApiRecord;
      const key = itemOf[where](invoice);
      const { api, calls } = stubbedSend(async () => ({ SendingId: 'never', Status: 'Queued' }));
      const { entry, publisher, sendings } = await setup(
        { ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice) },
        api,
      );
      // What the killed run left: its intent (its in-progress idempotency record has expired).
      await updateOpenSendings(sendings, key, (current) => ({
        ...current,
        intents: [{ recordId: String(invoice.Id), at: '2026-03-04T10:00:00.000Z' }],
      }));
      await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
        status: 'failed',
        reason: 'outcomeUnknown',
      });
      expect(calls.sendEInvoice).toBe(0);
      expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
        problem: { kind: 'outcomeUnknown' },
      });
      expect((await sendings.get(key))?.value.intents).toEqual([]);
    },
  );

  it.each(['shard', 'legacy'] as const)(
    'after a run killed once its sending was registered (in the %s item), takes that sending instead of sending again',
    async (where) => {
      const invoice = invoices[4] as ApiRecord;
      const { api, calls } = stubbedSend(async () => ({ SendingId: 'second', Status: 'Queued' }));
      const { entry, sendings } = await setup({ ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice) }, api);
      await updateOpenSendings(sendings, itemOf[where](invoice), (current) => ({
        ...current,
        sendings: [
          {
            sendingId: '11111111-2222-4333-8444-555555555555',
            connection: CONNECTION,
            eventSource: 'accounting.test',
            source: {
              recordType: 'IssuedInvoice',
              id: String(invoice.Id),
              documentNumber: null,
              modifiedDate: null,
            },
            causationId: 'e0',
            sentAt: '2026-03-04T10:00:00.000Z',
            deadline: '2026-03-05T10:00:00.000Z',
            emitted: 0,
            lastStatus: null,
            lastCode: null,
          },
        ],
      }));
      await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'done' });
      expect(calls.sendEInvoice).toBe(0);
    },
  );

  it.each(['shard', 'legacy'] as const)(
    'after a run killed once its sending was registered and the tracker closed it (finished in the %s item), still does not send again',
    async (where) => {
      const invoice = invoices[5] as ApiRecord;
      const key = itemOf[where](invoice);
      const { api, calls } = stubbedSend(async () => ({ SendingId: 'third', Status: 'Queued' }));
      const { entry, sendings } = await setup({ ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice) }, api);
      // The tracker closed the killed run's sending (final status) before the redelivery came.
      await updateOpenSendings(sendings, key, (current) => ({
        ...current,
        finished: [
          {
            recordId: String(invoice.Id),
            sendingId: '11111111-2222-4333-8444-666666666666',
            at: clock.now().toISOString(),
          },
        ],
      }));
      await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'done' });
      expect(calls.sendEInvoice).toBe(0);
      // Past the retention, the record of it is dropped at the next change of the list.
      clock.advance(FINISHED_RETENTION_MS);
      await updateOpenSendings(sendings, key, (current) => ({
        ...current,
        finished: recentlyFinished(current, clock.now()),
      }));
      expect((await sendings.get(key))?.value.finished).toEqual([]);
    },
  );

  it('the tracker keeps a closed sending as finished, and registering the next sending keeps it', async () => {
    const invoice = invoices[6] as ApiRecord;
    const next = invoices[7] as ApiRecord;
    const { entry, track, sendings } = await setup({
      ACTIONS_EINVOICE_PARTNERS: `${partnerOf(invoice)},${partnerOf(next)}`,
    });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'done' });
    const key = sendingKey(CONNECTION, String(invoice.Id));
    for (let i = 0; i < 20 && ((await sendings.get(key))?.value.sendings.length ?? 0) > 0; i += 1) {
      clock.advance(1_000);
      await track();
    }
    const list = (await sendings.get(key))?.value;
    expect(list?.sendings.some((s) => s.source.id === String(invoice.Id))).toBe(false);
    expect(list?.finished?.map((f) => f.recordId)).toContain(String(invoice.Id));
    await expect(entry(recordEvent('IssuedInvoice', next))).resolves.toMatchObject({ status: 'done' });
    const after = (await sendings.get(sendingKey(CONNECTION, String(next.Id))))?.value;
    expect(after?.sendings.map((s) => s.source.id)).toContain(String(next.Id));
    expect((await sendings.get(key))?.value.finished?.map((f) => f.recordId)).toContain(String(invoice.Id));
  });

  it('never sends again after an unknown outcome, even when its Action.Failed cannot be published', async () => {
    const invoice = invoices[1] as ApiRecord;
    const { api, calls } = stubbedSend(async () => {
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/…' }, 'Documents.sendEInvoice');
    });
    const { entry, publisher } = await setup({ ACTIONS_EINVOICE_PARTNERS: partnerOf(invoice) }, api);
    publisher.publish = async () => {
      throw new Error('bus unavailable');
    };
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'failed',
      reason: 'outcomeUnknown',
    });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({
      status: 'duplicate',
    });
    expect(calls.sendEInvoice).toBe(1);
  });

  it('skips an invoice whose partner is not configured', async () => {
    const invoice = invoices[3] as ApiRecord;
    const { entry, publisher } = await setup({
      ACTIONS_EINVOICING: 'lists',
      ACTIONS_EINVOICE_PARTNERS: 'not-this-partner',
    });
    await expect(entry(recordEvent('IssuedInvoice', invoice))).resolves.toMatchObject({ status: 'skipped' });
    expect(publisher.events).toHaveLength(0);
  });
});
