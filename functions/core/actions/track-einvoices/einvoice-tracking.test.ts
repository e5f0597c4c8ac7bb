import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#functions/accounting/errors.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { createManualClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '#test/actions/support.js';
import { rawAnswersApi } from '#test/fakes/raw-answers.js';
import { type OpenSending, type OpenSendings, sendingKey } from '../open-sendings.js';
import { trackEInvoices } from './einvoice-tracking.js';
import { einvoiceStatusChangedEntry, einvoiceStatusChangedSchema } from './events.js';

/** The shard of the invoice below. */
const KEY = sendingKey('acme', '1f000000-0000-4000-8000-000000000001');

const sending: OpenSending = {
  sendingId: '51000000-0000-4000-8000-000000000001',
  connection: 'acme',
  eventSource: 'accounting.acme',
  source: {
    recordType: 'IssuedInvoice',
    id: '1f000000-0000-4000-8000-000000000001',
    documentNumber: 'FV1',
    modifiedDate: '2026-03-01T08:00:00Z',
  },
  causationId: 'e-1',
  sentAt: '2026-03-01T08:00:00.000Z',
  deadline: '2026-03-08T08:00:00.000Z',
  emitted: 0,
  lastStatus: null,
  lastCode: null,
  isdocDate: '2026-03-01',
};

describe('e-invoice tracking without a status history', () => {
  it('emits each observed change once and closes on a final response code', async () => {
    const answers = [
      { Status: 'Sent' },
      { Status: 'Sent' },
      { Status: 'Delivered', ResponseCode: 'AB' },
      { Status: 'Delivered', ResponseCode: 'RE' },
    ];
    const api = rawAnswersApi(async () => answers.shift());
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    await sendings.put(KEY, { sendings: [sending] }, undefined);
    const publisher = recordingPublisher();
    const deps = {
      api,
      sendings,
      publisher,
      clock: createManualClock(),
      logger: recordingLogger(),
      records: createMemoryObjectStore(),
    };

    for (let i = 0; i < 4; i += 1) await trackEInvoices(deps, 'acme');

    const changes = publisher
      .ofType('IssuedInvoice.EInvoiceStatusChanged')
      .map(
        (e) => e.detail as { sequence: number; status: string; responseCode: string | null; final: boolean },
      );
    expect(changes.map((c) => [c.sequence, c.status, c.responseCode, c.final])).toEqual([
      [1, 'Sent', null, false],
      [2, 'Delivered', 'AB', false],
      [3, 'Delivered', 'RE', true],
    ]);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([]);
  });

  it('closes a sending the service no longer knows with one final Unknown status', async () => {
    let calls = 0;
    const api = rawAnswersApi(async () => {
      calls += 1;
      if (calls === 1) return { Status: 'Delivered', ResponseCode: 'AB' };
      throw new NotFoundError({ method: 'GET', path: '/v1/EInvoicing/Sendings/s-1' }, 404);
    });
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    await sendings.put(KEY, { sendings: [sending] }, undefined);
    const publisher = recordingPublisher();
    const deps = {
      api,
      sendings,
      publisher,
      clock: createManualClock(),
      logger: recordingLogger(),
      records: createMemoryObjectStore(),
    };

    for (let i = 0; i < 3; i += 1) await trackEInvoices(deps, 'acme');

    const changes = publisher
      .ofType('IssuedInvoice.EInvoiceStatusChanged')
      .map((e) => e.detail as { status: string; final: boolean });
    expect(changes.map((c) => [c.status, c.final])).toEqual([
      ['Delivered', false],
      ['Unknown', true],
    ]);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([]);
    expect(calls).toBe(2);
  });

  it('keeps what it learned and rethrows when the service fails mid-pass', async () => {
    const second = { ...sending, sendingId: '51000000-0000-4000-8000-000000000002' };
    let calls = 0;
    const api = rawAnswersApi(async () => {
      calls += 1;
      if (calls === 2) throw new Error('503');
      return { Status: 'Sent' };
    });
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    await sendings.put(KEY, { sendings: [sending, second] }, undefined);
    const publisher = recordingPublisher();
    const deps = {
      api,
      sendings,
      publisher,
      clock: createManualClock(),
      logger: recordingLogger(),
      records: createMemoryObjectStore(),
    };
    await expect(trackEInvoices(deps, 'acme')).rejects.toThrow('503');
    const stored = (await sendings.get(KEY))?.value.sendings;
    expect(stored?.map((s) => [s.sendingId, s.emitted, s.lastStatus])).toEqual([
      ['51000000-0000-4000-8000-000000000001', 1, 'Sent'],
      ['51000000-0000-4000-8000-000000000002', 0, null],
    ]);
  });
});

