/**
 * Forged and hostile events against the real action entries (the ones the SQS handlers and the
 * local bus call), the real sandbox, s3rver and dynalite. Each input must have zero effects: no
 * side-effecting request reaches the sandbox, no e-mail, no object written, no outcome published
 * but `Action.Failed` (a dead-letter entry is fine). Routing is checked with the routing table and
 * the same matcher the local bus uses; then every input is also delivered straight to every
 * action, as if it had been put on a queue directly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { InvalidArgumentError } from '#functions/accounting/errors.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { archiveIsdocAction } from '#functions/core/actions/archive-isdoc/action.js';
import type { ActionsConfig } from '#functions/core/actions/config.js';
import type { OpenSendings } from '#functions/core/actions/open-sendings.js';
import type { ActionEntry } from '#functions/core/actions/run-action.js';
import { sendInvoiceAction } from '#functions/core/actions/send-invoice/action.js';
import { transferDocumentsAction } from '#functions/core/actions/transfer-documents/action.js';
import { matchesPattern } from '#functions/core/event-pattern.js';
import { buildRoutes } from '#functions/core/routes.js';
import { defineSqsAction } from '#functions/handlers/action-runtime.js';
import { createManualClock } from '#functions/shared/clock.js';
import { registryOfOne, registryOfOneEntry } from '../actions/registry-of-one.js';
import {
  CONNECTION,
  listAll,
  type RecordingPublisher,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '../actions/support.js';
import { cli } from '../local/cli-harness.js';
import { sqsRecord } from '../support/event-fixtures.js';
import { effectsBetween, HOSTILE_IDS, NO_EFFECTS, snapshot } from './support.js';

const { createHandler: transferHandler } = defineSqsAction(transferDocumentsAction);

const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z', autoAdvance: true });
const bed = useActionTestBed({
  clock,
  sizes: { documents: 60, partners: 8, perCollection: { IssuedInvoices: 12, ReceivedOrders: 12 } },
});

type Event = ReturnType<typeof recordEvent>;
let tried = 0;
let effectsSeen = 0;

let bucket: string;
let invoices: ApiRecord[];
let orders: ApiRecord[];
let config: ActionsConfig;
let entries: Record<string, ActionEntry>;
let publisher: RecordingPublisher;

const partnerOf = (r: ApiRecord) =>
  (r.BusinessPartnerAddress as { IdentificationNumber?: string | null } | null)?.IdentificationNumber ?? null;
const emailOf = (r: ApiRecord) =>
  (r.BusinessPartnerAddress as { Email?: string | null } | null)?.Email ?? null;

/** Every action on the one per-connection path, the deployment's registry of one with `settings`. */
async function armedEntries(settings: Record<string, string>): Promise<Record<string, ActionEntry>> {
  const { servers, sb } = bed;
  const logger = recordingLogger();
  const guard = createPowertoolsGuard({
    client: servers.dynamoDb,
    tableName: await servers.idempotencyTable(),
    expiresAfterSeconds: 3600,
  });
  const sendings = createDynamoDbCheckpointStore<OpenSendings>({
    client: servers.dynamoDb,
    tableName: await servers.checkpointTable(),
  });
  const objects = createS3ObjectStore({ client: servers.s3, bucket, listApiVersion: 1 });
  const base = { api: sb.client, publisher, clock, logger };
  return {
    'transfer-documents': registryOfOneEntry(
      transferDocumentsAction,
      settings,
      () => ({ ...base, idempotency: guard }),
      logger,
    ),
    'archive-isdoc': registryOfOneEntry(
      archiveIsdocAction,
      settings,
      () => ({ ...base, archive: objects, isdocSchema: createXsdIsdocSchema() }),
      logger,
    ),
    'send-invoice': registryOfOneEntry(
      sendInvoiceAction,
      settings,
      () => ({ ...base, idempotency: guard, actionState: sendings }),
      logger,
    ),
  };
}

beforeAll(async () => {
  bucket = await bed.servers.bucket('security');
  invoices = (await listAll(bed.sb.client, 'IssuedInvoices')).filter((i) => partnerOf(i) && emailOf(i));
  orders = await listAll(bed.sb.client, 'ReceivedOrders');
  expect(invoices.length).toBeGreaterThan(1);
  const settings = {
    // The partner lists decide the channel here (sk defaults to the mandate's policy).
    ACTIONS_EINVOICING: 'lists',
    ACTIONS_EMAIL_PARTNERS: partnerOf(invoices[0]!)!,
    // One partner per channel: the other partners' invoices are not for sending.
    ACTIONS_EINVOICE_PARTNERS: String(invoices.map(partnerOf).find((p) => p !== partnerOf(invoices[0]!))),
  };
  config = loadActionsConfig({ ACCOUNTING_CONNECTION: CONNECTION, ...settings });
  publisher = recordingPublisher();
  entries = await armedEntries(settings);
});

