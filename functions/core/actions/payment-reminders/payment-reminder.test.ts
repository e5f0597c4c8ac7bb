/**
 * The payment reminder on the sandbox (its e-mail sending records every mail in its outbox), with
 * the idempotency guard and the reminder list on dynalite: once per stage however the `Overdue`
 * event is delivered, the second stage from the scheduled pass, the address the service holds,
 * never one the event carries, and the settings validated.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import { ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { paymentIdempotencyKey } from '#functions/core/events/payment-events.js';
import { buildRoutes, buildScheduledActions } from '#functions/core/routes.js';
import { createManualClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';
import {
  CONNECTION,
  listAll,
  recordingLogger,
  recordingPublisher,
  SOURCE,
  useActionTestBed,
} from '#test/actions/support.js';
import { loadActionsConfig } from '../actions-config.js';
import { createActionEntry } from '../run-action.js';
import { paymentReminderPassAction, paymentRemindersAction } from './action.js';
import { remindOnOverdue, remindPass } from './payment-reminder.js';
import { reminderListKey, reminderListSchema } from './reminder-list.js';
import { daysOverdue, stageDue } from './reminder-stages.js';

const DAY = 86_400_000;
const DUE = '2026-03-02';
const PARTNER_MAIL = 'accounts@partner-held-by-service.example';
const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
const bed = useActionTestBed({
  clock,
  sizes: { documents: 30, partners: 6, perCollection: { IssuedInvoices: 10 } },
});
let unpaid: ApiRecord[];

beforeAll(async () => {
  const all = await listAll(bed.sb.client, 'IssuedInvoices');
  unpaid = [];
  for (const invoice of all) {
    const status = await bed.sb.client.restToPay({ collection: 'IssuedInvoices', id: invoice.Id });
    if (status.RestToPay > 0) unpaid.push(invoice);
  }
  expect(unpaid.length).toBeGreaterThanOrEqual(4);
});

/** Gives the invoice a due date and the partner address the service holds. */
function prepare(invoice: ApiRecord, email: string | null = PARTNER_MAIL) {
  bed.sb.sandbox.state.update('IssuedInvoices', invoice.Id, (r) => {
    r.DueDate = DUE;
    r.BusinessPartnerAddress = { ...(r.BusinessPartnerAddress as object), Email: email };
  });
}

/** The `Overdue` event of the invoice as the payment detector publishes it, plus anything forged. */
function overdueEvent(invoice: ApiRecord, forged: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'IssuedInvoice.Overdue',
    source: SOURCE,
    account: '000000000000',
    time: clock.now().toISOString(),
    region: 'eu-central-1',
    resources: [],
    detail: {
      version: ENVELOPE_VERSION,
      connection: CONNECTION,
      recordType: 'IssuedInvoice',
      id: invoice.Id,
      change: 'Overdue',
      documentNumber: String(invoice.DocumentNumber ?? 'FV1'),
      partner: { id: null, name: 'Forged s.r.o.' },
      currencyId: null,
      total: 100,
      paid: 0,
      restToPay: 100,
      dueDate: DUE,
      liquidations: [],
      observedAt: clock.now().toISOString(),
      idempotencyKey: paymentIdempotencyKey(CONNECTION, 'IssuedInvoice', invoice.Id, 'Overdue', DUE),
      daysOverdue: 2,
      ...forged,
    },
  };
}

async function setup(env: Record<string, string> = {}) {
  const config = loadActionsConfig({ ACTIONS_PAYMENT_REMINDERS: 'true', ...env });
  const guard = createPowertoolsGuard({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.idempotencyTable(),
    expiresAfterSeconds: 3600,
  });
  const state = createDynamoDbCheckpointStore<unknown>({
    client: bed.servers.dynamoDb,
    tableName: await bed.servers.checkpointTable(),
  });
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const deps = { api: bed.sb.client, publisher, clock, logger, config, guard, state };
  const entry = createActionEntry('payment-reminders', logger, (event, o) => remindOnOverdue(deps, event, o));
  const list = async () => {
    const stored = await state.get(reminderListKey(CONNECTION));
    return stored ? reminderListSchema.parse(stored.value).invoices : [];
  };
  return { deps, entry, publisher, logger, list };
}