describe('e-invoice tracking on the Slovak leg (Message Level Status)', () => {
  it('maps AB then AP with a warning, keeps RE with its reason and rule ids, and closes on AP or RE', async () => {
    const other = { ...sending, sendingId: '51000000-0000-4000-8000-000000000002' };
    const byId: Record<string, unknown[]> = {
      [sending.sendingId]: [
        { Status: 'Sent', MessageLevelStatus: null, MessageLevelReasons: [] },
        { Status: 'Delivered', MessageLevelStatus: 'AB', MessageLevelReasons: [] },
        {
          Status: 'Delivered',
          MessageLevelStatus: 'AP',
          MessageLevelReasons: [{ Code: 'BW', RuleIds: ['PEPPOL-EN16931-R002'], Description: 'One note.' }],
        },
      ],
      [other.sendingId]: [
        {
          Status: 'Rejected',
          MessageLevelStatus: 'RE',
          MessageLevelReasons: [
            {
              Code: 'BV',
              RuleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'],
              Description: 'Business rules failed',
            },
          ],
        },
      ],
    };
    const api = rawAnswersApi(async (_operation, input) => {
      const id = JSON.stringify(input).includes(other.sendingId) ? other.sendingId : sending.sendingId;
      const list = byId[id] as unknown[];
      return list.length > 1 ? list.shift() : list[0];
    });
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    await sendings.put(KEY, { sendings: [sending, other] }, undefined);
    const publisher = recordingPublisher();
    const deps = {
      api,
      sendings,
      publisher,
      clock: createManualClock(),
      logger: recordingLogger(),
      records: createMemoryObjectStore(),
    };

    for (let i = 0; i < 4; i += 1) await trackEInvoices(deps, 'acme');

    const changes = publisher.ofType('IssuedInvoice.EInvoiceStatusChanged').map((e) => {
      const parsed = einvoiceStatusChangedSchema.parse(e.detail);
      return [parsed.sendingId.slice(-1), parsed.status, parsed.responseCode, parsed.mls, parsed.final];
    });
    expect(changes).toEqual([
      ['1', 'Sent', null, null, false],
      [
        '2',
        'Rejected',
        null,
        {
          code: 'RE',
          reasons: [
            {
              code: 'BV',
              ruleIds: ['BR-CO-10', 'PEPPOL-EN16931-R120'],
              description: 'Business rules failed',
            },
          ],
        },
        true,
      ],
      ['1', 'Delivered', null, { code: 'AB', reasons: [] }, false],
      [
        '1',
        'Delivered',
        null,
        { code: 'AP', reasons: [{ code: 'BW', ruleIds: ['PEPPOL-EN16931-R002'], description: 'One note.' }] },
        true,
      ],
    ]);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([]);
  });

  it('refuses an MLS code outside AP, AB, RE, naming the field, and changes nothing', async () => {
    const api = rawAnswersApi(async () => ({ Status: 'Delivered', MessageLevelStatus: 'XX' }));
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    await sendings.put(KEY, { sendings: [sending] }, undefined);
    const publisher = recordingPublisher();
    const deps = {
      api,
      sendings,
      publisher,
      clock: createManualClock(),
      logger: recordingLogger(),
      records: createMemoryObjectStore(),
    };
    await expect(trackEInvoices(deps, 'acme')).rejects.toThrow(/MessageLevelStatus/);
    expect(publisher.ofType('IssuedInvoice.EInvoiceStatusChanged')).toEqual([]);
    expect((await sendings.get(KEY))?.value.sendings).toEqual([sending]);
  });

  it('a detail of catalog version 6 (no mls) is still valid', () => {
    const { mls: _mls, ...v6 } = einvoiceStatusChangedEntry.example;
    expect(einvoiceStatusChangedSchema.safeParse(v6).success).toBe(true);
    expect(einvoiceStatusChangedSchema.safeParse(einvoiceStatusChangedEntry.example).success).toBe(true);
  });
});
