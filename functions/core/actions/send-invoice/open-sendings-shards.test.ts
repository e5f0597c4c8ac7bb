/**
 * The open e-invoice sendings spread over shard items, against dynalite: more sendings of one
 * connection than one item could hold, each tracked to its final status, the legacy unsharded item
 * still followed and still guarding against a second sending, and a full shard refusing before
 * anything is sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import type { CheckpointStore } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '#test/actions/support.js';
import { rawAnswersApi } from '#test/fakes/raw-answers.js';
import { startTestServers, type TestServers } from '#test/support/embedded.js';
import { OpenSendingsFullError } from '../errors.js';
import {
  INTENT_LIMIT_BYTES,
  legacyTrackingKey,
  type OpenSending,
  type OpenSendings,
  openSendingsBytes,
  SENDING_SHARDS,
  SHARD_LIMIT_BYTES,
  sendingKey,
  shardKeys,
} from '../open-sendings.js';
import { trackEInvoices } from '../track-einvoices/einvoice-tracking.js';
import { sendEInvoiceOnce } from './send-einvoice.js';
import type { SendRun } from './sending-run.js';

const CONNECTION = 'acme';
/** Enough open sendings that together they pass one DynamoDB item's 400 KB (asserted below). */
const SENDINGS = 1_500;
let servers: TestServers;
beforeAll(async () => {
  servers = await startTestServers();
});
afterAll(async () => {
  await servers?.close();
});

/**
 * A service answering `Documents.sendEInvoice` with a new sending id and `EInvoicing.status` with
 * `Sent` on the first ask of a sending and the final `AP` after; and any invoice by id.
 */
function fakeService() {
  const asked = new Map<string, number>();
  const calls = { send: 0 };
  const api = rawAnswersApi(async (operationId, input) => {
    if (operationId === 'Documents.sendEInvoice') {
      calls.send += 1;
      return { SendingId: randomUUID(), Status: 'Queued' };
    }
    const id = String(input?.params?.sendingId);
    const n = (asked.get(id) ?? 0) + 1;
    asked.set(id, n);
    return n === 1 ? { Status: 'Sent' } : { Status: 'Delivered', ResponseCode: 'AP' };
  });
  // The invoice, read to place the record of a sending an older version registered (no date kept).
  const get = async (_collection: string, id: string) => ({ Id: id, IssueDate: '2026-03-04T00:00:00' });
  return { api: Object.assign(api, { get }) as AccountingApi, calls };
}

async function setup() {
  const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
  const sendings: CheckpointStore<OpenSendings> = createDynamoDbCheckpointStore<OpenSendings>({
    client: servers.dynamoDb,
    tableName: await servers.checkpointTable('sendings'),
  });
  const service = fakeService();
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = {
    api: service.api,
    publisher,
    clock,
    logger,
    config: { sending: { trackingDeadlineSeconds: 86_400 }, eventSource: 'accounting.acme' },
  };
  /** The e-invoice channel of the sending action for the invoice `recordId`. */
  const send = (recordId: string) => {
    const source = { recordType: 'IssuedInvoice', id: recordId, documentNumber: null, modifiedDate: null };
    const event = {
      eventId: randomUUID(),
      source: 'accounting.acme',
      detailType: 'IssuedInvoice.Created',
      time: clock.now(),
      envelope: { connection: CONNECTION, id: recordId },
    };
    const run = {
      deps,
      event,
      source,
      record: { Id: recordId, IssueDate: '2026-03-04' },
      ctx: { action: 'send.einvoice', event, source },
      log: { recordId },
      params: { collection: 'IssuedInvoices', id: recordId },
    } as unknown as SendRun;
    return sendEInvoiceOnce(run, sendings);
  };
  const records = createMemoryObjectStore();
  const track = () => trackEInvoices({ ...deps, sendings, records, maxOpenSendings: 500 }, CONNECTION);
  return { send, track, sendings, publisher, logger, calls: service.calls };
}