afterAll(() => {
  console.info(`security: hostile events tried ${tried}, effects ${effectsSeen}`);
});

/** Routes `event` with the table, then delivers it to every action; asserts zero effects. */
async function expectNoEffects(event: unknown, expectedRoutes: string[] | 'any' = []) {
  tried++;
  const before = await snapshot(bed.sb.sandbox, { client: bed.servers.s3, bucket });
  publisher.events.length = 0;
  const routed = buildRoutes(config)
    .filter((r) => matchesPattern(r.pattern, event as Parameters<typeof matchesPattern>[1]))
    .map((r) => r.id);
  if (expectedRoutes !== 'any') expect(routed).toEqual(expectedRoutes);
  const results = [];
  for (const entry of Object.values(entries)) results.push(await entry(event, { remainingTimeMs: 30_000 }));
  const effects = effectsBetween(before, await snapshot(bed.sb.sandbox, { client: bed.servers.s3, bucket }), [
    ...publisher.events,
  ]);
  effectsSeen += effects.sideEffects + effects.emails + effects.objects + effects.outcomes;
  expect(effects).toEqual(NO_EFFECTS);
  return results;
}

const unfinished = () => orders.find((o) => o.Status === 'Unfinished') as ApiRecord;

describe('forged events', () => {
  it('a foreign source matches no route and every action refuses it', async () => {
    for (const source of ['anything.at.all', 'accounting.other', 'accounting.acme ', '', 'aws.events']) {
      for (const event of [
        recordEvent('ReceivedOrder', unfinished()),
        recordEvent('IssuedInvoice', invoices[0]!),
      ]) {
        const tampered = {
          ...event,
          source,
          detail: { ...event.detail, record: { ...event.detail.record, Email: 'x@evil.example' } },
        };
        const results = await expectNoEffects(tampered);
        for (const r of results) expect(r.status).toBe('invalid');
      }
    }
  });

  it('wrong, unknown and mismatched detail-types are refused', async () => {
    const order = recordEvent('ReceivedOrder', unfinished());
    const variants: Event[] = [
      { ...order, 'detail-type': 'Unknown.Created' },
      { ...order, 'detail-type': 'ReceivedOrder.Transferred' },
      { ...order, 'detail-type': 'Action.Failed' },
      { ...order, 'detail-type': 'IssuedInvoice.Created' },
      { ...order, 'detail-type': 'receivedorder.created' },
      { ...order, 'detail-type': '' },
    ];
    for (const event of variants) {
      // A record event of another type may match that type's routes; every action still refuses it.
      const results = await expectNoEffects(
        event,
        event['detail-type'] === 'IssuedInvoice.Created' ? 'any' : [],
      );
      for (const r of results) expect(r.status).toBe('invalid');
    }
  });

  it('an oversized detail is refused before anything is read', async () => {
    const event = recordEvent('ReceivedOrder', { ...unfinished(), Note: 'x'.repeat(1_100_000) });
    const results = await expectNoEffects(event, ['transfer-received-order']);
    for (const r of results) expect(r.status).toBe('invalid');
  });

  it('malformed JSON goes to the dead-letter queue on its first receive', async () => {
    const dlq: string[] = [];
    const logger = recordingLogger();
    const guard = {
      run: async () => {
        throw new Error('must not run');
      },
    };
    const handler = transferHandler({
      ...registryOfOne(
        {},
        () => ({ api: bed.sb.client, publisher, clock, logger, idempotency: guard }),
        logger,
      ),
      deadLetters: {
        send: async (body) => {
          dlq.push(body);
        },
      },
    });
    const bodies = ['{"detail-type":', 'null', '[]', '"text"', '{}', '\u0000'];
    const before = await snapshot(bed.sb.sandbox);
    const response = await handler(
      {
        Records: bodies.map((body, i) => sqsRecord(`m-${i}`, body)),
      },
      { getRemainingTimeInMillis: () => 30_000 } as Context,
    );
    tried += bodies.length;
    expect(response.batchItemFailures).toEqual([]);
    expect(dlq).toEqual(bodies);
    expect((await snapshot(bed.sb.sandbox)).requests).toBe(before.requests);
  });
});