const mailsOf = (invoice: ApiRecord) =>
  bed.sb.sandbox.server.domain.outbox.filter((m: { DocumentId: string }) => m.DocumentId === invoice.Id);

describe('payment reminders', () => {
  it('sends a due stage once however often and however concurrently the Overdue event arrives', async () => {
    const invoice = unpaid[0] as ApiRecord;
    prepare(invoice);
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 8 * DAY); // 8 days overdue: stage 1 (7) is due
    const { entry, publisher, list } = await setup();
    const event = overdueEvent(invoice);

    const first = await Promise.allSettled([entry(event), entry(event), entry(event)]);
    // A concurrent delivery that met the in-progress record is retried later, as SQS would.
    for (const r of first) {
      if (r.status === 'rejected') expect((r.reason as Error).name).toBe('RetryLaterError');
    }
    const again = await entry(event);
    const statuses = [
      ...first.flatMap((r) => (r.status === 'fulfilled' ? [r.value.status] : [])),
      again.status,
    ];
    expect(statuses).toContain('done');
    expect(statuses.filter((s) => s === 'done')).toHaveLength(1);
    // Redelivered later (another event id, the same invoice and due date): nothing more.
    await expect(entry(overdueEvent(invoice))).resolves.toMatchObject({ status: 'skipped' });

    const mails = mailsOf(invoice);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.To).toEqual([PARTNER_MAIL]);
    const sent = publisher.events.filter((e) => e.detailType === 'IssuedInvoice.PaymentReminderSent');
    expect(sent).toHaveLength(1);
    const detail = parseDetail('IssuedInvoice.PaymentReminderSent', sent[0]?.detail) as Record<
      string,
      unknown
    >;
    expect(detail).toMatchObject({ stage: 1, dueDate: DUE, daysOverdue: 8, to: [PARTNER_MAIL] });
    expect(await list()).toMatchObject([{ id: invoice.Id, dueDate: DUE, stagesDone: [1] }]);
  });

  it('sends the second stage from the scheduled pass, once, and then forgets the invoice', async () => {
    const invoice = unpaid[1] as ApiRecord;
    prepare(invoice);
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 2 * DAY); // detected early: nothing due yet
    const { deps, entry, list } = await setup();
    await expect(entry(overdueEvent(invoice))).resolves.toMatchObject({ status: 'skipped' });
    expect(mailsOf(invoice)).toHaveLength(0);

    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 10 * DAY);
    await remindPass(deps, CONNECTION);
    await remindPass(deps, CONNECTION);
    expect(mailsOf(invoice)).toHaveLength(1);

    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 22 * DAY);
    await remindPass(deps, CONNECTION);
    await remindPass(deps, CONNECTION);
    expect(mailsOf(invoice)).toHaveLength(2);
    expect(mailsOf(invoice).map((m: { Subject: string }) => m.Subject)).toEqual([
      `Payment reminder: invoice ${String(invoice.DocumentNumber)}`,
      `Payment reminder: invoice ${String(invoice.DocumentNumber)}`,
    ]);
    expect((await list()).some((t) => t.id === invoice.Id)).toBe(false);
    // The Overdue event redelivered after the last stage: the guard still answers, no third mail.
    await entry(overdueEvent(invoice));
    expect(mailsOf(invoice)).toHaveLength(2);
  });

  it('never takes the address or the due date from the event', async () => {
    const invoice = unpaid[2] as ApiRecord;
    prepare(invoice);
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 8 * DAY);
    const { entry } = await setup();
    // Fields an attacker might add are not in the schema; the service's record decides.
    await entry(
      overdueEvent(invoice, {
        to: ['attacker@evil.example'],
        email: 'attacker@evil.example',
        BusinessPartnerAddress: { Email: 'attacker@evil.example' },
        partner: { id: null, name: 'x', email: 'attacker@evil.example' },
      }),
    );
    expect(mailsOf(invoice).map((m: { To: string[] }) => m.To)).toEqual([[PARTNER_MAIL]]);

    // A forged due date far in the past does not make a stage due: the service's is 8 days ago.
    const other = unpaid[3] as ApiRecord;
    prepare(other);
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 3 * DAY);
    await entry(overdueEvent(other, { dueDate: '2025-01-01', daysOverdue: 400 }));
    expect(mailsOf(other)).toHaveLength(0);
  });

  it('sends nothing for a paid invoice and drops it from the list', async () => {
    const invoice = unpaid[3] as ApiRecord;
    prepare(invoice);
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 3 * DAY);
    const { deps, entry, list } = await setup();
    await entry(overdueEvent(invoice));
    expect((await list()).some((t) => t.id === invoice.Id)).toBe(true);
    await bed.sb.client.liquidateFully({
      collection: 'IssuedInvoices',
      DocumentId: invoice.Id,
      body: { Date: clock.now().toISOString(), Note: 'paid' },
    });
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 30 * DAY);
    await remindPass(deps, CONNECTION);
    expect(mailsOf(invoice)).toHaveLength(0);
    expect((await list()).some((t) => t.id === invoice.Id)).toBe(false);
  });
});