async function inBatches<T>(items: readonly T[], size: number, fn: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function shardsOf(sendings: CheckpointStore<OpenSendings>): Promise<OpenSendings[]> {
  const items = await Promise.all(shardKeys(CONNECTION).map((key) => sendings.get(key)));
  return items.map((item) => item?.value ?? { sendings: [] });
}

function openSending(recordId: string): OpenSending {
  return {
    sendingId: randomUUID(),
    connection: CONNECTION,
    eventSource: 'accounting.acme',
    source: { recordType: 'IssuedInvoice', id: recordId, documentNumber: 'FV1', modifiedDate: null },
    causationId: randomUUID(),
    sentAt: '2026-03-04T09:00:00.000Z',
    deadline: '2026-03-05T09:00:00.000Z',
    emitted: 0,
    lastStatus: null,
    lastCode: null,
  };
}

describe('open e-invoice sendings over shards (dynalite)', () => {
  // Some 6,000 dynalite requests: generous time for a busy machine, no claim on speed.
  it('tracks 1,500 sendings of one connection, every one to its final status', {
    timeout: 300_000,
  }, async () => {
    const { send, track, sendings, publisher, logger, calls } = await setup();
    const records = Array.from({ length: SENDINGS }, () => randomUUID());
    // 8 at a time: four times the sending route's `maxConcurrency`.
    await inBatches(records, 8, async (id) => expect(await send(id)).toMatchObject({ result: 'sent' }));
    expect(calls.send).toBe(SENDINGS);

    const shards = await shardsOf(sendings);
    const bytes = shards.map(openSendingsBytes);
    expect(shards.reduce((n, s) => n + s.sendings.length, 0)).toBe(SENDINGS);
    expect(shards.every((s) => s.sendings.length > 0 && (s.intents ?? []).length === 0)).toBe(true);
    // One item could not hold them (DynamoDB's 400 KB); the fullest shard is far below its limit.
    expect(bytes.reduce((a, b) => a + b, 0)).toBeGreaterThan(400 * 1024);
    expect(Math.max(...bytes)).toBeLessThan(SHARD_LIMIT_BYTES / 4);
    expect(await sendings.get(legacyTrackingKey(CONNECTION))).toBeUndefined();

    await expect(track()).resolves.toEqual({ open: SENDINGS, transitions: SENDINGS, closed: 0, expired: 0 });
    expect(logger.lines.filter((l) => l.message === 'many open einvoice sendings')).toHaveLength(1);
    await expect(track()).resolves.toEqual({ open: 0, transitions: SENDINGS, closed: SENDINGS, expired: 0 });

    const finals = publisher
      .ofType('IssuedInvoice.EInvoiceStatusChanged')
      .map((e) => e.detail as { source: { id: string }; final: boolean; responseCode: string | null })
      .filter((d) => d.final);
    expect(finals.every((d) => d.responseCode === 'AP')).toBe(true);
    expect(new Set(finals.map((d) => d.source.id))).toEqual(new Set(records));
    const after = await shardsOf(sendings);
    expect(after.every((s) => s.sendings.length === 0)).toBe(true);
    expect(
      after
        .flatMap((s) => s.finished ?? [])
        .map((f) => f.recordId)
        .sort(),
    ).toEqual([...records].sort());
    // A redelivery of any of them finds its finished entry in its shard and does not send again.
    await inBatches(records.slice(0, 50), 25, async (id) =>
      expect(await send(id)).toMatchObject({ result: 'sent' }),
    );
    expect(calls.send).toBe(SENDINGS);
  });

  it('follows the legacy unsharded item to the end and keeps it guarding, never adding to it', async () => {
    const { send, track, sendings, publisher, calls } = await setup();
    const [open, closed, interrupted] = [randomUUID(), randomUUID(), randomUUID()];
    const legacy = legacyTrackingKey(CONNECTION);
    const openEntry = openSending(open);
    await sendings.put(
      legacy,
      {
        sendings: [openEntry],
        intents: [{ recordId: interrupted, at: '2026-03-04T09:59:00.000Z' }],
        finished: [{ recordId: closed, sendingId: randomUUID(), at: '2026-03-04T09:30:00.000Z' }],
      },
      undefined,
    );
    // Each of the three prevents a sending; a new invoice is registered in its shard only.
    await expect(send(open)).resolves.toEqual({ result: 'sent', sendingId: openEntry.sendingId });
    await expect(send(closed)).resolves.toMatchObject({ result: 'sent' });
    await expect(send(interrupted)).resolves.toEqual({ result: 'outcomeUnknown' });
    expect(calls.send).toBe(0);
    const fresh = randomUUID();
    await expect(send(fresh)).resolves.toMatchObject({ result: 'sent' });
    expect(calls.send).toBe(1);
    const legacyNow = (await sendings.get(legacy))?.value;
    expect(legacyNow?.sendings).toEqual([openEntry]);
    expect(legacyNow?.intents).toEqual([]);

    await track();
    await track();
    const finals = publisher
      .ofType('IssuedInvoice.EInvoiceStatusChanged')
      .filter((e) => (e.detail as { final: boolean }).final)
      .map((e) => (e.detail as { sendingId: string }).sendingId);
    expect(finals).toContain(openEntry.sendingId);
    expect(finals).toHaveLength(2);
    // Closed: gone from the legacy item, its finished entry in its shard, still guarding.
    expect((await sendings.get(legacy))?.value.sendings).toEqual([]);
    expect((await sendings.get(sendingKey(CONNECTION, open)))?.value.finished).toContainEqual(
      expect.objectContaining({ recordId: open, sendingId: openEntry.sendingId }),
    );
    await expect(send(open)).resolves.toEqual({ result: 'sent', sendingId: openEntry.sendingId });
    expect(calls.send).toBe(1);
  });

  it('warns of a shard past half its size, and refuses an intent that does not fit before sending', async () => {
    const { send, sendings, logger, calls } = await setup();
    const recordId = randomUUID();
    const key = sendingKey(CONNECTION, recordId);
    const sameShard = () => {
      for (;;) {
        const id = randomUUID();
        if (sendingKey(CONNECTION, id) === key) return id;
      }
    };
    const full: OpenSendings = { sendings: [] };
    while (openSendingsBytes(full) < SHARD_LIMIT_BYTES / 2) full.sendings.push(openSending(sameShard()));
    await sendings.put(key, full, undefined);
    await expect(send(recordId)).resolves.toMatchObject({ result: 'sent' });
    expect(logger.lines.find((l) => l.message === 'einvoice sendings shard filling')?.data).toMatchObject({
      key,
      open: full.sendings.length + 1,
    });

    const filled = (await sendings.get(key))?.value as OpenSendings;
    while (openSendingsBytes(filled) < INTENT_LIMIT_BYTES - 200)
      filled.sendings.push(openSending(sameShard()));
    const stored = await sendings.get(key);
    await sendings.put(key, filled, stored?.version);
    const error = await send(sameShard()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenSendingsFullError);
    expect((error as OpenSendingsFullError).key).toBe(key);
    expect((error as Error).message).toContain(`limit of ${INTENT_LIMIT_BYTES}`);
    expect(calls.send).toBe(1);
    expect((await sendings.get(key))?.value).toEqual(filled);
    expect(shardKeys(CONNECTION)).toHaveLength(SENDING_SHARDS);
  });
});
