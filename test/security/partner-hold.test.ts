/**
 * Issue 33, finding 2: payment reminders ignored the partner-from-checkout hold. An invoice billed to
 * a victim company through a checkout IČO was held from sending, but once overdue the reminder
 * e-mailed the victim. Now one rule holds everything that contacts the partner (sending, the
 * reminder on `Overdue`, the reminder pass): the hold is kept when `SendingHeld` is published, and
 * only a person's release (`SendingReleased`) lets the actions contact the partner.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { remindOnOverdue, remindPass } from '#functions/core/actions/payment-reminders/payment-reminder.js';
import { createActionEntry } from '#functions/core/actions/run-action.js';
import { sendInvoiceAction } from '#functions/core/actions/send-invoice/action.js';
import { SENDING_HELD, SENDING_RELEASED } from '#functions/core/actions/send-invoice/events.js';
import { NoHoldError, readHolds, releaseHold } from '#functions/core/actions/sending-hold.js';
import { ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';
import { paymentIdempotencyKey } from '#functions/core/events/payment-events.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapShopOrder } from '#functions/core/intake/map-order.js';
import { loadReferences } from '#functions/core/intake/references.js';
import { shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { createManualClock } from '#functions/shared/clock.js';
import { registryOfOneEntry } from '../actions/registry-of-one.js';
import {
  CONNECTION,
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  SOURCE,
  useActionTestBed,
} from '../actions/support.js';
import { snapshot } from './support.js';

const DAY = 86_400_000;
const DUE = '2026-03-06';
const VICTIM_MAIL = 'accounts@victim.example';
const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z', autoAdvance: true });
const bed = useActionTestBed({ clock, sizes: { documents: 20, partners: 8 } });

const registrationNumberOf = (r: ApiRecord) =>
  (r as { IdentificationNumber?: string | null }).IdentificationNumber ?? null;

/** Mallory's Shopify order naming the victim's IČO, made into an invoice by the transfer chain. */
async function invoiceFromCheckout(ico: string): Promise<ApiRecord> {
  const raw = sampleOrder('shopify', 7, new Date('2026-03-04T09:00:00Z')) as Record<string, unknown>;
  const mapping = loadIntakeConfig({ INTAKE_PARTNER_MATCH: 'registration-number' }).mapping;
  const order = shopOrderSchema.parse(
    shopifyToShopOrder(
      shopifyOrderSchema.parse({
        ...raw,
        email: 'mallory@evil.example',
        note_attributes: [{ name: 'ico', value: ico }],
      }),
      { registrationNumber: mapping.registrationNumberFields, vatNumber: mapping.vatNumberFields },
    ),
  );
  const request = mapShopOrder('shopify', order, await loadReferences(bed.sb.client), mapping, clock.now());
  const created = await bed.sb.client.create('ReceivedOrders.create', { body: request });
  const slip = await bed.sb.client.create('ReceivedOrders.transferToIssueSlip', {
    params: { id: created.data!.Id },
  });
  const id = (
    await bed.sb.client.create('IssueSlips.transferToIssuedInvoice', { params: { id: slip.data!.Id } })
  ).data!.Id;
  bed.sb.sandbox.state.update('IssuedInvoices', id, (r) => {
    r.DueDate = DUE;
    r.BusinessPartnerAddress = { ...(r.BusinessPartnerAddress as object), Email: VICTIM_MAIL };
  });
  return bed.sb.client.get('IssuedInvoices', id);
}

function overdueEvent(invoice: ApiRecord) {
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
      partner: { id: null, name: 'Victim s.r.o.' },
      currencyId: null,
      total: 100,
      paid: 0,
      restToPay: 100,
      dueDate: DUE,
      liquidations: [],
      observedAt: clock.now().toISOString(),
      idempotencyKey: paymentIdempotencyKey(CONNECTION, 'IssuedInvoice', invoice.Id, 'Overdue', DUE),
      daysOverdue: 8,
    },
  };
}