describe('tampered records with a valid source: the service decides', () => {
  it('a status edited to Unfinished transfers nothing', async () => {
    const done = orders.find((o) => o.Status !== 'Unfinished') as ApiRecord;
    expect(done).toBeDefined();
    const event = recordEvent('ReceivedOrder', { ...done, Status: 'Unfinished' });
    const results = await expectNoEffects(event, ['transfer-received-order']);
    expect(results[0]).toMatchObject({ status: 'skipped' });
  });

  it('a partner edited into the sending rules sends nothing', async () => {
    const other = invoices.find(
      (i) =>
        !config.sending.emailPartners.some((p) => p.key === partnerOf(i)) &&
        !config.sending.einvoicePartners.includes(partnerOf(i)!),
    );
    expect(other).toBeDefined();
    if (!other) return;
    const forged = {
      ...other,
      BusinessPartnerAddress: {
        ...(other.BusinessPartnerAddress as object),
        IdentificationNumber: partnerOf(invoices[0]!),
      },
    };
    tried++;
    const before = await snapshot(bed.sb.sandbox);
    publisher.events.length = 0;
    const result = await entries['send-invoice']!(recordEvent('IssuedInvoice', forged));
    expect(result).toMatchObject({ status: 'skipped' });
    expect(effectsBetween(before, await snapshot(bed.sb.sandbox), publisher.events)).toEqual(NO_EFFECTS);
  });

  it('a recipient and amount edited in the event: the e-mail goes to the address the service holds', async () => {
    const invoice = invoices[0]!;
    const attacker = 'attacker@evil.example';
    const forged = {
      ...invoice,
      TotalWithVat: 0.01,
      BusinessPartnerAddress: { ...(invoice.BusinessPartnerAddress as object), Email: attacker },
    };
    tried++;
    const before = await snapshot(bed.sb.sandbox);
    const result = await entries['send-invoice']!(recordEvent('IssuedInvoice', forged));
    expect(result).toMatchObject({ status: 'done' });
    const after = await snapshot(bed.sb.sandbox);
    const sent = after.emails.slice(before.emails.length);
    expect(sent).toEqual([[emailOf(invoice)]]);
    expect(sent.flat()).not.toContain(attacker);
  });
});

describe('hostile record ids', () => {
  it('are refused by the event schema of every action', async () => {
    for (const id of HOSTILE_IDS) {
      const event = recordEvent('ReceivedOrder', { ...unfinished(), Id: id });
      const results = await expectNoEffects(event, ['transfer-received-order']);
      for (const r of results) expect(r.status).toBe('invalid');
    }
  });

  it('are refused by the client before any request, with a typed error', async () => {
    const client = bed.sb.client;
    const before = await snapshot(bed.sb.sandbox);
    for (const id of HOSTILE_IDS) {
      const calls = [
        () => client.download('IssuedInvoices.isdoc', { params: { id } }),
        () => client.get('IssuedInvoices', id),
        () => client.create('ReceivedOrders.transferToIssueSlip', { params: { id } }),
        () =>
          client.call('Documents.sendEmail', {
            params: { collection: 'IssuedInvoices', id },
            body: { To: ['a@b.c'] },
          }),
      ];
      for (const call of calls) {
        tried++;
        await expect(call()).rejects.toBeInstanceOf(InvalidArgumentError);
      }
    }
    await expect(
      client.call('Documents.sendEmail', { params: { collection: '..', id: String(invoices[0]!.Id) } }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    tried++;
    expect((await snapshot(bed.sb.sandbox)).requests).toBe(before.requests);
  });

  it('in a replay file (CLI argument) fail validation: exit 2, nothing published', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'security-replay-'));
    try {
      const file = join(dir, 'events.jsonl');
      const lines = HOSTILE_IDS.slice(0, 6).map((id) =>
        JSON.stringify(recordEvent('ReceivedOrder', { ...unfinished(), Id: id })),
      );
      writeFileSync(file, `${lines.join('\n')}\n`);
      tried += lines.length;
      const run = await cli(['replay', file, '--dry-run'], { cwd: dir });
      expect(run.code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('detail.connection is bound to the deployment (findings 3, 7)', () => {
  it('a replay naming another connection is refused: no second e-mail, no archive key elsewhere', async () => {
    const invoice = invoices[0]!;
    const genuine = recordEvent('IssuedInvoice', invoice);
    // The genuine delivery (or a duplicate of an earlier one): at most one e-mail for this invoice.
    await entries['send-invoice']!(genuine);
    const sentTo = emailOf(invoice);
    const before = await snapshot(bed.sb.sandbox);
    const sentBefore = before.emails.filter((to) => to.includes(sentTo!)).length;
    for (const connection of ['other', 'acme2', 'ACME', '..', '../isdoc', 'acme/..', '.']) {
      const replay = { ...genuine, detail: { ...genuine.detail, connection } };
      const results = await expectNoEffects(replay, 'any');
      for (const r of results) expect(r.status, connection).toBe('invalid');
    }
    const after = await snapshot(bed.sb.sandbox);
    expect(after.emails.filter((to) => to.includes(sentTo!)).length).toBe(sentBefore);
  });
});
