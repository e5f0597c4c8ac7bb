import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import type { Clock, ObjectStore } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import {
  CONNECTION,
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '#test/actions/support.js';
import { parseActionEvent } from '../action-event.js';
import { loadActionsConfig } from '../actions-config.js';
import { RetryLaterError } from '../errors.js';
import { createActionEntry } from '../run-action.js';
import { archiveIsdoc } from './archive-isdoc.js';
import { isdocKey } from './isdoc-key.js';

const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z', autoAdvance: true });
const bed = useActionTestBed({
  clock,
  isdocReadyDelayMs: 5_000,
  sizes: { documents: 30, partners: 6, perCollection: { IssuedInvoices: 6, IssuedAdvanceInvoices: 2 } },
});

const config = loadActionsConfig({ ACTIONS_ISDOC_NOT_READY_DEADLINE_SECONDS: '600' });
const schema = createXsdIsdocSchema();

function setup(
  objects: ObjectStore,
  options: { api?: AccountingApi; clock?: Clock; config?: typeof config } = {},
) {
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = {
    api: options.api ?? bed.sb.client,
    objects,
    publisher,
    clock: options.clock ?? clock,
    logger,
    schema,
    config: options.config ?? config,
  };
  const entry = createActionEntry('archive-isdoc', logger, (event) => archiveIsdoc(deps, event));
  return { entry, publisher, logger };
}

async function s3Store(): Promise<ObjectStore> {
  return createS3ObjectStore({
    client: bed.servers.s3,
    bucket: await bed.servers.bucket('archive'),
    listApiVersion: 1,
  });
}

async function bytesOf(stream: Readable | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream ?? Readable.from([])) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

describe('ISDOC archive (sandbox + s3rver)', () => {
  it('archives a validated ISDOC once, under the deterministic key, with its checksum and metadata', async () => {
    const objects = await s3Store();
    const { entry, publisher } = setup(objects);
    const [invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    const record = invoice as ApiRecord;
    const event = recordEvent('IssuedInvoice', record);
    const number = String(record.DocumentNumber);
    const issue = String(record.IssueDate);
    const key = `isdoc/${CONNECTION}/IssuedInvoice/${issue.slice(0, 4)}/${issue.slice(5, 7)}/${number}_${record.Id}.isdoc`;

    await expect(entry(event)).resolves.toMatchObject({ status: 'done' });
    const firstWrite = (await objects.head(key))?.lastModified;
    // A redelivery of the same event writes nothing (it re-announces, same idempotency key).
    await expect(entry(event)).resolves.toMatchObject({ status: 'duplicate' });
    // Another event of the same version (e.g. an Updated with no ISDOC change) is a no-op too.
    await expect(entry(recordEvent('IssuedInvoice', record, { change: 'Updated' }))).resolves.toMatchObject({
      status: 'duplicate',
    });

    expect(
      isdocKey({
        connection: CONNECTION,
        recordType: 'IssuedInvoice',
        documentNumber: number,
        id: record.Id,
        date: issue,
      }),
    ).toBe(key);

    const stored = await bytesOf(await objects.get(key));
    const download = await bed.sb.client.isdoc({ collection: 'IssuedInvoices', id: record.Id });
    const original = 'body' in download ? await bytesOf(download.body) : Buffer.alloc(0);
    expect(stored.equals(original)).toBe(true);
    const sha = createHash('sha256').update(stored).digest('hex');

    const info = await objects.head(key);
    expect(info).toMatchObject({
      contentType: 'application/xml',
      checksumSha256: Buffer.from(sha, 'hex').toString('base64'),
      metadata: {
        'document-id': record.Id,
        'document-number': number,
        'event-id': event.id,
        sha256: sha,
        'isdoc-schema': 'valid',
      },
    });
    expect(info?.lastModified).toEqual(firstWrite);
    const archived = publisher.ofType('IssuedInvoice.IsdocArchived');
    const keys = new Set(archived.map((e) => (e.detail as { idempotencyKey: string }).idempotencyKey));
    expect(keys.size).toBe(1);
    expect(archived[0]?.detail).toMatchObject({
      documentNumber: number,
      causationId: event.id,
      archive: { key, sha256: sha, size: stored.length, contentType: 'application/xml' },
      schema: 'ISDOC 6.0.2',
      schemaValid: true,
      schemaErrors: [],
      schemaErrorCount: 0,
    });
  });

  it('retries a 204 (not ready) later and archives once it is ready', async () => {
    const objects = await s3Store();
    const { entry, publisher } = setup(objects);
    const [template] = await listAll(bed.sb.client, 'IssuedInvoices');
    const { Id: _id, ...fields } = template as ApiRecord;
    const fresh = bed.sb.sandbox.state.create('IssuedInvoices', {
      ...fields,
      DocumentNumber: 'FV2026999001',
    });
    const record = await bed.sb.client.get('IssuedInvoices', fresh.Id);
    const event = recordEvent('IssuedInvoice', record, { time: clock.now() });

    const sleepsBefore = clock.sleeps.length;
    await expect(entry(event)).rejects.toBeInstanceOf(RetryLaterError);
    expect(clock.sleeps.length - sleepsBefore).toBe(config.isdoc.notReadyAttempts - 1);
    expect(publisher.events).toHaveLength(0);

    clock.advance(2_000); // the redelivery comes after the visibility timeout
    await expect(entry(event)).resolves.toMatchObject({ status: 'done' });
    expect(publisher.ofType('IssuedInvoice.IsdocArchived')).toHaveLength(1);
  });

  it('archives the PDF beside the ISDOC when configured', async () => {
    const objects = await s3Store();
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const withPdf = loadActionsConfig({ ACTIONS_ISDOC_PDF: 'true' });
    const [, invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    const event = recordEvent('IssuedInvoice', invoice as ApiRecord);
    const deps = { api: bed.sb.client, objects, publisher, clock, logger, schema, config: withPdf };
    await expect(archiveIsdoc(deps, parseActionEvent(event))).resolves.toMatchObject({ status: 'done' });
    const detail = publisher.ofType('IssuedInvoice.IsdocArchived')[0]?.detail as {
      archive: { key: string; pdfKey?: string };
    };
    expect(detail.archive.pdfKey).toBe(detail.archive.key.replace(/\.isdoc$/, '.pdf'));
    const pdf = await objects.head(detail.archive.pdfKey ?? '');
    expect(pdf).toMatchObject({
      contentType: 'application/pdf',
      metadata: { 'document-id': (invoice as ApiRecord).Id },
    });
    expect((await bytesOf(await objects.get(detail.archive.pdfKey ?? ''))).subarray(0, 5).toString()).toBe(
      '%PDF-',
    );
  });

  it('fails with Action.Failed once the not-ready deadline has passed', async () => {
    const objects = await s3Store();
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.isdoc = async () => ({ notReady: true });
    const { entry, publisher } = setup(objects, { api });
    const [invoice] = await listAll(bed.sb.client, 'IssuedAdvanceInvoices');
    const event = recordEvent('IssuedAdvanceInvoice', invoice as ApiRecord, { time: clock.now() });
    await expect(entry(event)).rejects.toBeInstanceOf(RetryLaterError);
    clock.advance(601_000);
    await expect(entry(event)).resolves.toMatchObject({ status: 'failed', reason: 'notReady' });
    expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
      action: 'archive.isdoc',
      recordType: 'IssuedAdvanceInvoice',
      problem: { kind: 'notReady' },
    });
  });

  it('refuses an ISDOC whose ID does not match the document number and writes nothing', async () => {
    const objects = await s3Store();
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.isdoc = async () => ({
      body: Readable.from([
        '<Invoice xmlns="http://isdoc.cz/namespace/2013" version="6.0.2"><ID>OTHER-1</ID></Invoice>',
      ]),
      contentType: 'application/xml',
    });
    const { entry, publisher } = setup(objects, { api });
    const [invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    await expect(entry(recordEvent('IssuedInvoice', invoice as ApiRecord))).resolves.toMatchObject({
      status: 'failed',
      reason: 'invalidDocument',
    });
    expect(publisher.ofType('Action.Failed')[0]?.detail).toMatchObject({
      problem: { kind: 'invalidDocument', message: expect.stringContaining('expected the document number') },
    });
    const keys: string[] = [];
    for await (const o of objects.list('isdoc/')) keys.push(o.key);
    expect(keys).toEqual([]);
  });
});

/** The sandbox's ISDOC of `record` as the service had written it before: the bank account cut to its number. */
async function schemaInvalidApi(record: ApiRecord): Promise<{ api: AccountingApi; xml: string }> {
  const download = await bed.sb.client.isdoc({ collection: 'IssuedInvoices', id: record.Id });
  const valid = 'body' in download ? (await bytesOf(download.body)).toString('utf8') : '';
  const xml = valid.replace(/<BankCode>.*?<\/BIC>/, '');
  expect(xml).not.toBe(valid);
  const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
  api.isdoc = async () => ({ body: Readable.from([xml]), contentType: 'application/xml' });
  return { api, xml };
}

async function keysUnder(objects: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of objects.list(prefix)) keys.push(o.key);
  return keys;
}

describe('ISDOC archive: the verdict of the ISDOC 6.0.2 schema', () => {
  it('archives a document the schema rejects with the verdict invalid, in the metadata and the event', async () => {
    const objects = await s3Store();
    const [, , invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    const record = invoice as ApiRecord;
    const { api, xml } = await schemaInvalidApi(record);
    const { entry, publisher } = setup(objects, { api });

    await expect(entry(recordEvent('IssuedInvoice', record))).resolves.toMatchObject({ status: 'done' });
    const detail = publisher.ofType('IssuedInvoice.IsdocArchived')[0]?.detail as {
      archive: { key: string };
      schemaValid: boolean;
      schemaErrors: string[];
      schemaErrorCount: number;
    };
    expect(detail).toMatchObject({ schema: 'ISDOC 6.0.2', schemaValid: false, schemaErrorCount: 1 });
    expect(detail.schemaErrors).toEqual([
      expect.stringMatching(/VariableSymbol'?: This element is not expected\. Expected is .*BankCode/),
    ]);
    expect((await objects.head(detail.archive.key))?.metadata['isdoc-schema']).toBe('invalid');
    expect((await bytesOf(await objects.get(detail.archive.key))).toString('utf8')).toBe(xml);
    expect(publisher.ofType('Action.Failed')).toHaveLength(0);
  });

  it('strict: refuses it with Action.Failed naming the schema errors, and keeps it under rejected/', async () => {
    const objects = await s3Store();
    const [, , , invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    const record = invoice as ApiRecord;
    const { api, xml } = await schemaInvalidApi(record);
    const strict = loadActionsConfig({ ACTIONS_ISDOC_SCHEMA_STRICT: 'true' });
    const { entry, publisher } = setup(objects, { api, config: strict });
    const event = recordEvent('IssuedInvoice', record);

    await expect(entry(event)).resolves.toMatchObject({ status: 'failed', reason: 'invalidDocument' });
    expect(publisher.ofType('IssuedInvoice.IsdocArchived')).toHaveLength(0);
    const failed = publisher.ofType('Action.Failed')[0]?.detail as
      | { problem: Record<string, unknown> }
      | undefined;
    const problem = failed?.problem;
    const key = isdocKey({
      connection: CONNECTION,
      recordType: 'IssuedInvoice',
      documentNumber: String(record.DocumentNumber),
      id: record.Id,
      date: String(record.IssueDate),
    });
    expect(problem).toMatchObject({
      kind: 'invalidDocument',
      message: expect.stringMatching(
        new RegExp(
          `^the ISDOC fails the ISDOC 6\\.0\\.2 schema \\(1 error\\): .*BankCode.*; kept as rejected/${key}$`,
        ),
      ),
      errors: { schema: [expect.stringContaining('BankCode')] },
    });
    expect(await keysUnder(objects, `isdoc/${CONNECTION}/`)).not.toContain(key);
    const kept = await objects.head(`rejected/${key}`);
    expect(kept?.metadata).toMatchObject({ 'isdoc-schema': 'invalid', 'document-id': record.Id });
    expect((await bytesOf(await objects.get(`rejected/${key}`))).toString('utf8')).toBe(xml);
  });

  it('strict: a valid document is archived as usual', async () => {
    const objects = await s3Store();
    const [, , , , invoice] = await listAll(bed.sb.client, 'IssuedInvoices');
    const strict = loadActionsConfig({ ACTIONS_ISDOC_SCHEMA_STRICT: 'true' });
    const { entry, publisher } = setup(objects, { config: strict });
    await expect(entry(recordEvent('IssuedInvoice', invoice as ApiRecord))).resolves.toMatchObject({
      status: 'done',
    });
    expect(publisher.ofType('IssuedInvoice.IsdocArchived')[0]?.detail).toMatchObject({ schemaValid: true });
    expect(await keysUnder(objects, 'rejected/')).toEqual([]);
  });
});

describe('ISDOC archive: If-None-Match race (aws-sdk-client-mock; s3rver ignores the condition)', () => {
  const xml =
    '<Invoice xmlns="http://isdoc.cz/namespace/2013" version="6.0.2"><ID>FV2026000001</ID></Invoice>';
  const sha = createHash('sha256').update(xml).digest('hex');
  const record: ApiRecord = {
    Id: '0b7a4f2e-4c1d-4e8f-9a2b-3c4d5e6f7a81',
    DocumentNumber: 'FV2026000001',
    IssueDate: '2026-02-10T00:00:00',
    ModificationInfo: { CreatedDate: '2026-02-10T08:00:00Z', ModifiedDate: '2026-02-10T08:00:00Z' },
  };
  const api = {
    get: async () => record,
    isdoc: async () => ({ body: Readable.from([xml]), contentType: 'application/xml' }),
  } as unknown as AccountingApi;
  const preconditionFailed = () =>
    new S3ServiceException({
      name: 'PreconditionFailed',
      $fault: 'client',
      $metadata: { httpStatusCode: 412 },
      message: 'At least one of the pre-conditions you specified did not hold',
    });

  it('treats a concurrent write of the same content as a no-op', async () => {
    const s3 = mockClient(S3Client);
    s3.on(HeadObjectCommand)
      .rejectsOnce(new NotFound({ $metadata: { httpStatusCode: 404 }, message: 'Not Found' }))
      .resolves({ ContentLength: xml.length, Metadata: { sha256: sha, 'event-id': 'another-event' } });
    s3.on(PutObjectCommand).rejects(preconditionFailed());
    const objects = createS3ObjectStore({
      client: new S3Client({ region: 'eu-central-1' }),
      bucket: 'archive',
    });
    const { entry, publisher } = setup(objects, { api, clock: createManualClock() });

    await expect(entry(recordEvent('IssuedInvoice', record))).resolves.toMatchObject({ status: 'duplicate' });
    const puts = s3.commandCalls(PutObjectCommand);
    expect(puts).toHaveLength(1);
    expect(puts[0]?.args[0].input).toMatchObject({
      IfNoneMatch: '*',
      ContentType: 'application/xml',
      ChecksumSHA256: Buffer.from(sha, 'hex').toString('base64'),
    });
    expect(publisher.events).toHaveLength(0);
    s3.restore();
  });

  it('replaces an older version that won the race with different content', async () => {
    const s3 = mockClient(S3Client);
    s3.on(HeadObjectCommand)
      .rejectsOnce(new NotFound({ $metadata: { httpStatusCode: 404 }, message: 'Not Found' }))
      .resolves({
        Metadata: { sha256: 'f'.repeat(64), 'modified-date': encodeURIComponent('2026-01-01T00:00:00Z') },
      });
    s3.on(PutObjectCommand).rejectsOnce(preconditionFailed()).resolves({});
    const objects = createS3ObjectStore({
      client: new S3Client({ region: 'eu-central-1' }),
      bucket: 'archive',
    });
    const { entry, publisher } = setup(objects, { api, clock: createManualClock() });

    await expect(entry(recordEvent('IssuedInvoice', record))).resolves.toMatchObject({ status: 'done' });
    const puts = s3.commandCalls(PutObjectCommand);
    expect(puts).toHaveLength(2);
    expect(puts[1]?.args[0].input.IfNoneMatch).toBeUndefined();
    expect(publisher.ofType('IssuedInvoice.IsdocArchived')).toHaveLength(1);
    s3.restore();
  });
});