describe('finding 2: one hold for everything that contacts the partner', () => {
  it('a held invoice gets no e-invoice and no reminder until a person releases it', async () => {
    const partner = (await listAll(bed.sb.client, 'BusinessPartners')).find(registrationNumberOf)!;
    const ico = registrationNumberOf(partner)!;
    const invoice = await invoiceFromCheckout(ico);
    const settings = {
      // The partner list decides the channel here (sk defaults to the mandate's policy).
      ACTIONS_EINVOICING: 'lists',
      ACTIONS_EINVOICE_PARTNERS: ico,
      ACTIONS_PAYMENT_REMINDERS: 'true',
    };
    const config = loadActionsConfig({ ACCOUNTING_CONNECTION: CONNECTION, ...settings });
    const state = createDynamoDbCheckpointStore<unknown>({
      client: bed.servers.dynamoDb,
      tableName: await bed.servers.checkpointTable(),
    });
    const guard = createPowertoolsGuard({
      client: bed.servers.dynamoDb,
      tableName: await bed.servers.idempotencyTable(),
      expiresAfterSeconds: 3600,
    });
    const publisher = recordingPublisher();
    const base = { api: bed.sb.client, publisher, clock, logger: recordingLogger(), config, guard };
    // Sending on the one per-connection path, the deployment's registry of one.
    const send = registryOfOneEntry(
      sendInvoiceAction,
      settings,
      () => ({ ...base, idempotency: guard, actionState: state as never }),
      base.logger,
    );
    const reminders = { ...base, state };
    const mails = () =>
      bed.sb.sandbox.server.domain.outbox.filter((m: { DocumentId: string }) => m.DocumentId === invoice.Id)
        .length;
    const published = (type: string) => publisher.events.filter((e) => e.detailType === type).length;
    const before = await snapshot(bed.sb.sandbox);

    // Sending: held, announced once, and the hold kept.
    await expect(
      send(recordEvent('IssuedInvoice', invoice), { remainingTimeMs: 30_000 }),
    ).resolves.toMatchObject({
      status: 'skipped',
    });
    expect(published(SENDING_HELD)).toBe(1);
    expect(await readHolds(state, CONNECTION)).toEqual([
      expect.objectContaining({ id: invoice.Id, status: 'held', reason: 'partnerFromCheckout' }),
    ]);

    // Overdue: the reminder on the event and the reminder pass send nothing to the victim.
    clock.set(Date.parse(`${DUE}T00:00:00Z`) + 8 * DAY);
    const remind = createActionEntry('payment-reminders', base.logger, (event, o) =>
      remindOnOverdue(reminders, event, o),
    );
    await expect(remind(overdueEvent(invoice))).resolves.toMatchObject({ status: 'skipped' });
    expect(await remindPass(reminders, CONNECTION)).toMatchObject({ sent: 0 });
    await send(recordEvent('IssuedInvoice', invoice), { remainingTimeMs: 30_000 });
    expect(mails()).toBe(0);
    expect(published('IssuedInvoice.PaymentReminderSent')).toBe(0);
    expect((await snapshot(bed.sb.sandbox)).sideEffects).toBe(before.sideEffects);
    expect(published(SENDING_HELD)).toBe(1);

    // Only a person releases it; then the actions contact the partner as for any invoice.
    await expect(
      releaseHold(
        { state, publisher, clock },
        { connection: CONNECTION, id: randomUUID(), by: 'jana', via: 'cli' },
      ),
    ).rejects.toBeInstanceOf(NoHoldError);
    await releaseHold(
      { state, publisher, clock },
      { connection: CONNECTION, id: invoice.Id, by: 'jana', via: 'cli' },
    );
    const released = publisher.events.filter((e) => e.detailType === SENDING_RELEASED);
    expect(released.map((e) => e.detail)).toEqual([
      expect.objectContaining({ id: invoice.Id, releasedBy: 'jana', via: 'cli', action: 'hold.release' }),
    ]);
    await expect(
      send(recordEvent('IssuedInvoice', invoice), { remainingTimeMs: 30_000 }),
    ).resolves.toMatchObject({
      status: 'done',
    });
    expect((await snapshot(bed.sb.sandbox)).sideEffects).toBe(before.sideEffects + 1);
    expect(await remindPass(reminders, CONNECTION)).toMatchObject({ sent: 1 });
    expect(mails()).toBe(1);
  }, 120_000);
});
