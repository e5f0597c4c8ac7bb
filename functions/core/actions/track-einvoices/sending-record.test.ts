import { describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import type { ObjectStore } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '#test/actions/support.js';
import { rawAnswersApi } from '#test/fakes/raw-answers.js';
import { type OpenSending, type OpenSendings, sendingKey } from '../open-sendings.js';
import { trackEInvoices } from './einvoice-tracking.js';
import { sendingRecordSchema } from './sending-record.js';

const INVOICE = '1f000000-0000-4000-8000-000000000001';
const KEY = sendingKey('acme', INVOICE);
/** Where the archive keeps this invoice's ISDOC (issued in March 2026). */
const ISDOC = `isdoc/acme/IssuedInvoice/2026/03/FV-1_${INVOICE}.isdoc`;

const sending: OpenSending = {
  sendingId: '51000000-0000-4000-8000-000000000001',
  connection: 'acme',
  eventSource: 'accounting.acme',
  source: { recordType: 'IssuedInvoice', id: INVOICE, documentNumber: 'FV/1', modifiedDate: null },
  causationId: 'e-1',
  sentAt: '2026-03-01T08:00:00.000Z',
  deadline: '2026-03-08T08:00:00.000Z',
  emitted: 0,
  lastStatus: null,
  lastCode: null,
  isdocDate: '2026-03-01',
};

const rejected = {
  Status: 'Rejected',
  MessageLevelStatus: 'RE',
  MessageLevelReasons: [
    { Code: 'BV', RuleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'], Description: 'Business rules failed' },
    { Code: 'BV', RuleIds: ['BR-CO-10'], Description: null },
  ],
};

async function setup(answers: unknown[], options: { records?: ObjectStore; api?: AccountingApi } = {}) {
  const api = options.api ?? rawAnswersApi(async () => (answers.length > 1 ? answers.shift() : answers[0]));
  const sendings = createMemoryCheckpointStore<OpenSendings>();
  await sendings.put(KEY, { sendings: [sending] }, undefined);
  const publisher = recordingPublisher();
  const store = createMemoryObjectStore();
  const clock = createManualClock({ start: '2026-03-02T09:00:00.000Z' });
  const deps = {
    api,
    sendings,
    publisher,
    clock,
    logger: recordingLogger(),
    records: options.records ?? store,
  };
  return { deps, sendings, publisher, store };
}

async function recordOf(store: ObjectStore, key: string) {
  const body = await store.get(key);
  if (!body) throw new Error(`no object ${key}`);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return sendingRecordSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
}

describe('the record of a finished e-invoice sending, beside its ISDOC', () => {
  it('is written once the MLS status is final, not while it is AB, with the reasons and rule ids', async () => {
    const answers = [{ Status: 'Delivered', MessageLevelStatus: 'AB', MessageLevelReasons: [] }, rejected];
    const { deps, store } = await setup(answers);
    await trackEInvoices(deps, 'acme');
    expect(store.keys()).toEqual([]);
    await trackEInvoices(deps, 'acme');
    const key = `${ISDOC}.${sending.sendingId}.einvoice.json`;
    expect(store.keys()).toEqual([key]);
    expect(await recordOf(store, key)).toEqual({
      recordVersion: 1,
      connection: 'acme',
      recordType: 'IssuedInvoice',
      documentId: INVOICE,
      documentNumber: 'FV/1',
      isdocKey: ISDOC,
      sendingId: sending.sendingId,
      network: 'mls',
      status: 'Rejected',
      responseCode: null,
      mls: {
        code: 'RE',
        reasons: [
          { code: 'BV', ruleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'], description: 'Business rules failed' },
          { code: 'BV', ruleIds: ['BR-CO-10'], description: null },
        ],
      },
      ruleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'],
      sentAt: sending.sentAt,
      statusDate: null,
      recordedAt: '2026-03-02T09:00:00.000Z',
    });
    expect((await store.head(key))?.contentType).toBe('application/json');
  });

  it('keeps the Invoice Response code where the network gives no MLS', async () => {
    const { deps, store } = await setup([{ Status: 'Delivered', ResponseCode: 'AP' }]);
    await trackEInvoices(deps, 'acme');
    const [key] = store.keys();
    expect(await recordOf(store, key as string)).toMatchObject({
      network: 'invoice-response',
      status: 'Delivered',
      responseCode: 'AP',
      mls: null,
      ruleIds: [],
    });
  });

  it('a pass repeated after a crash finds the record written and finishes (nothing rewritten)', async () => {
    const { deps, store, sendings, publisher } = await setup([rejected]);
    await trackEInvoices(deps, 'acme');
    const [key] = store.keys();
    const first = await store.head(key as string);
    // The crash: the open sending was not saved, so the next pass sees the same final status.
    await sendings.put(KEY, { sendings: [sending] }, (await sendings.get(KEY))?.version);
    await trackEInvoices(deps, 'acme');
    expect(store.keys()).toEqual([key]);
    expect((await store.head(key as string))?.lastModified).toEqual(first?.lastModified);
    const changes = publisher.ofType('IssuedInvoice.EInvoiceStatusChanged');
    // The transition is published again with the same idempotency key; the sending is closed.
    expect(new Set(changes.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey)).size).toBe(1);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([]);
  });

  it('a failed write stops the pass before anything is published; the sending stays open', async () => {
    const failing: ObjectStore = {
      ...createMemoryObjectStore(),
      put: async () => {
        throw new Error('S3 unavailable');
      },
    };
    const { deps, sendings, publisher } = await setup([rejected], { records: failing });
    await expect(trackEInvoices(deps, 'acme')).rejects.toThrow('S3 unavailable');
    expect(publisher.ofType('IssuedInvoice.EInvoiceStatusChanged')).toEqual([]);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([sending]);
  });

  it('a sending registered before the date was kept is placed from the invoice, or logged when it is gone', async () => {
    const { isdocDate: _date, ...older } = sending;
    const invoice = { Id: INVOICE, DocumentNumber: 'FV/1', IssueDate: '2026-03-01T00:00:00' };
    let invoiceExists = true;
    const api = Object.assign(
      rawAnswersApi(async () => rejected),
      {
        get: async () => {
          if (invoiceExists) return invoice;
          throw new NotFoundError({ method: 'GET', path: `/v1/IssuedInvoices/${INVOICE}` }, 404);
        },
      },
    ) as AccountingApi;
    const { deps, store, sendings } = await setup([], { api });
    await sendings.put(KEY, { sendings: [older] }, (await sendings.get(KEY))?.version);
    await trackEInvoices(deps, 'acme');
    expect(store.keys()).toEqual([`${ISDOC}.${sending.sendingId}.einvoice.json`]);

    invoiceExists = false;
    const other = { ...older, sendingId: '51000000-0000-4000-8000-000000000002' };
    await sendings.put(KEY, { sendings: [other] }, (await sendings.get(KEY))?.version);
    await trackEInvoices(deps, 'acme');
    expect(store.keys()).toHaveLength(1);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([]);
    expect(deps.logger.lines.some((e) => e.message === 'einvoice sending record not placed')).toBe(true);
  });
});