describe('payment reminder settings', () => {
  it('are off by default, and route Overdue events and schedule the pass when on (sk)', () => {
    const off = loadActionsConfig({});
    expect(off.paymentReminders).toEqual({
      enabled: false,
      stageDays: [7, 21],
      subject: 'Payment reminder: invoice {DocumentNumber}',
    });
    expect(buildRoutes(off).some((r) => r.handler === paymentRemindersAction.name)).toBe(false);
    const on = loadActionsConfig({ ACTIONS_PAYMENT_REMINDERS: 'true' });
    const route = buildRoutes(on).find((r) => r.handler === paymentRemindersAction.name);
    expect(route?.pattern['detail-type']).toEqual(['IssuedInvoice.Overdue', 'IssuedAdvanceInvoice.Overdue']);
    expect(buildScheduledActions(on).map((s) => s.handler)).toContain(paymentReminderPassAction.name);
  });

  it('are validated, naming the setting and what was expected', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadActionsConfig(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.issues.map((i) => `${i.field}: ${i.expected}`);
      }
    };
    expect(problems({ ACTIONS_PAYMENT_REMINDERS: 'maybe' })).toEqual([
      'ACTIONS_PAYMENT_REMINDERS: expected one of true, false, 1, 0, yes, no, on, off',
    ]);
    expect(problems({ ACTIONS_PAYMENT_REMINDER_FIRST_DAYS: '0' })).toEqual([
      'ACTIONS_PAYMENT_REMINDER_FIRST_DAYS: expected whole days overdue (1…365)',
    ]);
    expect(
      problems({ ACTIONS_PAYMENT_REMINDER_FIRST_DAYS: '14', ACTIONS_PAYMENT_REMINDER_SECOND_DAYS: '14' }),
    ).toEqual([
      'ACTIONS_PAYMENT_REMINDER_SECOND_DAYS: expected more days than ACTIONS_PAYMENT_REMINDER_FIRST_DAYS (14)',
    ]);
    expect(
      loadActionsConfig({
        ACTIONS_PAYMENT_REMINDER_FIRST_DAYS: '3',
        ACTIONS_PAYMENT_REMINDER_SECOND_DAYS: '10',
      }).paymentReminders.stageDays,
    ).toEqual([3, 10]);
  });

  it('count whole days from the due date and pick the highest stage due', () => {
    expect(daysOverdue('2026-03-02', new Date('2026-03-09T00:00:00Z'))).toBe(7);
    expect(daysOverdue('2026-03-02', new Date('2026-03-08T23:59:59Z'))).toBe(6);
    expect(daysOverdue('not a date', new Date())).toBeUndefined();
    expect([6, 7, 20, 21, 400].map((d) => stageDue(d, [7, 21]))).toEqual([0, 1, 1, 2, 2]);
  });
});
